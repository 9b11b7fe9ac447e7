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

    public static Optional<QuotaResource> fromHardLimitKey(String key) {
        for (QuotaResource resource : values()) {
            if (resource.hardLimitKey().equals(key)) {
                return Optional.of(resource);
            }
        }
        return Optional.empty();
    }
}
