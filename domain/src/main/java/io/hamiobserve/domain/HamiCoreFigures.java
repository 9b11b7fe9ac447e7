package io.hamiobserve.domain;

/**
 * The core figures of HAMi v2.10's scheduler series for one card, as HAMi computes them
 * ({@code normalizeAMDCoreMetrics} in {@code cmd/scheduler/metrics.go}): raw, except for a card
 * whose type starts with {@code AMD} (any case) and that registers more than 0 cores. Such a
 * card's cores are compute units; HAMi reports its limit as 100 and an allocation of {@code a}
 * units as {@code ceil(a / total * 100)}, computed in double precision. That rounding is kept as
 * HAMi has it: 11 of 20 units give 56, not 55.
 *
 * <p>The rule follows the card's registered type and total, not the allocation's, so it applies
 * to a card's allocated sum and to each container's share on it alike.
 */
public final class HamiCoreFigures {
    /** The core limit HAMi reports for a normalised card. */
    public static final double NORMALISED_LIMIT = 100;

    private HamiCoreFigures() {
    }

    /** Whether HAMi normalises this card's core figures. */
    public static boolean normalises(String cardType, long cardCores) {
        return cardCores > 0 && cardType != null && cardType.regionMatches(true, 0, "AMD", 0, 3);
    }

    /** HAMi's {@code hami_gpu_core_limit_ratio} for a card. */
    public static double limit(String cardType, long cardCores) {
        return normalises(cardType, cardCores) ? NORMALISED_LIMIT : cardCores;
    }

    /**
     * HAMi's {@code hami_gpu_core_allocated_ratio} (for the card's allocated sum) or
     * {@code hami_vgpu_core_allocated_ratio} (for one share on it).
     */
    public static double allocated(String cardType, long cardCores, long allocatedCores) {
        if (!normalises(cardType, cardCores)) {
            return allocatedCores;
        }
        return Math.ceil((double) allocatedCores / (double) cardCores * NORMALISED_LIMIT);
    }
}
