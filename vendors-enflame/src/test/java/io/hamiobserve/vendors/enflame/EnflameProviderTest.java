package io.hamiobserve.vendors.enflame;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.NodeDevices;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.hamiobserve.vendors.protocol.testing.Decodings.allocation;
import static io.hamiobserve.vendors.protocol.testing.Decodings.annotated;
import static io.hamiobserve.vendors.protocol.testing.Decodings.cards;
import static io.hamiobserve.vendors.protocol.testing.Decodings.reasons;
import static io.hamiobserve.vendors.protocol.testing.Decodings.shares;
import static io.hamiobserve.vendors.protocol.testing.Decodings.withCapacity;
import static org.junit.jupiter.api.Assertions.assertEquals;

class EnflameProviderTest {
    private static final String DRS = "{\"devices\":[{\"index\":\"0\",\"minor\":\"0\",\"capacity\":6}],"
            + "\"profiles\":{\"1g.6gb\":\"0\",\"3g.20gb\":\"1\",\"6g.40gb\":\"2\"}}";
    private final EnflameProvider provider = new EnflameProvider();

    @Test
    void wholeGcusHaveAMemoryFigureOfOneHundredPercent() {
        NodeDevices devices = withCapacity(provider, "testnode", Map.of(EnflameProvider.GCU_RESOURCE, "1"));
        assertEquals(List.of(new VendorCard(new RegisteredCard("testnode-GCU-0", 0, 1, 100, 100, "GCU", 0,
                CardMode.HAMI_CORE, true), "GCU", new DeviceUnits(MemoryUnit.PERCENT_OF_CARD, CoreUnit.PERCENT))),
                devices.cards());
        assertEquals(List.of(shares(new DeviceShare("testnode-GCU-0", "GCU", 0, 0))),
                allocation(provider, "hami.io/enflame-gcu-devices-allocated", "testnode-GCU-0,GCU,0,0:;").containers());
    }

    @Test
    void hamisDrsLiteralGivesTheLargestProfilesMemory() {
        NodeDevices devices = annotated(provider, "node-a", Map.of(DrsCapacity.ANNOTATION, DRS));
        assertEquals(List.of(), devices.problems());
        assertEquals(List.of(new VendorCard(new RegisteredCard("node-a-enflame-drs-0", 0, 6, 40960, 100, "Enflame", 0,
                CardMode.HAMI_CORE, true), "Enflame", DeviceUnits.MIB_AND_PERCENT)), devices.cards());
        // The test pod takes the 3g.20gb profile: 20480 MiB and ceil(3 * 100 / 6) = 50 percent.
        assertEquals(List.of(shares(new DeviceShare("node-a-enflame-drs-0", "Enflame", 20480, 50))),
                allocation(provider, "hami.io/enflame-vgpu-devices-allocated", "node-a-enflame-drs-0,Enflame,20480,50:;")
                        .containers());
        assertEquals(Set.of("hami.io/enflame-gcu-devices-allocated", "hami.io/enflame-vgpu-devices-allocated"),
                provider.keys().podAnnotations());
    }

    @Test
    void drsDevicesReadAsHamiReadsThem() {
        NodeDevices devices = annotated(provider, "n", Map.of(DrsCapacity.ANNOTATION,
                "{\"devices\":[{\"index\":\"x\",\"capacity\":\"4\"},{\"index\":\"3\",\"capacity\":2},"
                        + "{\"index\":\"5\",\"capacity\":0},{\"index\":\"6\",\"capacity\":1.5}],"
                        + "\"profiles\":{\"2G.\":\"0\",\"bad\":\"1\"}}"));
        // An index that is not a number is the device's position; without a GB figure, memory is the slices.
        assertEquals(List.of(new RegisteredCard("n-enflame-drs-0", 0, 4, 2048, 100, "Enflame", 0, CardMode.HAMI_CORE,
                true), new RegisteredCard("n-enflame-drs-3", 3, 2, 2048, 100, "Enflame", 0, CardMode.HAMI_CORE, true)),
                cards(devices));
        assertEquals(List.of("zero_capacity", "not_a_number"), reasons(devices.problems()));
    }

    @Test
    void withoutAProfileNoCardHasASize() {
        NodeDevices devices = annotated(provider, "n", Map.of(DrsCapacity.ANNOTATION,
                "{\"devices\":[{\"index\":\"0\",\"capacity\":6}],\"profiles\":{}}"));
        assertEquals(List.of(), devices.cards());
        assertEquals(List.of("no_profiles"), reasons(devices.problems()));
    }
}
