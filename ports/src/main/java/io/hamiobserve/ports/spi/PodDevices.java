package io.hamiobserve.ports.spi;

import io.hamiobserve.domain.MigInstance;

import java.util.List;

/**
 * A pod's allocations of one provider.
 *
 * @param allocations  one per allocation annotation the pod carries, in the provider's key order
 * @param migInstances MIG instances realised for the pod (NVIDIA only), possibly none
 * @param problems     one per part left out
 */
public record PodDevices(List<PodAllocation> allocations, List<MigInstance> migInstances, List<Problem> problems) {
    private static final PodDevices NONE = new PodDevices(List.of(), List.of(), List.of());

    public PodDevices {
        allocations = List.copyOf(allocations);
        migInstances = List.copyOf(migInstances);
        problems = List.copyOf(problems);
    }

    /** The pod holds nothing of this vendor. */
    public static PodDevices none() {
        return NONE;
    }
}
