package io.hamiobserve.domain;

import java.util.OptionalDouble;

/**
 * What a card's raw core figures mean ({@code devcore} and the cores of its shares). HAMi reports
 * them raw in its {@code *_core_*_ratio} series (AMD's excepted, see {@link HamiCoreFigures}), so
 * for some vendors that "ratio" is a count, a slice number or a bitmask; {@link #percentOfCard}
 * reads each of them as the percent of a card it stands for. The label is label-safe and stable.
 */
public enum CoreUnit {
    /** Percent of a card: 100 is the whole card (a node that scales cores registers more). */
    PERCENT("percent", "percent of a card: 100 is the whole card"),
    /** Physical compute units (AMD): the card registers how many it has. */
    COMPUTE_UNITS("compute_units", "physical compute units; the card registers how many it has"),
    /** Slices of the card's cores, 16 per card (Moore Threads). */
    CORE_SLICES("core_slices", "slices of the card's cores; the card registers how many (16) it has"),
    /** One bit per core (AWS NeuronCores): 3 is cores 0 and 1; the card registers all its bits. */
    CORE_BITMASK("core_bitmask", "a bitmask with one bit per core; the card registers the mask of all its cores"),
    /** Ascend AI cores: the card registers its AICore count; template allocations hold 0. */
    AI_CORES("ai_cores", "AI cores; the card registers its AICore count, template allocations hold 0");

    private final String label;
    private final String meaning;

    CoreUnit(String label, String meaning) {
        this.label = label;
        this.meaning = meaning;
    }

    /** A stable, label-safe name, e.g. {@code core_slices}. */
    public String label() {
        return label;
    }

    /** One sentence for a user: what the raw number is. */
    public String meaning() {
        return meaning;
    }

    /**
     * {@code raw} as the percent of the card it stands for, given the card's registered figure
     * {@code cardTotal}; empty where the card's figure gives no scale (0 or no core bits).
     */
    public OptionalDouble percentOfCard(long raw, long cardTotal) {
        return switch (this) {
            case PERCENT -> OptionalDouble.of(raw);
            case CORE_BITMASK -> Long.bitCount(cardTotal) == 0 ? OptionalDouble.empty()
                    : OptionalDouble.of(Long.bitCount(raw) * 100.0 / Long.bitCount(cardTotal));
            case COMPUTE_UNITS, CORE_SLICES, AI_CORES -> cardTotal <= 0 ? OptionalDouble.empty()
                    : OptionalDouble.of(raw * 100.0 / cardTotal);
        };
    }
}
