package io.hamiobserve.vendors.kunlunxin;

import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.vendors.protocol.Backend;
import io.hamiobserve.vendors.protocol.HamiDeviceProvider;
import io.hamiobserve.vendors.protocol.ModeField;
import io.hamiobserve.vendors.protocol.Problems;
import io.hamiobserve.vendors.protocol.RegisterFormat;
import io.hamiobserve.vendors.protocol.SynthesisedCards;

import java.util.List;
import java.util.Set;

/**
 * Kunlunxin, two backends. Whole XPUs ({@code kunlun}): no register annotation; one card per unit
 * of the node's {@code kunlunxin.com/xpu} capacity, named {@code <node>-kunlun-<i>}, the upper
 * half of the indexes on NUMA node 1, allocated whole with HAMi's fixed 98304 MiB and 100
 * percent, and written only to {@code hami.io/kunlun-allocated}. vXPUs ({@code XPU}): HAMi's JSON
 * in {@code hami.io/node-register-xpu}, MiB and percent.
 */
public final class KunlunxinProvider extends HamiDeviceProvider {
    static final Set<String> RESOURCES = Set.of("kunlunxin.com/xpu", "kunlunxin.com/vxpu", "kunlunxin.com/vxpu-memory");

    static final String XPU_RESOURCE = "kunlunxin.com/xpu";
    /** What HAMi registers as every whole XPU's memory. */
    static final long WHOLE_CARD_MIB = 98304;

    public KunlunxinProvider() {
        super("kunlunxin", List.of(
                Backend.named("kunlun")
                        .synthesisedFrom(XPU_RESOURCE, KunlunxinProvider::wholeCards, Set.of())
                        .units(new DeviceUnits(MemoryUnit.FIXED_MIB, CoreUnit.PERCENT))
                        .allocatedBy("hami.io/kunlun-allocated")
                        .build(),
                Backend.named("XPU")
                        .registeredBy("hami.io/node-register-xpu", RegisterFormat.DEVICE_INFO_JSON, ModeField.IGNORED)
                        .allocatedBy("hami.io/xpu-devices-allocated")
                        .build()));
    }

    private static List<RegisteredCard> wholeCards(NodeView node, long xpus, Problems problems) {
        int count = SynthesisedCards.count(xpus, problems);
        return SynthesisedCards.alike(node, "-kunlun-", count,
                new SynthesisedCards.Shape(100, WHOLE_CARD_MIB, 100, "kunlun"), index -> index >= xpus / 2 ? 1 : 0);
    }

    /** The resource names HAMi's default device configuration gives this vendor (count, memory, cores). */
    @Override
    public Set<String> podResources() {
        return RESOURCES;
    }
}
