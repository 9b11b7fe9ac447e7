package io.hamiobserve.domain;

import java.util.Objects;

/**
 * A slice of one card that the scheduler handed to one container.
 *
 * @param uuid      the card's UUID
 * @param vendor    the vendor/type field of the allocation entry, e.g. {@code NVIDIA}
 * @param memoryMib memory granted, MiB
 * @param cores     compute granted, percent of a card
 */
public record DeviceShare(String uuid, String vendor, long memoryMib, long cores) {
    public DeviceShare {
        Require.text(uuid, "uuid");
        vendor = Objects.requireNonNullElse(vendor, "");
        Require.atMost(memoryMib, Quantities.MAX_MEMORY_MIB, "memoryMib");
        Require.atMost(cores, Quantities.MAX_PERCENT, "cores");
    }

    public long memoryBytes() {
        return Units.mibToBytes(memoryMib);
    }
}
