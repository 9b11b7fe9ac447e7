package io.hamiobserve.vendors.amd;

import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.vendors.protocol.Backend;
import io.hamiobserve.vendors.protocol.HamiDeviceProvider;
import io.hamiobserve.vendors.protocol.ModeField;
import io.hamiobserve.vendors.protocol.NodeDecoder;
import io.hamiobserve.vendors.protocol.Problems;
import io.hamiobserve.vendors.protocol.RegisterFormat;
import io.hamiobserve.vendors.protocol.NodeResources;

import java.util.List;
import java.util.Set;

/**
 * AMD ({@code AMD}): HAMi's JSON, the type being the product name, which allocations repeat.
 * Cores are physical compute units, in the card's registration and in allocations alike; HAMi's
 * series turn them into percent for cards whose type starts with {@code AMD}
 * ({@link io.hamiobserve.domain.HamiCoreFigures}). HAMi drops a node's AMD cards while the node
 * does not advertise {@code amd.com/gpu} (its health check), and so does this provider, saying why.
 */
public final class AmdProvider extends HamiDeviceProvider {
    static final Set<String> RESOURCES = Set.of("amd.com/gpu", "amd.com/gpumem", "amd.com/gpucores");

    static final String REGISTER = "hami.io/node-amd-register";
    static final String GPU_RESOURCE = "amd.com/gpu";

    public AmdProvider() {
        super("amd", List.of(Backend.named("AMD")
                .registeredBy(REGISTER, RegisterFormat.DEVICE_INFO_JSON, ModeField.IGNORED)
                .guardedBy(AmdProvider::whileAdvertised, Set.of(GPU_RESOURCE))
                .units(new DeviceUnits(MemoryUnit.MIB, CoreUnit.COMPUTE_UNITS))
                .allocatedBy("hami.io/amd-devices-allocated")
                .build()));
    }

    private static NodeDecoder whileAdvertised(NodeDecoder cards) {
        return node -> {
            NodeDecoder.Found found = cards.decode(node);
            if (!found.present()) {
                return found;
            }
            Problems problems = new Problems(GPU_RESOURCE);
            if (NodeResources.whole(node, GPU_RESOURCE, problems) > 0) {
                return found;
            }
            if (problems.isEmpty()) {
                problems.add("no_capacity", "the node registers AMD cards but advertises no " + GPU_RESOURCE
                        + ": HAMi takes its AMD device plugin for unhealthy and drops the cards");
            }
            return new NodeDecoder.Found(false, List.of(), problems.list());
        };
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
