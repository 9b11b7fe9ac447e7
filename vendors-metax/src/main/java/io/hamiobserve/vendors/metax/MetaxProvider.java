package io.hamiobserve.vendors.metax;

import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.vendors.protocol.Backend;
import io.hamiobserve.vendors.protocol.HamiDeviceProvider;
import io.hamiobserve.vendors.protocol.Problems;
import io.hamiobserve.vendors.protocol.SynthesisedCards;

import java.util.List;
import java.util.Set;

/**
 * MetaX, two backends. Whole cards ({@code Metax-GPU}): no register annotation; one card per unit
 * of the node's {@code metax-tech.com/gpu} capacity, named {@code <node>-metax-<i>}, allocated
 * whole, with HAMi's fixed 65536 MiB (not the card's memory) and 100 percent. sGPUs
 * ({@code Metax-SGPU}): the plugin's own JSON in {@code metax-tech.com/node-gpu-devices}
 * ({@link SgpuDevices}); MiB and percent.
 */
public final class MetaxProvider extends HamiDeviceProvider {
    static final Set<String> RESOURCES = Set.of("metax-tech.com/gpu", "metax-tech.com/sgpu", "metax-tech.com/vcore", "metax-tech.com/vmemory");

    static final String GPU_RESOURCE = "metax-tech.com/gpu";
    /** What HAMi registers as every whole card's memory. */
    static final long WHOLE_CARD_MIB = 65536;

    public MetaxProvider() {
        super("metax", List.of(
                Backend.named("Metax-GPU")
                        .synthesisedFrom(GPU_RESOURCE, MetaxProvider::wholeCards, Set.of())
                        .units(new DeviceUnits(MemoryUnit.FIXED_MIB, CoreUnit.PERCENT))
                        .allocatedBy("hami.io/metax-gpu-devices-allocated")
                        .build(),
                Backend.named(SgpuDevices.TYPE)
                        .decodedBy(SgpuDevices.ANNOTATION, SgpuDevices::decode)
                        .allocatedBy("hami.io/metax-sgpu-devices-allocated")
                        .build()));
    }

    private static List<RegisteredCard> wholeCards(NodeView node, long gpus, Problems problems) {
        int count = SynthesisedCards.count(gpus, problems);
        return SynthesisedCards.alike(node, "-metax-", count,
                new SynthesisedCards.Shape(1, WHOLE_CARD_MIB, 100, "Metax-GPU"));
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
