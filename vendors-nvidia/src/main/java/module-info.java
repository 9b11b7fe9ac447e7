/**
 * NVIDIA GPUs as HAMi schedules them: cards from {@code hami.io/node-nvidia-register} (JSON or
 * the legacy records), shares from {@code hami.io/vgpu-devices-allocated}, MIG instances from
 * {@code hami.io/vgpu-mig-allocations}. Memory in MiB, cores in percent of a card.
 */
module io.hamiobserve.vendors.nvidia {
    requires io.hamiobserve.vendors.protocol;

    provides io.hamiobserve.ports.spi.DeviceProvider with io.hamiobserve.vendors.nvidia.NvidiaProvider;
}
