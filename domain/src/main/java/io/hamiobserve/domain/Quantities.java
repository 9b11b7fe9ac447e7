package io.hamiobserve.domain;

/**
 * The one arithmetic policy of the project, for quantities that come from outside (annotations,
 * quotas, MIG allocations, HAMi-Core's cache files), all of which a tenant or a careless operator
 * can write.
 *
 * <ol>
 *   <li><b>Checked once, where they enter.</b> Each decoder accepts a quantity only as an integer
 *       in {@code [0, bound]} for its kind and skips anything else with a stable reason
 *       ({@code not_a_number}, {@code negative_number}, {@code number_overflow}); the records of
 *       this package restate the bounds, so a value out of bounds past a decoder is a bug and is
 *       refused, never exported.</li>
 *   <li><b>Bounds every real card fits many times over.</b> One card, share or process states at
 *       most {@link #MAX_MEMORY_MIB} (1 PiB; the largest card today holds about 2^18 MiB) and
 *       {@link #MAX_PERCENT} of compute; in bytes that is at most 2^50, so any such quantity
 *       converts to bytes exactly and 8,191 of them sum in bytes without leaving a {@code long};
 *       in MiB a sum would need 2^33 of them, more than any heap holds.</li>
 *   <li><b>Sums saturate.</b> A sum of bounded quantities over an unbounded number of inputs
 *       (pods on a card, containers in a namespace, processes in a file) is taken with
 *       {@link #add}, which stops at {@link Long#MAX_VALUE} instead of wrapping or throwing. A
 *       saturated figure is not a real one, but it is never negative, never an exception and never
 *       a failed scrape. The ledger's running totals, which subtract what they once added, are
 *       exact instead ({@link RunningTotal}) and saturate only when read.</li>
 *   <li><b>Conversions saturate</b> the same way ({@link Units#mibToBytes}), so rendering never
 *       throws on data.</li>
 * </ol>
 */
public final class Quantities {
    /** The most memory one card, share or quota entry per card may state, MiB: 2^30 MiB = 1 PiB. */
    public static final long MAX_MEMORY_MIB = 1L << 30;
    /** {@link #MAX_MEMORY_MIB} in bytes (2^50): the most memory one cache-file field may state. */
    public static final long MAX_MEMORY_BYTES = MAX_MEMORY_MIB * Units.BYTES_PER_MIB;
    /**
     * The most compute one card, share or process may state, percent of a card (HAMi's
     * {@code devcore} is 100 for a whole card, more when a node scales its cores).
     */
    public static final long MAX_PERCENT = 1L << 30;
    /**
     * The largest ResourceQuota hard limit, in MiB or percent: a namespace's memory limit covers
     * many cards, so it is bounded only by being representable in bytes (2^43 − 1 MiB).
     */
    public static final long MAX_QUOTA = Long.MAX_VALUE / Units.BYTES_PER_MIB;

    private Quantities() {
    }

    /** {@code a + b} for non-negative quantities, {@link Long#MAX_VALUE} where the sum would not fit. */
    public static long add(long a, long b) {
        long sum = a + b;
        // Two non-negative longs overflow only into the sign bit.
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /**
     * How much {@code a} exceeds {@code b}, 0 when it does not; a negative figure (which only a
     * faulty source gives) counts as 0, so the difference of two such figures always fits.
     */
    public static long excess(long a, long b) {
        return Math.max(0, Math.max(0, a) - Math.max(0, b));
    }

    /** {@code value} as an int, {@link Integer#MAX_VALUE} where it does not fit (a count, never negative). */
    public static int toIntSaturated(long value) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(0, value));
    }

    /** Whether {@code value} is a memory figure in MiB that one card or share may state. */
    public static boolean isMemoryMib(long value) {
        return value >= 0 && value <= MAX_MEMORY_MIB;
    }

    /** Whether {@code value} is a memory figure in bytes that one card, share or process may state. */
    public static boolean isMemoryBytes(long value) {
        return value >= 0 && value <= MAX_MEMORY_BYTES;
    }

    /** Whether {@code value} is a compute figure, percent, that one card, share or process may state. */
    public static boolean isPercent(long value) {
        return value >= 0 && value <= MAX_PERCENT;
    }
}
