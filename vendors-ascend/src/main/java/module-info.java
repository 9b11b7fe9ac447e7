/**
 * Huawei Ascend NPUs as HAMi schedules them: one backend per card type (HAMi's CommonWord,
 * e.g. {@code Ascend910B3}), each with its register annotation {@code hami.io/node-register-<CW>}
 * (HAMi's JSON) and its allocated key {@code hami.io/<CW>-devices-allocated}; and how npu-exporter's
 * series map onto the console's card and container use.
 */
module io.hamiobserve.vendors.ascend {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.ascend.AscendProvider;
    provides io.hamiobserve.ports.spi.UsageExporterMapping with io.hamiobserve.vendors.ascend.NpuExporterMapping;
}
