package io.hamiobserve.vendors.metax;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.NodeView;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.hamiobserve.vendors.protocol.testing.Decodings.allocation;
import static io.hamiobserve.vendors.protocol.testing.Decodings.annotated;
import static io.hamiobserve.vendors.protocol.testing.Decodings.cards;
import static io.hamiobserve.vendors.protocol.testing.Decodings.reasons;
import static io.hamiobserve.vendors.protocol.testing.Decodings.shares;
import static io.hamiobserve.vendors.protocol.testing.Decodings.withCapacity;
import static org.junit.jupiter.api.Assertions.assertEquals;

class MetaxProviderTest {
    private static final String SGPU = "[{\"uuid\": \"GPU-123\", \"model\": \"sgpu\", \"totalDevCount\": 16, "
            + "\"totalCompute\": 100, \"bdf\": \"0000:44:00.0\", \"totalVRam\" : 32768, \"numa\": 1, "
            + "\"healthy\": true, \"qosPolicy\": \"fixed-share\"}]";
    private final MetaxProvider provider = new MetaxProvider();

    @Test
    void wholeCardsComeFromTheGpuResourceWithHamisFixedMemory() {
        NodeDevices devices = withCapacity(provider, "node1", Map.of(MetaxProvider.GPU_RESOURCE, "2"));
        assertEquals(List.of(
                new VendorCard(new RegisteredCard("node1-metax-0", 0, 1, 65536, 100, "Metax-GPU", 0,
                        CardMode.HAMI_CORE, true), "Metax-GPU", new DeviceUnits(MemoryUnit.FIXED_MIB, CoreUnit.PERCENT)),
                new VendorCard(new RegisteredCard("node1-metax-1", 1, 1, 65536, 100, "Metax-GPU", 0,
                        CardMode.HAMI_CORE, true), "Metax-GPU", new DeviceUnits(MemoryUnit.FIXED_MIB, CoreUnit.PERCENT))),
                devices.cards());
        assertEquals(List.of(shares(new DeviceShare("node1-metax-0", "Metax-GPU", 65536, 100))),
                allocation(provider, "hami.io/metax-gpu-devices-allocated", "node1-metax-0,Metax-GPU,65536,100:;")
                        .containers());
    }

    @Test
    void hamisSgpuLiteralIsACardOfTypeMetaxSgpuWhateverItsModel() {
        NodeDevices devices = annotated(provider, "node1", Map.of(SgpuDevices.ANNOTATION, SGPU));
        assertEquals(List.of(), devices.problems());
        assertEquals(List.of(new VendorCard(new RegisteredCard("GPU-123", 0, 16, 32768, 100, "Metax-SGPU", 1,
                CardMode.HAMI_CORE, true), "Metax-SGPU", DeviceUnits.MIB_AND_PERCENT)), devices.cards());
        assertEquals(List.of(shares(new DeviceShare("GPU-123", "Metax-SGPU", 8192, 50))),
                allocation(provider, "hami.io/metax-sgpu-devices-allocated", "GPU-123,Metax-SGPU,8192,50:;")
                        .containers());
    }

    @Test
    void aNodeWithBothHasBothAndEachSgpuIsIndexedByPosition() {
        NodeDevices devices = provider.decodeNode(new NodeView("node1", Map.of(SgpuDevices.ANNOTATION,
                "[{\"uuid\":\"GPU-a\",\"totalVRam\":1},{\"uuid\":\"GPU-b\",\"totalVRam\":2}]"), Map.of(),
                Map.of(MetaxProvider.GPU_RESOURCE, "1"), Map.of()));
        assertEquals(List.of("node1-metax-0", "GPU-a", "GPU-b"), cards(devices).stream().map(RegisteredCard::uuid)
                .toList());
        assertEquals(List.of(0, 0, 1), cards(devices).stream().map(RegisteredCard::index).toList());
    }

    @Test
    void badSgpuEntriesAreSkippedWithAReason() {
        NodeDevices devices = annotated(provider, "node1", Map.of(SgpuDevices.ANNOTATION,
                "[{\"uuid\":\"GPU-a\",\"totalVRam\":-1},{\"model\":\"x\"},{\"uuid\":\"GPU-b\",\"healthy\":1},3,"
                        + "{\"uuid\":\"GPU-c\"}]"));
        assertEquals(List.of("GPU-c"), cards(devices).stream().map(RegisteredCard::uuid).toList());
        assertEquals(List.of("negative_number", "missing_uuid", "bad_boolean", "bad_json"), reasons(devices.problems()));
        assertEquals(List.of("bad_json"), reasons(annotated(provider, "n", Map.of(SgpuDevices.ANNOTATION, "{}"))
                .problems()));
    }
}
