package io.hamiobserve.ports.spi;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProviderContractTest {
    @Test
    void aNodeViewDropsWhatAHandWrittenDumpMayHoldAndNoProviderShouldMeet() {
        Map<String, String> annotations = new HashMap<>();
        annotations.put("a", "1");
        annotations.put("b", null);
        annotations.put(null, "2");
        NodeView node = new NodeView(null, annotations, null, Map.of("r", "1"), null);
        assertEquals("", node.name());
        assertEquals(Map.of("a", "1"), node.annotations());
        assertEquals(Map.of(), node.labels());
        assertThrows(UnsupportedOperationException.class, () -> node.capacity().put("x", "y"));
    }

    @Test
    void declaredKeysTellWhetherANodeOrPodMayHoldTheVendor() {
        DeviceKeys keys = new DeviceKeys(Set.of("reg"), Set.of("label"), Set.of("vendor.com/gpu"), Set.of("alloc"));
        assertTrue(keys.mayRegister(NodeView.annotated("n", Map.of("reg", ""))));
        assertTrue(keys.mayRegister(NodeView.withCapacity("n", Map.of("vendor.com/gpu", "0"))));
        assertTrue(keys.mayRegister(new NodeView("n", Map.of(), Map.of(), Map.of(), Map.of("vendor.com/gpu", "1"))));
        assertFalse(keys.mayRegister(new NodeView("n", Map.of("other", "x"), Map.of("label", "x"), Map.of(), Map.of())));
        assertTrue(keys.mayAllocate(Map.of("alloc", ";", "x", "y")));
        assertFalse(keys.mayAllocate(Map.of("reg", "x")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Bad", "has space", "a-b", "9lives", "much_too_long_a_reason_for_any_label_that_should_be_short_and_stable"})
    void aReasonIsLabelSafeOrTheProviderHasABug(String reason) {
        assertThrows(IllegalArgumentException.class, () -> new Problem("k", reason, "d"));
    }

    @Test
    void resultsOfSeveralBackendsJoinInOrder() {
        VendorCard a = card("GPU-a");
        VendorCard b = card("GPU-b");
        NodeDevices first = new NodeDevices(true, List.of(a), List.of());
        NodeDevices problemOnly = new NodeDevices(false, List.of(), List.of(new Problem("k", "no_capacity", "d")));
        NodeDevices second = new NodeDevices(true, List.of(b), List.of());
        NodeDevices joined = NodeDevices.absent().and(first).and(problemOnly).and(NodeDevices.absent()).and(second);
        assertEquals(new NodeDevices(true, List.of(a, b), problemOnly.problems()), joined);
        assertEquals(problemOnly, NodeDevices.absent().and(problemOnly));
    }

    private static VendorCard card(String uuid) {
        return new VendorCard(new RegisteredCard(uuid, 0, 1, 1, 100, "T", 0, CardMode.HAMI_CORE, true), "B",
                DeviceUnits.MIB_AND_PERCENT);
    }
}
