package io.hamiobserve.vendors.nvidia;

import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.ports.spi.PodDevices;
import io.hamiobserve.ports.spi.Problem;
import io.hamiobserve.vendors.protocol.Backend;
import io.hamiobserve.vendors.protocol.HamiDeviceProvider;
import io.hamiobserve.vendors.protocol.ModeField;
import io.hamiobserve.vendors.protocol.Problems;
import io.hamiobserve.vendors.protocol.RegisterFormat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * NVIDIA's backend ({@code NVIDIA}): the register annotation in either of HAMi's shapes, with
 * the {@code mode} field read ({@code hami-core}, {@code mig}, {@code mps}); the allocated key;
 * and the MIG instances the device plugin realised for the pod.
 */
public final class NvidiaProvider extends HamiDeviceProvider {
    static final Set<String> RESOURCES = Set.of("nvidia.com/gpu", "nvidia.com/gpumem", "nvidia.com/gpumem-percentage", "nvidia.com/gpucores");

    static final String REGISTER = "hami.io/node-nvidia-register";
    static final String ALLOCATED = "hami.io/vgpu-devices-allocated";
    static final String MIG_ALLOCATIONS = "hami.io/vgpu-mig-allocations";

    public NvidiaProvider() {
        super("nvidia", List.of(Backend.named("NVIDIA")
                .registeredBy(REGISTER, RegisterFormat.LEGACY_OR_JSON, ModeField.DECODED)
                .allocatedBy(ALLOCATED)
                .build()), MIG_ALLOCATIONS);
    }

    @Override
    public PodDevices decodePod(Map<String, String> annotations) {
        PodDevices shares = super.decodePod(annotations);
        String mig = annotations.get(MIG_ALLOCATIONS);
        if (mig == null || mig.isBlank()) {
            return shares;
        }
        Problems migProblems = new Problems(MIG_ALLOCATIONS);
        List<MigInstance> instances = MigAllocations.decode(mig, migProblems);
        List<Problem> problems = new ArrayList<>(shares.problems());
        problems.addAll(migProblems.list());
        return new PodDevices(shares.allocations(), instances, problems);
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
