package io.hamiobserve.domain;

import java.util.Objects;

/**
 * What one card's raw memory and core figures mean, and so its shares': HAMi keeps each vendor's
 * figures in that vendor's units and reports most of them unchanged.
 *
 * @param memory what {@code devmem} and a share's memory are
 * @param cores  what {@code devcore} and a share's cores are
 */
public record DeviceUnits(MemoryUnit memory, CoreUnit cores) {
    /** MiB and percent of a card: NVIDIA's units, and most vendors'. */
    public static final DeviceUnits MIB_AND_PERCENT = new DeviceUnits(MemoryUnit.MIB, CoreUnit.PERCENT);

    public DeviceUnits {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(cores, "cores");
    }
}
