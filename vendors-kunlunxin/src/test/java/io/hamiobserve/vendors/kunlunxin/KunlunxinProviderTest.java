package io.hamiobserve.vendors.kunlunxin;

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

import static io.hamiobserve.vendors.protocol.testing.Decodings.allocation;
import static io.hamiobserve.vendors.protocol.testing.Decodings.annotated;
import static io.hamiobserve.vendors.protocol.testing.Decodings.cards;
import static io.hamiobserve.vendors.protocol.testing.Decodings.shares;
import static io.hamiobserve.vendors.protocol.testing.Decodings.withCapacity;
import static org.junit.jupiter.api.Assertions.assertEquals;

class KunlunxinProviderTest {
    private final KunlunxinProvider provider = new KunlunxinProvider();

    @Test
    void wholeXpusHaveHamisFixedMemoryAndTheUpperHalfOnNumaOne() {
        NodeDevices devices = withCapacity(provider, "node1", Map.of(KunlunxinProvider.XPU_RESOURCE, "8"));
        assertEquals(8, devices.cards().size());
        assertEquals(new VendorCard(new RegisteredCard("node1-kunlun-0", 0, 100, 98304, 100, "kunlun", 0,
                CardMode.HAMI_CORE, true), "kunlun", new DeviceUnits(MemoryUnit.FIXED_MIB, CoreUnit.PERCENT)),
                devices.cards().getFirst());
        assertEquals(List.of(0, 0, 0, 0, 1, 1, 1, 1), cards(devices).stream().map(RegisteredCard::numa).toList());
        // Written only to the allocated key, each card whole.
        assertEquals(List.of(shares(new DeviceShare("node1-kunlun-0", "kunlun", 98304, 100))),
                allocation(provider, "hami.io/kunlun-allocated", "node1-kunlun-0,kunlun,98304,100:;").containers());
    }

    @Test
    void hamisVxpuLiteralDecodes() {
        NodeDevices devices = annotated(provider, "node1", Map.of("hami.io/node-register-xpu",
                "[{\"id\":\"xpu-0\",\"index\":0,\"count\":1,\"devmem\":98304,\"devcore\":100,\"type\":\"XPU\","
                        + "\"health\":true}]"));
        assertEquals(List.of(new VendorCard(new RegisteredCard("xpu-0", 0, 1, 98304, 100, "XPU", 0,
                CardMode.HAMI_CORE, true), "XPU", DeviceUnits.MIB_AND_PERCENT)), devices.cards());
        // A quarter card: 24576 MiB and 24576 * 100 / 98304 = 25 percent.
        assertEquals(List.of(shares(new DeviceShare("xpu-0", "XPU", 24576, 25))),
                allocation(provider, "hami.io/xpu-devices-allocated", "xpu-0,XPU,24576,25:;").containers());
    }
}
