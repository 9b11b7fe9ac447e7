package io.hamiobserve.vendors.all;

import io.hamiobserve.ports.spi.DeviceProvider;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every vendor module names the resources a pod requests to be scheduled onto its cards, its own only. */
class PodResourcesTest {
    /** An extended resource name: a DNS subdomain prefix, a slash, a name. */
    private static final Pattern RESOURCE = Pattern.compile("[a-z0-9.-]+\\.[a-z]+/[A-Za-z0-9][A-Za-z0-9._-]*");

    @Test
    void everyProviderDeclaresResourcesNoOtherProviderDeclares() {
        List<DeviceProvider> providers = ServiceLoader.load(DeviceProvider.class).stream()
                .map(ServiceLoader.Provider::get).toList();
        assertEquals(HamiVendors.NAMES.size(), providers.size());
        Map<String, String> owner = new HashMap<>();
        for (DeviceProvider provider : providers) {
            assertFalse(provider.podResources().isEmpty(), provider.name());
            for (String resource : provider.podResources()) {
                assertTrue(RESOURCE.matcher(resource).matches(), provider.name() + ": " + resource);
                assertNull(owner.put(resource, provider.name()), resource + " declared twice");
            }
        }
        // HAMi's chart defaults, one of each shape.
        assertEquals("nvidia", owner.get("nvidia.com/gpumem"));
        assertEquals("nvidia", owner.get("nvidia.com/gpu"));
        assertEquals("ascend", owner.get("huawei.com/Ascend910B3-memory"));
        assertEquals("iluvatar", owner.get("iluvatar.ai/BI-V150.vCore"));
        assertEquals("enflame", owner.get("enflame.com/gcu"));
        assertNull(owner.get("nvidia.com/priority"), "a priority is not a request for a card");
    }
}
