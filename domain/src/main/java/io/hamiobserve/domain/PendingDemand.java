package io.hamiobserve.domain;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Unmet demand at one moment: the pending pods that request a HAMi resource, counted per namespace
 * and reason, with the oldest wait of each group and a histogram of every pod's wait.
 *
 * @param groups     per namespace and reason (sorted by both), the count and the oldest wait
 * @param histogram  the waits of all pending pods
 */
public record PendingDemand(List<Group> groups, WaitHistogram histogram) {
    /**
     * The histogram's upper bounds, in seconds: a minute to a week, so that "just created" and
     * "stuck for days" fall in different buckets.
     */
    public static final double[] WAIT_BUCKETS_SECONDS = {
            10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400, 172800, 604800};

    public PendingDemand {
        groups = List.copyOf(groups);
    }

    /**
     * One namespace's pending pods of one reason.
     *
     * @param oldestWaitSeconds the longest wait among them
     */
    public record Group(String namespace, PendingReason reason, long pods, double oldestWaitSeconds) {
    }

    /**
     * Cumulative bucket counts over {@link #WAIT_BUCKETS_SECONDS} (then {@code +Inf}, which is
     * {@link #count}), and the sum of the waits.
     */
    public record WaitHistogram(long[] cumulativeCounts, long count, double sumSeconds) {
        public WaitHistogram {
            cumulativeCounts = cumulativeCounts.clone();
        }

        @Override
        public long[] cumulativeCounts() {
            return cumulativeCounts.clone();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof WaitHistogram that && count == that.count
                    && Double.compare(sumSeconds, that.sumSeconds) == 0
                    && Arrays.equals(cumulativeCounts, that.cumulativeCounts);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(cumulativeCounts) + Long.hashCode(count) + Double.hashCode(sumSeconds);
        }

        @Override
        public String toString() {
            return "WaitHistogram" + Arrays.toString(cumulativeCounts) + " count=" + count + " sum=" + sumSeconds;
        }
    }

    /** The demand of {@code pending} at {@code nowEpochMillis}; work proportional to the pods. */
    public static PendingDemand of(List<PendingPod> pending, long nowEpochMillis) {
        Map<String, Map<PendingReason, long[]>> counts = new TreeMap<>();
        Map<String, Map<PendingReason, double[]>> oldest = new TreeMap<>();
        long[] buckets = new long[WAIT_BUCKETS_SECONDS.length];
        double sum = 0;
        for (PendingPod pod : pending) {
            double wait = pod.waitSeconds(nowEpochMillis);
            String namespace = pod.pod().namespace();
            counts.computeIfAbsent(namespace, n -> new TreeMap<>())
                    .computeIfAbsent(pod.reason(), r -> new long[1])[0]++;
            double[] longest = oldest.computeIfAbsent(namespace, n -> new TreeMap<>())
                    .computeIfAbsent(pod.reason(), r -> new double[1]);
            longest[0] = Math.max(longest[0], wait);
            for (int i = 0; i < buckets.length; i++) {
                if (wait <= WAIT_BUCKETS_SECONDS[i]) {
                    buckets[i]++;
                }
            }
            sum += wait;
        }
        List<Group> groups = new ArrayList<>();
        counts.forEach((namespace, byReason) -> byReason.forEach((reason, count) -> groups.add(
                new Group(namespace, reason, count[0], oldest.get(namespace).get(reason)[0]))));
        return new PendingDemand(groups, new WaitHistogram(buckets, pending.size(), sum));
    }
}
