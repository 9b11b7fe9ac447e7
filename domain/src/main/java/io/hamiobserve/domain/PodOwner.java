package io.hamiobserve.domain;

/**
 * A pod's top controller, as an operator knows it: the Deployment, StatefulSet, DaemonSet, CronJob,
 * Argo Rollout, operator resource (RayCluster, PyTorchJob, ...), a ReplicaSet or Job with no
 * controller above it, or the pod itself ({@code Pod}) when nothing controls it.
 * {@link OwnerChains} says how it is found.
 */
public record PodOwner(String kind, String name) {
    /** The kind of a pod that is its own workload. */
    public static final String POD = "Pod";

    public PodOwner {
        Require.text(kind, "kind");
        Require.text(name, "name");
    }

    /** A bare pod: its own workload. */
    public static PodOwner itself(PodRef pod) {
        return new PodOwner(POD, pod.name());
    }
}
