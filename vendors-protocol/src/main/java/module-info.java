/**
 * HAMi's device protocol as every vendor shares it, for the modules that provide
 * {@link io.hamiobserve.ports.spi.DeviceProvider}: the pod allocation string
 * ({@code UUID,Type,mem,cores:} per device, {@code ;} per container), the two register formats
 * (the legacy {@code :}/{@code ,} records and the JSON array of {@code DeviceInfo}), Kubernetes
 * resource quantities, the bounds on what one node or pod may make the exporter hold, and
 * {@link io.hamiobserve.vendors.protocol.HamiDeviceProvider}, which turns a list of HAMi backends
 * into a provider. It provides no vendor itself.
 *
 * <p>JSON is read with Jackson; the rest is plain Java.
 */
module io.hamiobserve.vendors.protocol {
    requires transitive io.hamiobserve.ports;
    requires transitive tools.jackson.databind;

    exports io.hamiobserve.vendors.protocol;
}
