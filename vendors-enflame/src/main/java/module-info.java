/**
 * Enflame GCUs as HAMi schedules them: whole cards built from the node's {@code enflame.com/gcu}
 * capacity ({@code GCU}, memory as percent of the card) and DRS cards from
 * {@code enflame.com/gcu-drs-capacity} ({@code Enflame}), each with its allocated key.
 */
module io.hamiobserve.vendors.enflame {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.enflame.EnflameProvider;
}
