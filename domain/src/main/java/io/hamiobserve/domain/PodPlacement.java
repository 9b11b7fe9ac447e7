package io.hamiobserve.domain;

import java.util.List;
import java.util.Objects;

/**
 * A pod as the scheduler's ledger records it: where it was placed and which shares each of its
 * containers holds.
 *
 * @param pod                    identity
 * @param node                   the node from {@code hami.io/vgpu-node}
 * @param phase                  the pod phase
 * @param initContainersFinished whether every init container has terminated; from then on only
 *                               app containers hold shares
 * @param containers             per container, in annotation order (init containers first)
 * @param migInstances           MIG instances realised for the pod, possibly none
 */
public record PodPlacement(PodRef pod, String node, PodPhase phase, boolean initContainersFinished,
                           List<ContainerShares> containers, List<MigInstance> migInstances) {
    public PodPlacement {
        Objects.requireNonNull(pod, "pod");
        Require.text(node, "node");
        Objects.requireNonNull(phase, "phase");
        containers = List.copyOf(containers);
        migInstances = List.copyOf(migInstances);
    }

    /** A placement without MIG instances. */
    public PodPlacement(PodRef pod, String node, PodPhase phase, boolean initContainersFinished,
                        List<ContainerShares> containers) {
        this(pod, node, phase, initContainersFinished, containers, List.of());
    }

    /** Whether this pod counts in the ledger now (HAMi §2.1: placed and not Succeeded/Failed). */
    public boolean holdsAllocation() {
        return phase.holdsAllocation();
    }
}
