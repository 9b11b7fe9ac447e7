package io.hamiobserve.domain.fleet;

import java.util.Comparator;
import java.util.Objects;

/**
 * A workload as the metrics know it: one container of one pod. (Controllers are not in the
 * exporters' series, so replicas are separate workloads.)
 *
 * @param container the container's name, or {@code #<index>} when only its index is known
 */
public record WorkloadRef(String namespace, String pod, String container) implements Comparable<WorkloadRef> {
    private static final Comparator<WorkloadRef> ORDER = Comparator.comparing(WorkloadRef::namespace)
            .thenComparing(WorkloadRef::pod).thenComparing(WorkloadRef::container);

    public WorkloadRef {
        Objects.requireNonNull(namespace);
        Objects.requireNonNull(pod);
        Objects.requireNonNull(container);
    }

    /** The name used for a container whose name no series gives. */
    public static String unnamed(int index) {
        return "#" + index;
    }

    @Override
    public int compareTo(WorkloadRef other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return namespace + "/" + pod + "/" + container;
    }
}
