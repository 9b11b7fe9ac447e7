package io.hamiobserve.domain;

import java.util.OptionalLong;

/**
 * What a card's raw memory figures mean ({@code devmem} and the memory of its shares). HAMi
 * multiplies every one of them by 2^20 and calls it bytes; for most vendors that is right, for a
 * few it is a placeholder or not memory at all. The label is label-safe and stable.
 */
public enum MemoryUnit {
    /** MiB of the card's memory (MB for Ascend, which HAMi treats as MiB). */
    MIB("mib", "MiB of the card's memory"),
    /**
     * A figure HAMi gives every card of the vendor alike, not measured (MetaX whole cards 65536,
     * Kunlunxin whole cards 98304): cards are allocated whole, so it says "all of it".
     */
    FIXED_MIB("fixed_mib", "a fixed figure in MiB that HAMi gives every card of this kind, not the card's memory; "
            + "cards are allocated whole"),
    /** Percent of the card's memory, 100 for the whole card (Enflame whole GCUs). */
    PERCENT_OF_CARD("percent_of_card", "percent of the card's memory (100 = whole card), "
            + "which HAMi reports as that many MiB"),
    /** Not accounted: registered and allocated as 0 (AWS Neuron). */
    NONE("none", "not accounted: HAMi registers and allocates 0");

    private final String label;
    private final String meaning;

    MemoryUnit(String label, String meaning) {
        this.label = label;
        this.meaning = meaning;
    }

    /** A stable, label-safe name, e.g. {@code mib}. */
    public String label() {
        return label;
    }

    /** One sentence for a user: what the raw number is. */
    public String meaning() {
        return meaning;
    }

    /** The raw figure in bytes of the card's memory, where the unit is memory at all. */
    public OptionalLong bytes(long raw) {
        return this == MIB ? OptionalLong.of(Units.mibToBytes(raw)) : OptionalLong.empty();
    }
}
