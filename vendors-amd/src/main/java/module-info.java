/**
 * AMD GPUs as HAMi schedules them: cards from {@code hami.io/node-amd-register} (HAMi's JSON) while
 * the node advertises {@code amd.com/gpu}, shares from {@code hami.io/amd-devices-allocated}; cores
 * are compute units.
 */
module io.hamiobserve.vendors.amd {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.amd.AmdProvider;
}
