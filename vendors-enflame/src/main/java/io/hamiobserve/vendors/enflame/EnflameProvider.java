package io.hamiobserve.vendors.enflame;

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
 * Enflame, two backends. Whole GCUs ({@code GCU}): no register annotation; one card per unit of
 * the node's {@code enflame.com/gcu} capacity, named {@code <node>-GCU-<i>}, allocated whole, whose
 * memory figure 100 is percent of the card, not MiB (HAMi reports it as 100 MiB). DRS cards
 * ({@code Enflame}): the plugin's own JSON in {@code enflame.com/gcu-drs-capacity}
 * ({@link DrsCapacity}), MiB and percent, written only to the allocated key.
 */
public final class EnflameProvider extends HamiDeviceProvider {
    static final Set<String> RESOURCES = Set.of("enflame.com/gcu", "enflame.com/drs-gcu", "enflame.com/gcu-memory", "enflame.com/gcu-core");

    static final String GCU_RESOURCE = "enflame.com/gcu";

    public EnflameProvider() {
        super("enflame", List.of(
                Backend.named("GCU")
                        .synthesisedFrom(GCU_RESOURCE, EnflameProvider::wholeCards, Set.of())
                        .units(new DeviceUnits(MemoryUnit.PERCENT_OF_CARD, CoreUnit.PERCENT))
                        .allocatedBy("hami.io/enflame-gcu-devices-allocated")
                        .build(),
                Backend.named(DrsCapacity.TYPE)
                        .decodedBy(DrsCapacity.ANNOTATION, DrsCapacity::decode)
                        .namedAfterNode()
                        .allocatedBy("hami.io/enflame-vgpu-devices-allocated")
                        .build()));
    }

    private static List<RegisteredCard> wholeCards(NodeView node, long gcus, Problems problems) {
        int count = SynthesisedCards.count(gcus, problems);
        return SynthesisedCards.alike(node, "-GCU-", count, new SynthesisedCards.Shape(1, 100, 100, "GCU"));
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
