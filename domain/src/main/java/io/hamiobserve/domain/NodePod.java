package io.hamiobserve.domain;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A HAMi pod running on this node, as the node-side process knows it.
 *
 * @param pod               identity
 * @param containerNames    container names in allocation order (init containers first)
 * @param containerIdToName runtime container IDs (without the {@code containerd://} scheme) to
 *                          names, for attributing driver processes by their cgroup
 * @param placement         the scheduler's placement of the pod, when its annotations decode
 */
public record NodePod(PodRef pod, List<String> containerNames, Map<String, String> containerIdToName,
                      Optional<PodPlacement> placement) {
    public NodePod {
        Objects.requireNonNull(pod, "pod");
        containerNames = List.copyOf(containerNames);
        containerIdToName = Map.copyOf(containerIdToName);
        Objects.requireNonNull(placement, "placement");
    }
}
