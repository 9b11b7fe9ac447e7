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
 * @param controller             what the pod says of its controller ({@link OwnerChains} finds its top controller)
 * @param lifecycle              when it was placed, whether it is being deleted, whether it started
 *                               (what judging a {@link Ghost} needs)
 */
public record PodPlacement(PodRef pod, String node, PodPhase phase, boolean initContainersFinished,
                           List<ContainerShares> containers, List<MigInstance> migInstances,
                           PodController controller, PodLifecycle lifecycle) {
    public PodPlacement {
        Objects.requireNonNull(pod, "pod");
        Require.text(node, "node");
        Objects.requireNonNull(phase, "phase");
        containers = List.copyOf(containers);
        migInstances = List.copyOf(migInstances);
        Objects.requireNonNull(controller, "controller");
        Objects.requireNonNull(lifecycle, "lifecycle");
    }

    /** A placement whose lifecycle is not known ({@link PodLifecycle#NOT_KNOWN}: never a ghost). */
    public PodPlacement(PodRef pod, String node, PodPhase phase, boolean initContainersFinished,
                        List<ContainerShares> containers, List<MigInstance> migInstances,
                        PodController controller) {
        this(pod, node, phase, initContainersFinished, containers, migInstances, controller, PodLifecycle.NOT_KNOWN);
    }

    /** A placement of a pod with no controller (its own workload). */
    public PodPlacement(PodRef pod, String node, PodPhase phase, boolean initContainersFinished,
                        List<ContainerShares> containers, List<MigInstance> migInstances) {
        this(pod, node, phase, initContainersFinished, containers, migInstances, PodController.NONE);
    }

    /** A placement without MIG instances. */
    public PodPlacement(PodRef pod, String node, PodPhase phase, boolean initContainersFinished,
                        List<ContainerShares> containers) {
        this(pod, node, phase, initContainersFinished, containers, List.of());
    }

    /** The same placement of a pod controlled as {@code controller} says. */
    public PodPlacement withController(PodController controller) {
        return new PodPlacement(pod, node, phase, initContainersFinished, containers, migInstances, controller,
                lifecycle);
    }

    /** The same placement with {@code lifecycle}. */
    public PodPlacement withLifecycle(PodLifecycle lifecycle) {
        return new PodPlacement(pod, node, phase, initContainersFinished, containers, migInstances, controller,
                lifecycle);
    }

    /** Whether this pod counts in the ledger now (HAMi §2.1: placed and not Succeeded/Failed). */
    public boolean holdsAllocation() {
        return phase.holdsAllocation();
    }
}
