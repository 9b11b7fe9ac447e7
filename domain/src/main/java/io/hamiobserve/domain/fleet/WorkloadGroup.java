package io.hamiobserve.domain.fleet;

import java.util.Objects;

/**
 * A workload as an operator changes it: one container of one controller (a Deployment, a
 * StatefulSet, a CronJob, ...), across every pod the controller had. The pod-level
 * {@link WorkloadRef} names one of those pods; a pod with no controller is its own workload
 * ({@code ownerKind="Pod"}, {@code ownerName=<pod>}).
 *
 * @param cluster   the cluster label's value, empty when the series carry none
 * @param ownerKind the top controller's kind as the scheduler role names it ({@code owner_kind} of {@code hami_observe_container_info})
 */
public record WorkloadGroup(String cluster, String namespace, String ownerKind, String ownerName, String container)
        implements Comparable<WorkloadGroup> {
    /** The kind of a pod that is its own workload. */
    public static final String BARE_POD = "Pod";

    public WorkloadGroup {
        Objects.requireNonNull(cluster);
        Objects.requireNonNull(namespace);
        Objects.requireNonNull(ownerKind);
        Objects.requireNonNull(ownerName);
        Objects.requireNonNull(container);
    }

    /** The workload a pod with no known controller is: the pod itself. */
    public static WorkloadGroup barePod(String cluster, String namespace, String pod, String container) {
        return new WorkloadGroup(cluster, namespace, BARE_POD, pod, container);
    }

    public boolean isBarePod() {
        return BARE_POD.equals(ownerKind);
    }

    /** The controller alone, without the container: what one patch changes. */
    public WorkloadGroup controller() {
        return new WorkloadGroup(cluster, namespace, ownerKind, ownerName, "");
    }

    @Override
    public int compareTo(WorkloadGroup other) {
        // Written out rather than a Comparator chain: a page of 30,000 containers sorts its
        // workloads on each visit, and the chain's lambdas were a tenth of such a page's time in a
        // profile (docs/benchmarks.md, "A page's own work at 30,000 containers").
        int by = cluster.compareTo(other.cluster);
        if (by == 0) {
            by = namespace.compareTo(other.namespace);
        }
        if (by == 0) {
            by = ownerKind.compareTo(other.ownerKind);
        }
        if (by == 0) {
            by = ownerName.compareTo(other.ownerName);
        }
        return by != 0 ? by : container.compareTo(other.container);
    }

    @Override
    public String toString() {
        return (cluster.isEmpty() ? "" : cluster + ":") + namespace + "/" + ownerKind + "/" + ownerName
                + (container.isEmpty() ? "" : "/" + container);
    }
}
