package io.hamiobserve.domain.fleet;

/**
 * One container's share of one card, joined: what the scheduler allocated (by container index)
 * and what HAMi-Core accounts (by container name). Either side may be missing, with its reason.
 *
 * @param containerIndex the container's position in the pod, or -1 when only usage names it
 * @param model          the card's model, empty when no node registers the card
 * @param memoryAllocated bytes; {@code coresAllocated} percent of a card
 * @param memoryUsed     bytes, HAMi-Core's accounting; {@code utilisation} percent of a card
 * @param unmanagedMemory bytes the container's processes hold outside HAMi-Core (0 when none is reported)
 * @param origin         where the use comes from when not HAMi-Core's accounting (a vendor's exporter,
 *                       the driver's processes), with what its figures mean
 * @param resources      the resources a container requests for this card (right-sizing writes in them)
 */
public record WorkloadShare(WorkloadRef workload, int containerIndex, String node, String uuid, String model,
                            Figure memoryAllocated, Figure coresAllocated, Figure memoryUsed, Figure utilisation,
                            Figure lastKernelSeconds, double unmanagedMemory, java.util.Optional<UsageOrigin> origin,
                            CardResources resources) {

    public WorkloadShare {
        java.util.Objects.requireNonNull(origin);
        java.util.Objects.requireNonNull(resources);
    }

    /** A share whose use, if any, is HAMi-Core's accounting, on a card requested by HAMi's default names. */
    public WorkloadShare(WorkloadRef workload, int containerIndex, String node, String uuid, String model,
                         Figure memoryAllocated, Figure coresAllocated, Figure memoryUsed, Figure utilisation,
                         Figure lastKernelSeconds, double unmanagedMemory) {
        this(workload, containerIndex, node, uuid, model, memoryAllocated, coresAllocated, memoryUsed, utilisation,
                lastKernelSeconds, unmanagedMemory, java.util.Optional.empty(), CardResources.HAMI_DEFAULT);
    }

    /**
     * Allocated but unused memory, never below zero; missing when either side is, or when the
     * memory figure is not the container's own (a vendor's figure that is the whole card's).
     */
    public Figure memoryIdle() {
        if (origin.isPresent() && !origin.get().memoryIsOwn()) {
            return Figure.missing(Absence.DIFFERENT_MEANING);
        }
        return memoryAllocated.minus(memoryUsed).map(idle -> Math.max(0, idle));
    }
}
