package io.hamiobserve.exposition;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Opt-in, allow- and denylists as kube-state-metrics reads them: whole-name regular expressions. */
class FamilySelectionTest {
    private static final Set<String> OPT_IN = Set.of("hami_observe_pod_owner");

    @Test
    void byDefaultEverythingButTheOptInFamilies() {
        FamilySelection defaults = FamilySelection.defaults(OPT_IN);
        assertTrue(defaults.writes("hami_vgpu_memory_allocated_bytes"));
        assertTrue(defaults.writes("hami_observe_container_info"));
        assertFalse(defaults.writes("hami_observe_pod_owner"));
        assertTrue(FamilySelection.ALL.writes("hami_observe_pod_owner"));
    }

    @Test
    void theOptInListTurnsOnlyWhatItNamesOn() {
        FamilySelection on = FamilySelection.of(OPT_IN, List.of("hami_observe_pod_.*"), List.of(), List.of());
        assertTrue(on.writes("hami_observe_pod_owner"));
        assertTrue(on.writes("hami_gpu_memory_limit_bytes"));
        // A whole-name match: a prefix alone names nothing.
        assertFalse(FamilySelection.of(OPT_IN, List.of("hami_observe_pod"), List.of(), List.of())
                .writes("hami_observe_pod_owner"));
    }

    @Test
    void anAllowlistKeepsOnlyWhatItNamesAndADenylistDropsWhatItNames() {
        FamilySelection allow = FamilySelection.of(OPT_IN, List.of(), List.of("hami_gpu_.*", "hami_observe_pod_owner"),
                List.of());
        assertTrue(allow.writes("hami_gpu_memory_limit_bytes"));
        assertFalse(allow.writes("hami_vgpu_memory_allocated_bytes"));
        assertFalse(allow.writes("hami_observe_pod_owner"), "an allowlist does not opt in");
        FamilySelection deny = FamilySelection.of(OPT_IN, List.of(".*"), List.of(), List.of("hami_observe_vgpu_.*"));
        assertFalse(deny.writes("hami_observe_vgpu_container_memory_allocated_bytes"));
        assertTrue(deny.writes("hami_vgpu_memory_allocated_bytes"));
        assertTrue(deny.writes("hami_observe_pod_owner"));
    }

    @Test
    void bothListsOrAnExpressionThatDoesNotCompileAreRefusedWithTheReason() {
        IllegalArgumentException both = assertThrows(IllegalArgumentException.class,
                () -> FamilySelection.of(OPT_IN, List.of(), List.of("a"), List.of("b")));
        assertTrue(both.getMessage().contains("allowlist and a denylist"), both.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> FamilySelection.of(OPT_IN, List.of(), List.of(), List.of("hami_(")));
        assertEquals(true, bad.getMessage().contains("denylist") && bad.getMessage().contains("hami_("),
                bad.getMessage());
    }
}
