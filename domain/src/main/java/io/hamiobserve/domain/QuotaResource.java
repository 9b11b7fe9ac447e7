package io.hamiobserve.domain;

import java.util.Optional;

/** The GPU resources a ResourceQuota can limit, named as HAMi's {@code quota_name} label names them. */
public enum QuotaResource {
    /** Memory, counted in MiB. */
    GPU_MEMORY_MIB("nvidia.com/gpumem"),
    /** Compute, counted in percent of a card. */
    GPU_CORES_PERCENT("nvidia.com/gpucores");

    private final String quotaName;

    QuotaResource(String quotaName) {
        this.quotaName = quotaName;
    }

    /** The name used in the {@code quota_name} label. */
    public String quotaName() {
        return quotaName;
    }

    /** The key of {@code spec.hard} that sets this limit, e.g. {@code limits.nvidia.com/gpumem}. */
    public String hardLimitKey() {
        return "limits." + quotaName;
    }

    /**
     * Whether a share counts against these quotas: {@code nvidia.com/gpumem} and
     * {@code nvidia.com/gpucores} are NVIDIA's resources, so only the allocations HAMi's NVIDIA
     * backend writes (type field {@code NVIDIA}) count; other vendors' memory and cores are in
     * their own units and under their own resource names.
     */
    public static boolean counts(DeviceShare share) {
        return Ledger.NVIDIA_BACKEND.equals(share.vendor());
    }

    public static Optional<QuotaResource> fromHardLimitKey(String key) {
        for (QuotaResource resource : values()) {
            if (resource.hardLimitKey().equals(key)) {
                return Optional.of(resource);
            }
        }
        return Optional.empty();
    }
}
