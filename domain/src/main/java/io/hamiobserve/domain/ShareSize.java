package io.hamiobserve.domain;

/**
 * How much of a card a share blocks, in cards: the larger of its memory fraction and its core
 * fraction. A pod holding 25 % of the memory and 50 % of the cores blocks half a card: the other
 * half of the cores is all another share can get, whatever memory is left. The one place this rule
 * is written; showback's card-hours and the ghost list's card-hours both read it.
 */
public final class ShareSize {
    private ShareSize() {
    }

    /**
     * The share's size in cards, within [0, 1].
     *
     * @param memoryFraction the share's memory over the card's; NaN when not known (a card
     *                       without a memory figure)
     * @param coreFraction   the share's cores over the card's; NaN when not known
     * @return the larger known fraction, clamped to [0, 1]; 0 when neither is known
     */
    public static double cards(double memoryFraction, double coreFraction) {
        double larger = Math.max(known(memoryFraction), known(coreFraction));
        return Math.min(1.0, larger);
    }

    /**
     * The size of {@code memoryMib} and {@code corePercent} of a card of {@code cardMemoryMib}:
     * cores as a percent of the card (the vendor's unit converted, {@link CoreUnit#percentOfCard}).
     */
    public static double cards(long memoryMib, long cardMemoryMib, double corePercent) {
        double memory = cardMemoryMib > 0 ? (double) memoryMib / cardMemoryMib : Double.NaN;
        return cards(memory, corePercent / 100.0);
    }

    private static double known(double fraction) {
        return Double.isNaN(fraction) || fraction < 0 ? 0.0 : fraction;
    }
}
