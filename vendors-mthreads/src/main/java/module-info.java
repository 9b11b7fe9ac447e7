/**
 * Moore Threads GPUs as HAMi schedules them: no register annotation; cards built from the node's
 * {@code mthreads.com/sgpu-core} (16 slices per GPU) and {@code mthreads.com/sgpu-memory} capacity,
 * shares from {@code hami.io/mthreads-vgpu-devices-allocated} (the only key HAMi writes), cores
 * kept as raw slices.
 */
module io.hamiobserve.vendors.mthreads {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.mthreads.MthreadsProvider;
}
