package io.hamiobserve.domain;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * How a pod's top controller is found: follow {@code controller: true} owner references upwards
 * through the owners that are known (ReplicaSets and Jobs, {@link OwnerObject}), and name the
 * last one reached.
 *
 * <ul>
 * <li>A pod with no controller is its own workload: {@code Pod/<pod>}.</li>
 * <li>Pod → ReplicaSet → Deployment (or an Argo Rollout, whatever controls the ReplicaSet), Pod →
 *     Job → CronJob: the reference above the known ReplicaSet or Job is the answer (Deployments
 *     and CronJobs are not cached: only their name, from the reference, is needed).</li>
 * <li>A known ReplicaSet or Job with no controller above it is the answer itself; so is any kind
 *     that is not cached (StatefulSet, DaemonSet, RayCluster, LeaderWorkerSet, ...).</li>
 * <li>The pod's own ReplicaSet unknown (deleted, or missing from a dump): a ReplicaSet named
 *     {@code <name>-<pod-template-hash>} is Deployment {@code <name>}; otherwise the chain stops
 *     at the reference it has.</li>
 * <li>An owner is matched by UID and only in the pod's namespace (owner references never cross
 *     namespaces).</li>
 * <li>Hostile chains end: a reference back to an owner already on the chain stops it at the last
 *     owner reached ({@link Problem#OWNER_CYCLE}); so does a chain of more than
 *     {@link #MAX_LOOKUPS} known owners ({@link Problem#OWNER_CHAIN_TOO_DEEP}). Real chains look
 *     up at most two (Pod → ReplicaSet → Deployment: the ReplicaSet, then the Deployment's UID,
 *     not cached).</li>
 * </ul>
 *
 * <p>Work is bounded by {@link #MAX_LOOKUPS} map lookups per pod, whatever the data.
 */
public final class OwnerChains {
    /** At most this many owners are looked up for one pod. */
    public static final int MAX_LOOKUPS = 8;
    static final String REPLICA_SET = "ReplicaSet";
    static final String DEPLOYMENT = "Deployment";

    private OwnerChains() {
    }

    /** Why a chain was cut short; the answer is then the last owner reached. */
    public enum Problem {
        OWNER_CYCLE, OWNER_CHAIN_TOO_DEEP;

        /** The skip reason: the constant's name in lower case. */
        public String reason() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * A pod's top controller and how it was found.
     *
     * @param owner   the top controller
     * @param path    the UIDs looked up on the way, in order (known or not): the owners whose change
     *                can change the answer
     * @param problem why the chain was cut short, if it was
     */
    public record Resolution(PodOwner owner, List<String> path, Optional<Problem> problem) {
        public Resolution {
            Objects.requireNonNull(owner, "owner");
            path = List.copyOf(path);
            Objects.requireNonNull(problem, "problem");
        }
    }

    /**
     * A chain cut short while resolving a pod's owner, for the source to count as a skipped input.
     *
     * @param pod       the pod
     * @param problem   why
     * @param stoppedAt the owner the pod was given
     */
    public record Finding(PodRef pod, Problem problem, PodOwner stoppedAt) {
    }

    /**
     * The top controller of {@code pod}.
     *
     * @param known the known owner of a UID, or null
     */
    public static Resolution resolve(PodRef pod, PodController controller, Function<String, OwnerObject> known) {
        if (controller.ref().isEmpty()) {
            return new Resolution(PodOwner.itself(pod), List.of(), Optional.empty());
        }
        OwnerRef ref = controller.ref().get();
        List<String> path = new ArrayList<>(2);
        while (true) {
            boolean direct = path.isEmpty();
            OwnerObject object = null;
            if (!ref.uid().isEmpty()) {
                path.add(ref.uid());
                object = known.apply(ref.uid());
            }
            if (object == null || !object.namespace().equals(pod.namespace())) {
                PodOwner owner = direct ? unknownDirect(ref, controller.templateHash())
                        : new PodOwner(ref.kind(), ref.name());
                return new Resolution(owner, path, Optional.empty());
            }
            PodOwner reached = new PodOwner(object.kind(), object.name());
            if (object.controller().isEmpty()) {
                return new Resolution(reached, path, Optional.empty());
            }
            OwnerRef above = object.controller().get();
            if (path.contains(above.uid())) {
                return new Resolution(reached, path, Optional.of(Problem.OWNER_CYCLE));
            }
            if (path.size() == MAX_LOOKUPS) {
                return new Resolution(reached, path, Optional.of(Problem.OWNER_CHAIN_TOO_DEEP));
            }
            ref = above;
        }
    }

    /** The top controller of a pod whose own controller is not known: a ReplicaSet of a Deployment by its name. */
    static PodOwner unknownDirect(OwnerRef ref, String templateHash) {
        String name = ref.name();
        if (ref.kind().equals(REPLICA_SET) && !templateHash.isEmpty()
                && name.length() > templateHash.length() + 1 && name.endsWith(templateHash)
                && name.charAt(name.length() - templateHash.length() - 1) == '-') {
            return new PodOwner(DEPLOYMENT, name.substring(0, name.length() - templateHash.length() - 1));
        }
        return new PodOwner(ref.kind(), ref.name());
    }
}
