package io.hamiobserve.vendors.protocol.testing;

import io.hamiobserve.ports.spi.DeviceProvider;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A vendor module's fixed-seed fuzz run for the suite (a few seconds; long runs are
 * {@code bin/fuzz}): a test class extends this with its provider and the reasons its inputs must
 * reach, so a fuzzer that stopped mutating, or a decoder that stopped checking, fails here. It
 * also checks the provider is found on the class path by its service file.
 */
public abstract class ProviderFuzzCheck {
    private final DeviceProvider provider;
    private final long count;
    private final List<String> reached;

    protected ProviderFuzzCheck(DeviceProvider provider, long count, String reached) {
        this.provider = provider;
        this.count = count;
        this.reached = List.of(reached.split(" "));
    }

    @Test
    void nothingEscapesButAProblemWithAReason() {
        Map<String, Long> outcomes = ProviderFuzz.run(provider, ProviderFuzz.DEFAULT_SEED, count).counts();
        for (String reason : reached) {
            assertTrue(outcomes.containsKey(reason), provider.name() + " reaches " + reason + ": " + outcomes);
        }
        assertTrue(outcomes.getOrDefault("ok", 0L) > count / 50, provider.name() + " also decodes inputs whole: "
                + outcomes);
    }

    @Test
    void theServiceFileNamesTheProvider() {
        List<String> found = ServiceLoader.load(DeviceProvider.class).stream()
                .map(ServiceLoader.Provider::type).filter(provider.getClass()::equals).map(Class::getName).toList();
        assertEquals(List.of(provider.getClass().getName()), found);
    }
}
