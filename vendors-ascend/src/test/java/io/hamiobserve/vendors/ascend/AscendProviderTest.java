package io.hamiobserve.vendors.ascend;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
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

class AscendProviderTest {
    private static final DeviceUnits AI_CORES = new DeviceUnits(MemoryUnit.MIB, CoreUnit.AI_CORES);
    private final AscendProvider provider = new AscendProvider();

    @Test
    void hamisRegisterLiteralWithCapitalisedKeysDecodes() {
        // pkg/device/ascend/device_test.go: capitalised keys, which Go's decoder matches in any case.
        NodeDevices devices = annotated(provider, "node1", Map.of("hami.io/node-register-Ascend910A",
                "[{\"ID\":\"GPU-0\",\"Count\":4,\"Devmem\":8738,\"Devcore\":8,\"Type\":\"huawei.com/Ascend910\","
                        + "\"Numa\":0,\"Health\":true}]"));
        assertEquals(List.of(), devices.problems());
        assertEquals(List.of(new VendorCard(new RegisteredCard("GPU-0", 0, 4, 8738, 8, "huawei.com/Ascend910", 0,
                CardMode.HAMI_CORE, true), "Ascend910A", AI_CORES)), devices.cards());
    }

    @Test
    void thePluginsFormNamesTheCommonWordAndItsCustomInfoIsIgnored() {
        // ascend-device-plugin's register.go: lowercase keys, type = CommonWord, custominfo.NetworkID.
        NodeDevices devices = annotated(provider, "node1", Map.of(
                "hami.io/node-register-Ascend910B3", "[{\"id\":\"NPU-4\",\"index\":4,\"count\":7,\"devmem\":65536,"
                        + "\"devcore\":20,\"type\":\"Ascend910B3\",\"health\":true,\"custominfo\":{\"NetworkID\":1}}]",
                "hami.io/node-register-Ascend310P", "[{\"id\":\"NPU-0\",\"count\":7,\"devmem\":21527,\"devcore\":8,"
                        + "\"type\":\"Ascend310P\",\"health\":true}]"));
        assertEquals(List.of(), devices.problems());
        assertEquals(List.of("Ascend910B3", "Ascend310P"), devices.cards().stream().map(VendorCard::backend).toList());
        assertEquals(List.of(4, 0), cards(devices).stream().map(RegisteredCard::index).toList());
        assertEquals(List.of(20L, 8L), cards(devices).stream().map(RegisteredCard::cores).toList());
    }

    @Test
    void aNodeInHamiCoreModeRegistersPercent() {
        NodeDevices devices = annotated(provider, "node1", Map.of("hami-vnpu-core", "true",
                "hami.io/node-register-Ascend910B4", "[{\"id\":\"NPU-0\",\"count\":7,\"devmem\":32768,\"devcore\":100,"
                        + "\"type\":\"Ascend910B4\",\"health\":true}]"));
        assertEquals(DeviceUnits.MIB_AND_PERCENT, devices.cards().getFirst().units());
        NodeDevices template = annotated(provider, "node1", Map.of("hami-vnpu-core", "false",
                "hami.io/node-register-Ascend910B4", "[{\"id\":\"NPU-0\",\"devcore\":20}]"));
        assertEquals(AI_CORES, template.cards().getFirst().units());
    }

    @Test
    void everyCommonWordOfTheChartHasItsKeys() {
        for (String commonWord : AscendProvider.COMMON_WORDS) {
            assertTrue(provider.keys().nodeAnnotations().contains("hami.io/node-register-" + commonWord));
            assertTrue(provider.keys().podAnnotations().contains("hami.io/" + commonWord + "-devices-allocated"));
        }
        assertEquals(7, provider.keys().podAnnotations().size());
    }

    @Test
    void hamisAllocationLiteralDecodesToItsBackend() {
        // The test pod's allocation; the to-allocate key carries the same string and is not read.
        assertEquals(new PodAllocation("hami.io/Ascend910A-devices-allocated", "Ascend910A",
                        List.of(shares(new DeviceShare("device-0", "Ascend", 8738, 1)))),
                allocation(provider, "hami.io/Ascend910A-devices-allocated", "device-0,Ascend,8738,1:;"));
        assertEquals(List.of(), provider.decodePod(Map.of("hami.io/Ascend910A-devices-to-allocate",
                "device-0,Ascend,8738,1:;")).allocations());
    }
}
