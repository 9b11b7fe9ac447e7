package io.hamiobserve.domain;

import java.util.Objects;

/**
 * A pod that requests a HAMi resource and is not placed on a node: what counting unmet demand
 * needs of it, nothing more (no message, no spec).
 *
 * @param pod                   the pod
 * @param waitingSinceEpochMillis when its wait began: its creation time (see docs/metrics.md, why not
 *                              the condition's transition time)
 * @param reason                why it is not placed, from its {@code PodScheduled} condition
 */
public record PendingPod(PodRef pod, long waitingSinceEpochMillis, PendingReason reason) {
    public PendingPod {
        Objects.requireNonNull(pod, "pod");
        Objects.requireNonNull(reason, "reason");
    }

    /** Seconds waited at {@code nowEpochMillis}; zero for a creation time in the future (a skewed clock). */
    public double waitSeconds(long nowEpochMillis) {
        // In doubles: two longs' difference may overflow for a crafted creation time.
        return Math.max(0.0, (double) nowEpochMillis - (double) waitingSinceEpochMillis) / 1000.0;
    }
}
