package io.hamiobserve.vendors.iluvatar;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.PodAllocation;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.hamiobserve.vendors.protocol.testing.Decodings.allocation;
import static io.hamiobserve.vendors.protocol.testing.Decodings.annotated;
import static io.hamiobserve.vendors.protocol.testing.Decodings.cards;
import static io.hamiobserve.vendors.protocol.testing.Decodings.shares;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IluvatarProviderTest {
    private final IluvatarProvider provider = new IluvatarProvider();

    @Test
    void hamisRegisterLiteralOfSevenFieldsHasIndexZero() {
        NodeDevices devices = annotated(provider, "node1", Map.of("hami.io/node-MR-V100-register",
                "GPU-bad51c5a-ed4c-591d-91bf-c04a12e19eae,10,8192,100,MR-V100,0,true:"));
        assertEquals(List.of(), devices.problems());
        assertEquals(List.of(new RegisteredCard("GPU-bad51c5a-ed4c-591d-91bf-c04a12e19eae", 0, 10, 8192, 100,
                "MR-V100", 0, CardMode.HAMI_CORE, true)), cards(devices));
        assertEquals("MR-V100", devices.cards().getFirst().backend());
    }

    @Test
    void eachChipIsItsOwnBackend() {
        NodeDevices devices = annotated(provider, "node1", Map.of(
                "hami.io/node-BI-V150-register", "GPU-1,16,32768,100,BI-V150,0,true:",
                "hami.io/node-MR-V50-register", "GPU-2,8,16384,100,MR-V50,1,true,3,hami-core:"));
        assertEquals(List.of("MR-V50", "BI-V150"), devices.cards().stream().map(VendorCard::backend).toList());
        assertEquals(List.of(3, 0), cards(devices).stream().map(RegisteredCard::index).toList());
        for (String chip : IluvatarProvider.COMMON_WORDS) {
            assertTrue(provider.keys().podAnnotations().contains("hami.io/" + chip + "-devices-allocated"));
        }
    }

    @Test
    void hamisAllocationLiteralDecodesToItsChip() {
        assertEquals(new PodAllocation("hami.io/MR-V100-devices-allocated", "MR-V100",
                        List.of(shares(new DeviceShare("k8s-gpu-iluvatar-0", "MR-V100", 0, 0)))),
                allocation(provider, "hami.io/MR-V100-devices-allocated", "k8s-gpu-iluvatar-0,MR-V100,0,0:;"));
    }
}
