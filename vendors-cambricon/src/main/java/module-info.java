/**
 * Cambricon MLUs as HAMi schedules them: no register annotation; cards built from the node's
 * {@code cambricon.com/mlu.smlu.vcore} and {@code .vmemory} capacity, shares from
 * {@code hami.io/cambricon-mlu-devices-allocated}.
 */
module io.hamiobserve.vendors.cambricon {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.cambricon.CambriconProvider;
    provides io.hamiobserve.ports.spi.UsageExporterMapping with io.hamiobserve.vendors.cambricon.MluExporterMapping;
}
