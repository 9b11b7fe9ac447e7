package io.hamiobserve.vendors.biren;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.RegisteredCard;
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

class BirenProviderTest {
    private final BirenProvider provider = new BirenProvider();

    @Test
    void thePluginsRegistrationDecodes() {
        // biren-device-plugin's register.go: type Biren, count 1, devmem 65024.
        NodeDevices devices = annotated(provider, "node1", Map.of("hami.io/node-biren-register",
                "[{\"id\":\"BR-0\",\"index\":0,\"count\":1,\"devmem\":65024,\"type\":\"Biren\",\"health\":true}]"));
        assertEquals(new RegisteredCard("BR-0", 0, 1, 65024, 100, "Biren", 0, CardMode.HAMI_CORE, true),
                cards(devices).getFirst());
    }

    @Test
    void hamisRegisterLiteralGetsCoresOfOneHundred() {
        // No devcore in the literal; HAMi sets 100 whatever the plugin wrote, and ignores devicepairscore.
        NodeDevices devices = annotated(provider, "node1", Map.of("hami.io/node-biren-register",
                "[{\"id\":\"7-0\",\"count\":1,\"devmem\":32768,\"type\":\"Biren\",\"health\":true,"
                        + "\"devicepairscore\":{}},{\"id\":\"7-1\",\"count\":1,\"devmem\":32768,\"devcore\":7}]"));
        assertEquals(List.of(), devices.problems());
        assertEquals(new RegisteredCard("7-0", 0, 1, 32768, 100, "Biren", 0, CardMode.HAMI_CORE, true),
                cards(devices).getFirst());
        assertEquals(100, cards(devices).get(1).cores());
        assertEquals("Biren", devices.cards().getFirst().backend());
    }

    @Test
    void theAllocatedKeyIsSpeltWithACapitalB() {
        assertEquals(new PodAllocation("hami.io/Biren-devices-allocated", "Biren",
                        List.of(shares(new DeviceShare("test1", "Biren", 2048, 1)))),
                allocation(provider, "hami.io/Biren-devices-allocated", "test1,Biren,2048,1:;"));
        assertEquals(List.of(), provider.decodePod(Map.of("hami.io/biren-devices-allocated", "test1,Biren,2048,1:;"))
                .allocations());
    }
}
