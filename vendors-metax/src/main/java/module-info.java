/**
 * MetaX GPUs as HAMi schedules them: whole cards built from the node's {@code metax-tech.com/gpu}
 * capacity ({@code Metax-GPU}) and sGPUs from {@code metax-tech.com/node-gpu-devices}
 * ({@code Metax-SGPU}), each with its allocated key.
 */
module io.hamiobserve.vendors.metax {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.metax.MetaxProvider;
    provides io.hamiobserve.ports.spi.UsageExporterMapping with io.hamiobserve.vendors.metax.MetaxExporterMapping;
}
