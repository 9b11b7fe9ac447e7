package io.hamiobserve.domain;

import java.util.Objects;
import java.util.Optional;

/**
 * A share held by a pod with no live owner, and the moment from which that holds. The rule
 * ({@link #of}) states the condition and its start; how long it must last before someone acts
 * (a pod starting up is briefly "never started"; a pod within its grace is briefly "deleting")
 * is the consumer's threshold: the alert's {@code for} and the console's minimum age, against
 * {@code time()}. So the exporter's series depend on the ledger only, never on its clock.
 *
 * <p>Not ghosts here: a pod {@code Succeeded} or {@code Failed} (HAMi releases its share, the
 * ledger drops it); a pod in phase {@code Unknown} (its node is unreachable; the node lifecycle
 * controller evicts it after its toleration, which sets a {@code deletionTimestamp}: then it is
 * {@link GhostReason#DELETING}); a share that is idle (judged from usage history, where it is kept:
 * the node role's last activity per container, compared with the console's and alert's N hours).
 *
 * @param reason              why the owner is not live
 * @param sinceEpochMillis    when the condition began: the deletion moment, or the placement
 */
public record Ghost(GhostReason reason, long sinceEpochMillis) {
    public Ghost {
        Objects.requireNonNull(reason, "reason");
    }

    /**
     * The ghost a placed pod is, if any. A pod being deleted is {@link GhostReason#DELETING} from
     * its {@code deletionTimestamp} (from its placement when that is unreadable); else a pod none
     * of whose containers ever started is {@link GhostReason#NEVER_STARTED} from its placement.
     * Nothing when the moment is unknown: no ghost is made of missing facts.
     */
    public static Optional<Ghost> of(PodPlacement placement) {
        if (!placement.holdsAllocation()) {
            return Optional.empty();
        }
        PodLifecycle life = placement.lifecycle();
        if (life.deleting()) {
            long since = life.deletionEpochMillis() != PodLifecycle.UNKNOWN_TIME
                    ? life.deletionEpochMillis() : life.placedEpochMillis();
            return since == PodLifecycle.UNKNOWN_TIME ? Optional.empty()
                    : Optional.of(new Ghost(GhostReason.DELETING, since));
        }
        if (!life.started() && life.placedKnown()) {
            return Optional.of(new Ghost(GhostReason.NEVER_STARTED, life.placedEpochMillis()));
        }
        return Optional.empty();
    }

    /** The moment as unix seconds (a double: any long of milliseconds is a finite value). */
    public double sinceEpochSeconds() {
        return sinceEpochMillis / 1000.0;
    }

    /**
     * Seconds the condition has lasted at {@code nowEpochMillis}; zero before it began (a pod
     * within its grace, a clock skewed). In doubles: two longs' difference may overflow for a
     * crafted timestamp.
     */
    public double ageSeconds(long nowEpochMillis) {
        return Math.max(0.0, (double) nowEpochMillis - (double) sinceEpochMillis) / 1000.0;
    }
}
