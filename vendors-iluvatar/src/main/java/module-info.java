/**
 * Iluvatar CoreX GPUs as HAMi schedules them: one backend per chip (HAMi's CommonWord, e.g.
 * {@code MR-V100}), each with {@code hami.io/node-<CW>-register} (the legacy records) and
 * {@code hami.io/<CW>-devices-allocated}.
 */
module io.hamiobserve.vendors.iluvatar {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.iluvatar.IluvatarProvider;
}
