package io.hamiobserve.domain;

import java.util.Objects;

/**
 * One card as its node registered it with the scheduler.
 *
 * @param uuid       card UUID, e.g. {@code GPU-0055...}; the key that joins every view
 * @param index      the card's index on its node
 * @param maxShares  how many containers may share it ({@code count})
 * @param memoryMib  registered memory in MiB ({@code devmem})
 * @param cores      registered compute in percent of a card ({@code devcore}; 100 = whole card,
 *                   more when the node scales cores)
 * @param type       the type string from the annotation, e.g. {@code NVIDIA-NVIDIA A100-SXM4-40GB}
 * @param numa       NUMA node
 * @param mode       how the card is shared
 * @param healthy    the node's health flag for the card
 */
public record RegisteredCard(String uuid, int index, int maxShares, long memoryMib, long cores,
                             String type, int numa, CardMode mode, boolean healthy) {
    public RegisteredCard {
        Require.text(uuid, "uuid");
        Require.nonNegative(index, "index");
        Require.nonNegative(maxShares, "maxShares");
        Require.atMost(memoryMib, Quantities.MAX_MEMORY_MIB, "memoryMib");
        Require.atMost(cores, Quantities.MAX_PERCENT, "cores");
        type = Objects.requireNonNullElse(type, "");
        Objects.requireNonNull(mode, "mode");
    }

    /** Registered memory in bytes. */
    public long memoryBytes() {
        return Units.mibToBytes(memoryMib);
    }
}
