/**
 * Biren GPUs as HAMi schedules them: cards from {@code hami.io/node-biren-register} (HAMi's JSON,
 * cores forced to 100), shares from {@code hami.io/Biren-devices-allocated} (capital B).
 */
module io.hamiobserve.vendors.biren {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.biren.BirenProvider;
}
