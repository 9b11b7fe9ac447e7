package io.hamiobserve.domain.fleet;

/**
 * How much a recommendation differs from the current request, by absolute difference (KRR's
 * idea: a 10 % change of a large request matters more than 50 % of a tiny one). Ordered from
 * least to most pressing; {@link #UNKNOWN} when there is not enough data to say.
 */
public enum Severity {
    UNKNOWN, GOOD, OK, WARNING, CRITICAL;

    /**
     * Memory thresholds in MiB. CRITICAL from 4 GiB: the size of a typical small inference share,
     * so the difference alone would seat another pod. WARNING from 1 GiB. OK from 256 MiB, one
     * rounding step of the recommendation; below that the request is as good as the rule can make it.
     */
    public static final long MEMORY_CRITICAL_MIB = 4096;
    public static final long MEMORY_WARNING_MIB = 1024;
    public static final long MEMORY_OK_MIB = 256;

    /**
     * Compute thresholds in percent of a card. CRITICAL from 25 (a quarter card, a common
     * HAMi core share), WARNING from 10 (two rounding steps), OK from 5 (one rounding step).
     */
    public static final long CORES_CRITICAL = 25;
    public static final long CORES_WARNING = 10;
    public static final long CORES_OK = 5;

    public static Severity ofMemoryDifference(double mib) {
        return grade(Math.abs(mib), MEMORY_CRITICAL_MIB, MEMORY_WARNING_MIB, MEMORY_OK_MIB);
    }

    public static Severity ofCoresDifference(double cores) {
        return grade(Math.abs(cores), CORES_CRITICAL, CORES_WARNING, CORES_OK);
    }

    private static Severity grade(double difference, long critical, long warning, long ok) {
        if (difference >= critical) {
            return CRITICAL;
        }
        if (difference >= warning) {
            return WARNING;
        }
        return difference >= ok ? OK : GOOD;
    }

    public Severity max(Severity other) {
        return compareTo(other) >= 0 ? this : other;
    }
}
