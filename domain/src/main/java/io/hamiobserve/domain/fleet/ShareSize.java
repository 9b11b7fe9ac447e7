package io.hamiobserve.domain.fleet;

/**
 * How much of a card a HAMi share blocks: the larger of its memory fraction and its core fraction.
 * HAMi places a share only where both its memory and its cores fit, so a share holding 25 % of the
 * memory and 50 % of the cores leaves room for at most half a card's worth of others on the
 * dimension it fills most: it blocks half a card. Charging the smaller fraction (or only memory,
 * as a whole-card tool would the other way round) would leave hours nobody pays for.
 */
public final class ShareSize {
    private ShareSize() {
    }

    /** The card fraction blocked, 0 to 1: a fraction outside 0–1 or not a number counts as its bound or 0. */
    public static double cardFraction(double memoryFraction, double coreFraction) {
        return Math.max(clamp(memoryFraction), clamp(coreFraction));
    }

    private static double clamp(double fraction) {
        if (Double.isNaN(fraction) || fraction <= 0) {
            return 0;
        }
        return Math.min(1, fraction);
    }
}
