/**
 * Hygon DCUs as HAMi schedules them: cards from {@code hami.io/node-dcu-register} (the legacy
 * records, 7 fields from the DCU plugin), shares from {@code hami.io/dcu-devices-allocated}.
 */
module io.hamiobserve.vendors.hygon {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.hygon.HygonProvider;
    provides io.hamiobserve.ports.spi.UsageExporterMapping with io.hamiobserve.vendors.hygon.DcuExporterMapping;
}
