package io.hamiobserve.domain.fleet;

import java.util.Objects;

/**
 * The resources a container requests for one card of a vendor, as HAMi's device configuration
 * names them: what a right-sizing recommendation is written in.
 *
 * @param count     the number of cards, e.g. {@code huawei.com/Ascend910B3}
 * @param memory    the per-card memory, e.g. {@code huawei.com/Ascend910B3-memory}
 * @param memoryMib MiB per unit of {@code memory} (1 where the request is in MiB)
 * @param cores     the per-card compute in percent of the card; empty where the vendor's compute
 *                  request is not a percent of the card (no compute is recommended then)
 */
public record CardResources(String count, String memory, long memoryMib, String cores) {
    /** HAMi's default names, NVIDIA's: MiB and percent of a card. */
    public static final CardResources HAMI_DEFAULT = new CardResources("nvidia.com/gpu", "nvidia.com/gpumem", 1,
            "nvidia.com/gpucores");

    public CardResources {
        Objects.requireNonNull(count);
        Objects.requireNonNull(memory);
        Objects.requireNonNull(cores);
        if (memoryMib < 1) {
            throw new IllegalArgumentException("memoryMib must be at least 1: " + memoryMib);
        }
    }

    /** {@code mib} in the request's units of {@link #memory}, rounded up to whole units. */
    public long memoryUnits(long mib) {
        return (mib + memoryMib - 1) / memoryMib;
    }
}
