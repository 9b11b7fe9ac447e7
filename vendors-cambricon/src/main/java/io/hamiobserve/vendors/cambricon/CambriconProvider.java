package io.hamiobserve.vendors.cambricon;

import io.hamiobserve.domain.Quantities;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.vendors.protocol.Backend;
import io.hamiobserve.vendors.protocol.HamiDeviceProvider;
import io.hamiobserve.vendors.protocol.NodeResources;
import io.hamiobserve.vendors.protocol.Numbers;
import io.hamiobserve.vendors.protocol.Problems;
import io.hamiobserve.vendors.protocol.SynthesisedCards;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Cambricon MLU ({@code MLU}): no register annotation (HAMi's docs still show one; v2.10 reads
 * none). HAMi builds one card per 100 of the node's {@code cambricon.com/mlu.smlu.vcore}
 * capacity, named {@code <node>-cambricon-mlu-<i>}, each sharable 100 ways with 100 percent of
 * cores and {@code vmemory × 256 × 100 / vcore} MiB (the smlu memory unit is 256 MiB). MiB and
 * percent.
 */
public final class CambriconProvider extends HamiDeviceProvider {
    static final Set<String> RESOURCES = Set.of("cambricon.com/vmlu", "cambricon.com/mlu.smlu.vmemory", "cambricon.com/mlu.smlu.vcore");

    static final String VCORE = "cambricon.com/mlu.smlu.vcore";
    static final String VMEMORY = "cambricon.com/mlu.smlu.vmemory";
    /** MiB per unit of {@code cambricon.com/mlu.smlu.vmemory}. */
    static final long MEMORY_FACTOR = 256;

    public CambriconProvider() {
        super("cambricon", List.of(Backend.named("MLU")
                .synthesisedFrom(VCORE, CambriconProvider::cards, Set.of(VMEMORY))
                .allocatedBy("hami.io/cambricon-mlu-devices-allocated")
                .build()));
    }

    private static List<RegisteredCard> cards(NodeView node, long vcore, Problems problems) {
        long vmemory = NodeResources.whole(node, VMEMORY, problems);
        OptionalLong memory = Numbers.scaled(vmemory, MEMORY_FACTOR * 100, vcore, "card memory",
                Quantities.MAX_MEMORY_MIB, problems.about(VMEMORY));
        if (memory.isEmpty()) {
            return List.of();
        }
        int count = SynthesisedCards.count(vcore, 100, problems);
        return SynthesisedCards.alike(node, "-cambricon-mlu-", count,
                new SynthesisedCards.Shape(100, memory.getAsLong(), 100, "MLU"));
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
