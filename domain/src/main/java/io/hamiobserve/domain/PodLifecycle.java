package io.hamiobserve.domain;

/**
 * What the ledger knows of a placed pod's life beyond its phase: when HAMi placed it, whether it
 * is being deleted and from when, and whether any of its containers has started. What judging a
 * ghost allocation needs ({@link Ghost}), nothing more.
 *
 * @param placedEpochMillis   when HAMi bound the pod ({@code hami.io/bind-time}, else its creation);
 *                            {@link #UNKNOWN_TIME} when neither is readable
 * @param deleting            whether the pod carries a {@code deletionTimestamp}
 * @param deletionEpochMillis the {@code deletionTimestamp}: the moment the API server lets the pod
 *                            go (the deletion request plus its grace period); {@link #UNKNOWN_TIME}
 *                            when absent or unreadable
 * @param started             whether any container (init or app) has ever run: a running or
 *                            terminated state in its status
 */
public record PodLifecycle(long placedEpochMillis, boolean deleting, long deletionEpochMillis, boolean started) {
    /** A moment not known. */
    public static final long UNKNOWN_TIME = Long.MIN_VALUE;

    /**
     * A pod of which nothing beyond its phase is known: started, not being deleted (what a source
     * that reads no lifecycle says, so that it never makes a ghost out of missing facts).
     */
    public static final PodLifecycle NOT_KNOWN = new PodLifecycle(UNKNOWN_TIME, false, UNKNOWN_TIME, true);

    public PodLifecycle {
        if (!deleting && deletionEpochMillis != UNKNOWN_TIME) {
            throw new IllegalArgumentException("deletionEpochMillis without deleting");
        }
    }

    /** Whether the placement moment is known. */
    public boolean placedKnown() {
        return placedEpochMillis != UNKNOWN_TIME;
    }
}
