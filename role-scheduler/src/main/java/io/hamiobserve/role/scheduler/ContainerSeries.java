package io.hamiobserve.role.scheduler;

/**
 * The form of HAMi's per-container allocation series, {@code hami_vgpu_memory_allocated_bytes}
 * and {@code hami_vgpu_core_allocated_ratio}. The per-container detail is always there under
 * {@code hami_observe_vgpu_container_*}, with the container's name.
 */
public enum ContainerSeries {
    /**
     * HAMi v2.10 (the default): one series per pod and card, {@code container_index="0"}, valued at
     * the pod's effective use (the larger of its init containers' peak and its app containers' sum),
     * so that {@code sum by (device_uuid)} equals the card's allocated total.
     */
    POD_EFFECTIVE,
    /**
     * HAMi v2.9 and before: one series per container and card, {@code container_index} the
     * container's position (init containers first); a sum over a pod with init containers counts
     * them on top of the app containers.
     */
    PER_CONTAINER
}
