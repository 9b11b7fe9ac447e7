package io.hamiobserve.domain;

/**
 * HAMi-Core's own accounting of one container's use of one device: what its hooked CUDA calls
 * allocated, summed over the container's live processes. Not the driver's per-process figure.
 *
 * @param vdeviceIndex          the device's position inside the container (HAMi's {@code vdevice_index})
 * @param uuid                  the card UUID recorded for that position
 * @param usedBytes             Σ total memory of live processes
 * @param contextBytes          Σ CUDA context memory
 * @param moduleBytes           Σ module (code) memory
 * @param bufferBytes           Σ data buffers
 * @param limitBytes            the memory limit HAMi-Core enforces
 * @param smLimitPercent        the compute limit, percent (100 when the file says 0: no limit)
 * @param smUtilPercent         Σ over processes of their SM utilisation: may exceed 100
 * @param liveProcesses         process slots in use and not exited
 * @param lastKernelEpochSeconds when a kernel last ran; 0 when unknown (v0 files) or never
 */
public record DeviceUsage(int vdeviceIndex, String uuid, long usedBytes, long contextBytes, long moduleBytes,
                          long bufferBytes, long limitBytes, long smLimitPercent, long smUtilPercent,
                          int liveProcesses, long lastKernelEpochSeconds) {
    public DeviceUsage {
        Require.nonNegative(vdeviceIndex, "vdeviceIndex");
        Require.text(uuid, "uuid");
        // Sums over a container's processes and files, taken with Quantities.add: never negative.
        Require.nonNegative(usedBytes, "usedBytes");
        Require.nonNegative(contextBytes, "contextBytes");
        Require.nonNegative(moduleBytes, "moduleBytes");
        Require.nonNegative(bufferBytes, "bufferBytes");
        Require.nonNegative(limitBytes, "limitBytes");
        Require.nonNegative(smLimitPercent, "smLimitPercent");
        Require.nonNegative(smUtilPercent, "smUtilPercent");
        Require.nonNegative(liveProcesses, "liveProcesses");
        Require.nonNegative(lastKernelEpochSeconds, "lastKernelEpochSeconds");
    }
}
