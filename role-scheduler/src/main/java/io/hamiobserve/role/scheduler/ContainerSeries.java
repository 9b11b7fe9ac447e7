package io.hamiobserve.role.scheduler;

/**
 * The form of HAMi's per-container allocation series, {@code hami_vgpu_memory_allocated_bytes}
 * and {@code hami_vgpu_core_allocated_ratio}. In either form the per-container detail, with the
 * container's name, is under {@code hami_observe_vgpu_container_*} for the pods whose containers
 * HAMi's series cannot tell apart ({@link AllocationMetrics#toldByPodSeries}); for the others
 * {@code hami_observe_container_info} names the one container behind HAMi's series.
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
