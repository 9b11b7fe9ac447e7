package io.hamiobserve.domain;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeviceUnitsTest {
    @ParameterizedTest(name = "{0} {1} of {2} = {3}%")
    @CsvSource({
            "PERCENT, 30, 100, 30", "PERCENT, 30, 200, 30",
            // AMD: 76 of the MI300X's 304 compute units.
            "COMPUTE_UNITS, 76, 304, 25",
            // Moore Threads: 4 of 16 slices.
            "CORE_SLICES, 4, 16, 25",
            // Neuron: cores 0 and 1 (mask 3) of a two-core device (mask 3); core 1 alone (mask 2).
            "CORE_BITMASK, 3, 3, 100", "CORE_BITMASK, 2, 3, 50", "CORE_BITMASK, 1, 255, 12.5",
            "AI_CORES, 8, 32, 25",
    })
    void rawCoreFiguresReadAsPercentOfTheCard(CoreUnit unit, long raw, long total, double percent) {
        assertEquals(OptionalDouble.of(percent), unit.percentOfCard(raw, total));
    }

    @Test
    void aCardWithoutAScaleGivesNoPercent() {
        assertEquals(OptionalDouble.empty(), CoreUnit.COMPUTE_UNITS.percentOfCard(5, 0));
        assertEquals(OptionalDouble.empty(), CoreUnit.CORE_BITMASK.percentOfCard(1, 0));
    }

    @Test
    void onlyMibIsMemory() {
        assertEquals(OptionalLong.of(2L << 20), MemoryUnit.MIB.bytes(2));
        for (MemoryUnit unit : new MemoryUnit[] {MemoryUnit.FIXED_MIB, MemoryUnit.PERCENT_OF_CARD, MemoryUnit.NONE}) {
            assertEquals(OptionalLong.empty(), unit.bytes(100), unit.name());
        }
    }

    @Test
    void labelsAreStableAndLabelSafe() {
        assertEquals("[percent, compute_units, core_slices, core_bitmask, ai_cores]",
                Arrays.toString(Arrays.stream(CoreUnit.values()).map(CoreUnit::label).toArray()));
        assertEquals("[mib, fixed_mib, percent_of_card, none]",
                Arrays.toString(Arrays.stream(MemoryUnit.values()).map(MemoryUnit::label).toArray()));
        for (CoreUnit unit : CoreUnit.values()) {
            assertTrue(!unit.meaning().isBlank());
        }
    }

    @ParameterizedTest(name = "{0}: {2} of {1} -> limit {3}, allocated {4}")
    @CsvSource({
            // HAMi's rule: type starting with AMD in any case, total above 0.
            "AMD Instinct MI300X VF, 304, 76, 100, 25",
            "amd, 100, 30, 100, 30",
            // Double precision as in Go: 11/20*100 is 55.00000000000001, so the ceiling is 56.
            "AMD, 20, 11, 100, 56",
            "AMD, 50, 7, 100, 15",
            // Beyond the card's units (several pods): above 100, as HAMi reports it.
            "AMD, 10, 25, 100, 250",
            // Not normalised: another type, or no units registered.
            "Instinct MI300X, 304, 76, 304, 76",
            "NVIDIA A100, 100, 30, 100, 30",
            "AMD, 0, 5, 0, 5",
            "AM, 100, 5, 100, 5",
    })
    void hamiNormalisesAmdComputeUnitsToPercent(String type, long total, long allocated, double limit, double share) {
        assertEquals(limit, HamiCoreFigures.limit(type, total));
        assertEquals(share, HamiCoreFigures.allocated(type, total, allocated));
    }
}
