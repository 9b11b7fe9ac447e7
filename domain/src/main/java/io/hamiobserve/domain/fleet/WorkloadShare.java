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
 */
public record WorkloadShare(WorkloadRef workload, int containerIndex, String node, String uuid, String model,
                            Figure memoryAllocated, Figure coresAllocated, Figure memoryUsed, Figure utilisation,
                            Figure lastKernelSeconds, double unmanagedMemory) {

    /** Allocated but unused memory, never below zero; missing when either side is. */
    public Figure memoryIdle() {
        return memoryAllocated.minus(memoryUsed).map(idle -> Math.max(0, idle));
    }
}
