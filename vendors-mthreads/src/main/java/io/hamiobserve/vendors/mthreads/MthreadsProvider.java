package io.hamiobserve.vendors.mthreads;

import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
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
 * Moore Threads ({@code Mthreads}): no register annotation. HAMi builds one card per 16 of the
 * node's {@code mthreads.com/sgpu-core} capacity, named {@code <node>-mthreads-<i>}, sharable 100
 * ways, with 16 cores and {@code sgpu-memory × 512 × 16 / sgpu-core} MiB (the sgpu memory unit is
 * 512 MiB). Cores stay slices out of 16, in cards and allocations: HAMi reports them raw, so its
 * core "ratios" for these cards run from 0 to 16. Only the allocated key is written.
 */
public final class MthreadsProvider extends HamiDeviceProvider {
    static final Set<String> RESOURCES = Set.of("mthreads.com/vgpu", "mthreads.com/sgpu-memory", "mthreads.com/sgpu-core");

    static final String CORES = "mthreads.com/sgpu-core";
    static final String MEMORY = "mthreads.com/sgpu-memory";
    /** Core slices of one GPU. */
    static final long SLICES_PER_CARD = 16;
    /** MiB per unit of {@code mthreads.com/sgpu-memory}. */
    static final long MEMORY_FACTOR = 512;

    public MthreadsProvider() {
        super("mthreads", List.of(Backend.named("Mthreads")
                .synthesisedFrom(CORES, MthreadsProvider::cards, Set.of(MEMORY))
                .units(new DeviceUnits(MemoryUnit.MIB, CoreUnit.CORE_SLICES))
                .allocatedBy("hami.io/mthreads-vgpu-devices-allocated")
                .build()));
    }

    private static List<RegisteredCard> cards(NodeView node, long cores, Problems problems) {
        long memoryUnits = NodeResources.whole(node, MEMORY, problems);
        OptionalLong memory = Numbers.scaled(memoryUnits, MEMORY_FACTOR * SLICES_PER_CARD, cores, "card memory",
                Quantities.MAX_MEMORY_MIB, problems.about(MEMORY));
        if (memory.isEmpty()) {
            return List.of();
        }
        int count = SynthesisedCards.count(cores, SLICES_PER_CARD, problems);
        return SynthesisedCards.alike(node, "-mthreads-", count,
                new SynthesisedCards.Shape(100, memory.getAsLong(), SLICES_PER_CARD, "Mthreads"));
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
