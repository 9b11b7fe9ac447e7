package io.hamiobserve.vendors.amd;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.HamiCoreFigures;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.ports.spi.PodAllocation;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

import static io.hamiobserve.vendors.protocol.testing.Decodings.allocation;
import static io.hamiobserve.vendors.protocol.testing.Decodings.reasons;
import static io.hamiobserve.vendors.protocol.testing.Decodings.shares;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class AmdProviderTest {
    private static final String MI300X = "[{\"id\":\"GPU-mi300x-0\",\"index\":0,\"count\":4,\"devmem\":196608,"
            + "\"devcore\":304,\"type\":\"AMD Instinct MI300X VF\",\"numa\":0,\"mode\":\"hami-core\",\"health\":true}]";
    private final AmdProvider provider = new AmdProvider();

    @Test
    void hamisRegisterLiteralDecodesWithComputeUnits() {
        NodeDevices devices = node("[{\"id\":\"GPU-0\",\"index\":0,\"count\":1,\"devmem\":8192,\"devcore\":100,"
                + "\"type\":\"amd\",\"numa\":0,\"health\":true}]", "1");
        assertEquals(List.of(), devices.problems());
        assertEquals(List.of(new VendorCard(new RegisteredCard("GPU-0", 0, 1, 8192, 100, "amd", 0,
                CardMode.HAMI_CORE, true), "AMD", new DeviceUnits(MemoryUnit.MIB, CoreUnit.COMPUTE_UNITS))),
                devices.cards());
    }

    @Test
    void computeUnitsOfTheDesignDocsCardAndAllocationReadAsHamiReportsThem() {
        VendorCard card = node(MI300X, "8").cards().getFirst();
        assertEquals(304, card.card().cores());
        // The allocation names the product type and grants compute units: a quarter of the card.
        PodAllocation pod = allocation(provider, "hami.io/amd-devices-allocated",
                "GPU-mi300x-0,AMD Instinct MI300X VF,49152,76:;");
        DeviceShare share = pod.containers().getFirst().getFirst();
        assertEquals(76, share.cores());
        assertEquals(100.0, HamiCoreFigures.limit(card.card().type(), card.card().cores()));
        assertEquals(25.0, HamiCoreFigures.allocated(card.card().type(), card.card().cores(), share.cores()));
        assertEquals(OptionalDouble.of(25.0), card.units().cores().percentOfCard(share.cores(), card.card().cores()));
        assertEquals(List.of(shares(new DeviceShare("GPU-mi300x-0", "AMD Instinct MI300X VF", 49152, 76))),
                pod.containers());
    }

    @Test
    void withoutTheGpuResourceHamiDropsTheCardsAndSaysWhy() {
        for (String capacity : new String[] {null, "0"}) {
            NodeDevices devices = node(MI300X, capacity);
            assertFalse(devices.present());
            assertEquals(List.of(), devices.cards());
            assertEquals(List.of("no_capacity"), reasons(devices.problems()));
            assertEquals(AmdProvider.GPU_RESOURCE, devices.problems().getFirst().key());
        }
        assertEquals(NodeDevices.absent(), provider.decodeNode(NodeView.withCapacity("n", Map.of("amd.com/gpu", "8"))));
    }

    private NodeDevices node(String register, String gpus) {
        return provider.decodeNode(new NodeView("node1", Map.of(AmdProvider.REGISTER, register), Map.of(),
                gpus == null ? Map.of() : Map.of(AmdProvider.GPU_RESOURCE, gpus), Map.of()));
    }
}
