package io.hamiobserve.vendors.vastai;

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

class VastaiProviderTest {
    private final VastaiProvider provider = new VastaiProvider();

    @Test
    void hamisRegisterLiteralGetsCoresOfOneHundred() {
        // No devcore in the literal; HAMi sets 100 whatever the plugin wrote, and ignores devicepairscore.
        NodeDevices devices = annotated(provider, "node1", Map.of("hami.io/node-va-register",
                "[{\"id\":\"7-0\",\"count\":1,\"devmem\":32768,\"type\":\"Vastai\",\"health\":true,"
                        + "\"devicepairscore\":{}},{\"id\":\"7-1\",\"count\":1,\"devmem\":32768,\"devcore\":7}]"));
        assertEquals(List.of(), devices.problems());
        assertEquals(new RegisteredCard("7-0", 0, 1, 32768, 100, "Vastai", 0, CardMode.HAMI_CORE, true),
                cards(devices).getFirst());
        assertEquals(100, cards(devices).get(1).cores());
        assertEquals("Vastai", devices.cards().getFirst().backend());
    }

    @Test
    void theAllocatedKeyIsSpeltWithACapitalV() {
        assertEquals(new PodAllocation("hami.io/Vastai-devices-allocated", "Vastai",
                        List.of(shares(new DeviceShare("test1", "Vastai", 2048, 1)))),
                allocation(provider, "hami.io/Vastai-devices-allocated", "test1,Vastai,2048,1:;"));
        assertEquals(List.of(), provider.decodePod(Map.of("hami.io/vastai-devices-allocated", "test1,Vastai,2048,1:;"))
                .allocations());
    }
}
