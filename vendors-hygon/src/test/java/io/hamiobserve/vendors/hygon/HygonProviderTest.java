package io.hamiobserve.vendors.hygon;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.DeviceKeys;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.PodAllocation;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.hamiobserve.vendors.protocol.testing.Decodings.allocation;
import static io.hamiobserve.vendors.protocol.testing.Decodings.annotated;
import static io.hamiobserve.vendors.protocol.testing.Decodings.cards;
import static io.hamiobserve.vendors.protocol.testing.Decodings.reasons;
import static io.hamiobserve.vendors.protocol.testing.Decodings.shares;
import static org.junit.jupiter.api.Assertions.assertEquals;

class HygonProviderTest {
    private static final String REGISTER = "hami.io/node-dcu-register";
    private final HygonProvider provider = new HygonProvider();

    @Test
    void declaresWhatItReads() {
        assertEquals(new DeviceKeys(Set.of(REGISTER), Set.of(), Set.of(), Set.of("hami.io/dcu-devices-allocated")),
                provider.keys());
    }

    @Test
    void hamisRegisterLiteralOfNineFieldsDecodesWhateverItsModeSays() {
        NodeDevices devices = annotated(provider, "node1", Map.of(REGISTER, "test-0,1,1024,100,DCU,0,true,0,test:"));
        assertEquals(List.of(), devices.problems());
        assertEquals(List.of(new VendorCard(new RegisteredCard("test-0", 0, 1, 1024, 100, "DCU", 0,
                CardMode.HAMI_CORE, true), "DCU", DeviceUnits.MIB_AND_PERCENT)), devices.cards());
    }

    @Test
    void thePluginsSevenFieldsGiveEveryCardIndexZero() {
        // dcu-vgpu-device-plugin: count 4, devmem in MiB, devcore 100, the driver's type name, 7 fields.
        NodeDevices devices = annotated(provider, "node1", Map.of(REGISTER,
                "DCU-ab12,4,65520,100,K100_AI,0,true:DCU-cd34,4,65520,100,K100_AI,0,true:"));
        assertEquals(List.of(0, 0), cards(devices).stream().map(RegisteredCard::index).toList());
        assertEquals(List.of("K100_AI", "K100_AI"), cards(devices).stream().map(RegisteredCard::type).toList());
        assertEquals(List.of(4, 4), cards(devices).stream().map(RegisteredCard::maxShares).toList());
    }

    @Test
    void aBadRecordCostsOnlyItself() {
        NodeDevices devices = annotated(provider, "node1", Map.of(REGISTER,
                "DCU-a,4,lots,100,K100,0,true:DCU-b,4,1024,100,K100,0,true:"));
        assertEquals(List.of("DCU-b"), cards(devices).stream().map(RegisteredCard::uuid).toList());
        assertEquals(List.of("not_a_number"), reasons(devices.problems()));
    }

    @Test
    void hamisAllocationLiteralNamesTheRequestType() {
        assertEquals(new PodAllocation("hami.io/dcu-devices-allocated", "DCU",
                        List.of(shares(new DeviceShare("test1", "DCU", 2048, 1)))),
                allocation(provider, "hami.io/dcu-devices-allocated", "test1,DCU,2048,1:;"));
    }
}
