package io.hamiobserve.domain;

/**
 * The one place where units change. HAMi's ledger speaks MiB and percent of a card; the metrics
 * speak bytes. Every conversion in the project goes through here so that a factor of 2^20 is
 * written once.
 */
public final class Units {
    /** Bytes in one mebibyte (2^20), the unit of HAMi's {@code devmem} and allocation fields. */
    public static final long BYTES_PER_MIB = 1L << 20;

    private Units() {
    }

    /**
     * Converts MiB to bytes; {@link Long#MAX_VALUE} where the result would not fit (a sum no card
     * has, see {@link Quantities}). Negative MiB, which no record holds, give 0.
     */
    public static long mibToBytes(long mib) {
        if (mib <= 0) {
            return 0;
        }
        return mib > Long.MAX_VALUE / BYTES_PER_MIB ? Long.MAX_VALUE : mib * BYTES_PER_MIB;
    }

    /** Converts bytes to whole MiB, rounding down. */
    public static long bytesToMib(long bytes) {
        return bytes / BYTES_PER_MIB;
    }

    /** Converts a percentage (100 = whole) to a 0..1 fraction. */
    public static double percentToFraction(double percent) {
        return percent / 100.0;
    }

    /** {@code part / whole} as a 0..1 fraction; callers only ask when {@code whole > 0}. */
    public static double fraction(long part, long whole) {
        if (whole <= 0) {
            throw new IllegalArgumentException("whole must be positive, was " + whole);
        }
        return (double) part / (double) whole;
    }
}
