package io.hamiobserve.ports.spi;

import java.util.Map;
import java.util.Set;

/**
 * What a {@link DeviceProvider} reads, declared so that a caller can select and keep only those
 * parts of nodes and pods (and skip a node or pod that carries none of them without decoding).
 *
 * @param nodeAnnotations node annotation keys, e.g. {@code hami.io/node-nvidia-register}
 * @param nodeLabels      node label keys
 * @param nodeResources   resource names read from the node's {@code status.capacity} (and
 *                        {@code status.allocatable}), e.g. {@code enflame.com/gcu}
 * @param podAnnotations  pod annotation keys, e.g. {@code hami.io/vgpu-devices-allocated}
 */
public record DeviceKeys(Set<String> nodeAnnotations, Set<String> nodeLabels, Set<String> nodeResources,
                         Set<String> podAnnotations) {
    public DeviceKeys {
        nodeAnnotations = Set.copyOf(nodeAnnotations);
        nodeLabels = Set.copyOf(nodeLabels);
        nodeResources = Set.copyOf(nodeResources);
        podAnnotations = Set.copyOf(podAnnotations);
    }

    /**
     * Whether the node carries anything that could register cards of this provider: one of its
     * annotations or resources. (Labels alone never do: they only qualify cards.)
     */
    public boolean mayRegister(NodeView node) {
        return any(node.annotations(), nodeAnnotations) || any(node.capacity(), nodeResources)
                || any(node.allocatable(), nodeResources);
    }

    /** Whether the pod carries one of this provider's allocation annotations. */
    public boolean mayAllocate(Map<String, String> podAnnotations) {
        return any(podAnnotations, this.podAnnotations);
    }

    private static boolean any(Map<String, String> present, Set<String> keys) {
        if (present.size() < keys.size()) {
            for (String key : present.keySet()) {
                if (keys.contains(key)) {
                    return true;
                }
            }
            return false;
        }
        for (String key : keys) {
            if (present.containsKey(key)) {
                return true;
            }
        }
        return false;
    }
}
