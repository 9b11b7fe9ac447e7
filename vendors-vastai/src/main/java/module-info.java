/**
 * Vastai accelerators as HAMi schedules them: cards from {@code hami.io/node-va-register} (HAMi's
 * JSON, cores forced to 100), shares from {@code hami.io/Vastai-devices-allocated} (capital V).
 */
module io.hamiobserve.vendors.vastai {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.vastai.VastaiProvider;
}
