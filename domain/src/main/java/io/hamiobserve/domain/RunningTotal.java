package io.hamiobserve.domain;

/**
 * A running sum that terms are added to and later subtracted from, exact however large it grows:
 * a 128-bit two's-complement integer in two longs. The ledger needs this where a saturating sum
 * would not do: once saturated, subtracting a pod's share again would leave a wrong figure for
 * ever. Read it with {@link #saturated()}. Not thread-safe (the ledger guards it).
 */
final class RunningTotal {
    private long high;
    private long low;

    /** Adds {@code term} (negative to subtract). */
    void add(long term) {
        long sum = low + term;
        // The carry out of the low word, in unsigned arithmetic; the term's sign extends into the high word.
        high += (term >> 63) + (Long.compareUnsigned(sum, low) < 0 ? 1 : 0);
        low = sum;
    }

    boolean isZero() {
        return high == 0 && low == 0;
    }

    /** The sum, or {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE} where it does not fit in a long. */
    long saturated() {
        if ((high == 0 && low >= 0) || (high == -1 && low < 0)) {
            return low;
        }
        return high < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
}
