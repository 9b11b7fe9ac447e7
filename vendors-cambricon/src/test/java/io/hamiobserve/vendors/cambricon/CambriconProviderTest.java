package io.hamiobserve.vendors.cambricon;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.PodAllocation;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.hamiobserve.vendors.protocol.testing.Decodings.allocation;
import static io.hamiobserve.vendors.protocol.testing.Decodings.cards;
import static io.hamiobserve.vendors.protocol.testing.Decodings.reasons;
import static io.hamiobserve.vendors.protocol.testing.Decodings.shares;
import static io.hamiobserve.vendors.protocol.testing.Decodings.withCapacity;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CambriconProviderTest {
    private final CambriconProvider provider = new CambriconProvider();

    @Test
    void hamisCapacityLiteralMakesOneCard() {
        NodeDevices devices = withCapacity(provider, "test", Map.of(CambriconProvider.VCORE, "1",
                CambriconProvider.VMEMORY, "1"));
        assertEquals(List.of(), devices.problems());
        assertEquals(List.of(new VendorCard(new RegisteredCard("test-cambricon-mlu-0", 0, 100, 25600, 100, "MLU", 0,
                CardMode.HAMI_CORE, true), "MLU", DeviceUnits.MIB_AND_PERCENT)), devices.cards());
    }

    @Test
    void oneCardPerHundredVcoresWithTheMemorySharedOut() {
        // Four cards of 24 GiB: 384 units of 256 MiB over 400 vcores; the API server writes 1000 as 1k.
        NodeDevices four = withCapacity(provider, "mlu-node", Map.of(CambriconProvider.VCORE, "400",
                CambriconProvider.VMEMORY, "384"));
        assertEquals(List.of("mlu-node-cambricon-mlu-0", "mlu-node-cambricon-mlu-1", "mlu-node-cambricon-mlu-2",
                "mlu-node-cambricon-mlu-3"), cards(four).stream().map(RegisteredCard::uuid).toList());
        assertEquals(24576, cards(four).getFirst().memoryMib());
        assertEquals(10, cards(withCapacity(provider, "n", Map.of(CambriconProvider.VCORE, "1k"))).size());
        // A partial hundred still makes a card, as HAMi loops while i*100 < vcore.
        assertEquals(2, cards(withCapacity(provider, "n", Map.of(CambriconProvider.VCORE, "101"))).size());
    }

    @Test
    void noVcoresNoCardsAndABadQuantityIsAProblem() {
        assertEquals(NodeDevices.absent(), withCapacity(provider, "n", Map.of()));
        assertEquals(NodeDevices.absent(), withCapacity(provider, "n", Map.of(CambriconProvider.VCORE, "0")));
        NodeDevices bad = withCapacity(provider, "n", Map.of(CambriconProvider.VCORE, "1500m"));
        assertTrue(bad.present());
        assertEquals(List.of("not_a_number"), reasons(bad.problems()));
        NodeDevices huge = withCapacity(provider, "n", Map.of(CambriconProvider.VCORE, "1",
                CambriconProvider.VMEMORY, "9E"));
        assertEquals(List.of("number_overflow"), reasons(huge.problems()));
        assertEquals(CambriconProvider.VMEMORY, huge.problems().getFirst().key());
    }

    @Test
    void hamisAllocationLiteralKeepsTheEmptyFirstContainer() {
        assertEquals(new PodAllocation("hami.io/cambricon-mlu-devices-allocated", "MLU",
                        List.of(shares(), shares(new DeviceShare("device-0", "MLU", 256000, 1)))),
                allocation(provider, "hami.io/cambricon-mlu-devices-allocated", ";device-0,MLU,256000,1:;"));
    }
}
