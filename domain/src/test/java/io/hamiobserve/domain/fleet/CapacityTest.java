package io.hamiobserve.domain.fleet;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.hamiobserve.domain.fleet.Readings.GIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CapacityTest {
    @Test
    void eachCardHoldsAsManyAsItsScarcestResourceAllows() {
        FleetState state = new Readings()
                // 24 GiB free, 30 cores free, 7 slots: 4 GiB × 10 cores → by memory 6, by cores 3, by slots 7 → 3.
                .card("n1", "GPU-0", 0, "A100", "hami-core", 40, 16, 70, 3, 10)
                // 40 GiB free, 100 cores, 1 slot → 1.
                .card("n1", "GPU-1", 1, "A100", "hami-core", 40, 0, 0, 9, 10)
                // 10 GiB free → by memory 2.
                .card("n2", "GPU-2", 0, "A100", "hami-core", 40, 30, 0, 0, 10)
                .state();
        Capacity.ModelCapacity a100 = Capacity.of(state.cards(), new PodShape(4096, 10, 1)).getFirst();
        assertEquals("A100", a100.model());
        assertEquals(3 + 1 + 2, a100.fits());
        assertEquals(3, a100.counted());
        assertEquals(Map.of(Capacity.Limit.CORES, 1, Capacity.Limit.SLOTS, 1, Capacity.Limit.MEMORY, 1),
                a100.limitedBy());
        assertEquals((24 + 40 + 10) * GIB, a100.freeMemory());
        assertEquals(40 * GIB, a100.largestFreeMemory());
        // Six pods of 4 GiB use 24 GiB of the 74 free: the rest is stranded for this shape.
        assertEquals(50 * GIB, a100.strandedMemory());
    }

    @Test
    void aPodOfSeveralCardsNeedsDistinctCardsOnOneNode() {
        assertEquals(2, Capacity.podsOnNode(List.of(3L, 1L, 1L), 2));
        assertEquals(0, Capacity.podsOnNode(List.of(5L), 2));
        assertEquals(1, Capacity.podsOnNode(List.of(1L, 1L, 1L), 3));
        assertEquals(5, Capacity.podsOnNode(List.of(5L), 1));
        assertEquals(4, Capacity.podsOnNode(List.of(4L, 4L, 4L, 4L), 4));
        // Cards on different nodes cannot pair up.
        FleetState state = new Readings()
                .card("n1", "GPU-0", 0, "A100", "hami-core", 40, 0, 0, 0, 10)
                .card("n2", "GPU-1", 0, "A100", "hami-core", 40, 0, 0, 0, 10)
                .state();
        assertEquals(0, Capacity.of(state.cards(), new PodShape(1024, 0, 2)).getFirst().fits());
    }

    @Test
    void unhealthyMigAndUnknownCardsAreNotCounted() {
        Readings readings = new Readings()
                .card("n1", "GPU-0", 0, "H100", "mig", 80, 0, 0, 0, 7)
                .card("n1", "GPU-1", 1, "H100", "hami-core", 80, 0, 0, 0, 10);
        readings.registered.add(new FleetReadings.Registered("n1", "GPU-2", 2, "H100", "hami-core", Figure.of(0),
                Figure.of(80 * GIB), Figure.of(0), Figure.of(100), Figure.of(0), Figure.of(0), Figure.of(10)));
        readings.registered.add(new FleetReadings.Registered("n1", "GPU-3", 3, "H100", "hami-core", Figure.of(1),
                Figure.of(80 * GIB), Figure.of(0), Figure.of(100), Figure.of(0), Figure.of(0),
                Figure.missing(Absence.NOT_REPORTED)));
        Capacity.ModelCapacity h100 = Capacity.of(readings.state().cards(), new PodShape(8192, 0, 1)).getFirst();
        assertEquals(4, h100.cards());
        assertEquals(1, h100.counted());
        assertEquals(10, h100.fits());
    }

    @Test
    void rightSizingGivesBackWhatItCutsTakesWhatItRaisesAndLeavesWhatItCannotTell() {
        FleetState state = new Readings()
                // 40 GiB, 32 allocated: 8 free → one pod of 8 GiB now.
                .card("n1", "GPU-0", 0, "A100", "hami-core", 40, 32, 40, 2, 10)
                // 40 GiB, 36 allocated: nothing fits now.
                .card("n1", "GPU-1", 1, "A100", "hami-core", 40, 36, 20, 2, 10)
                // 24 GiB, 20 allocated, on another model.
                .card("n2", "GPU-2", 0, "L4", "hami-core", 24, 20, 10, 1, 10)
                .state();
        PodShape shape = new PodShape(8192, 10, 1);
        List<Recommendation> recommendations = List.of(
                // A 16 GiB request on GPU-0 that needs 4: 12 GiB back on GPU-0.
                recommendation("a", List.of("GPU-0"), 16_384, 4096, 30, 10),
                // Two cards of 10 GiB each that need 6: 4 GiB back on GPU-0 and on GPU-1.
                recommendation("b", List.of("GPU-0", "GPU-1"), 10_240, 6144, 5, 5),
                // A limit hit on the L4: 4 GiB more, so its free 4 GiB is gone.
                recommendation("c", List.of("GPU-2"), 8192, 12_288, 10, 10),
                // Not enough history: no figure, nothing changes.
                new Recommendation(new WorkloadRef("ns", "d", "c"), "n1", 1, Figure.of(16_384), Figure.of(30),
                        Figure.missing(Absence.NOT_REPORTED), Figure.missing(Absence.NOT_REPORTED), 3,
                        Figure.missing(Absence.NOT_REPORTED), Figure.missing(Absence.NOT_REPORTED),
                        java.util.Optional.of("2 hours of history"), false, List.of("GPU-1")));
        List<Card> after = Capacity.afterRightSizing(state.cards(), recommendations);
        assertEquals((32 - 12 - 4) * GIB, after.get(0).memoryAllocated().orElseThrow(), 1);
        assertEquals(40 - 20 - 0.0, after.get(0).coresAllocated().orElseThrow(), 1e-9);
        assertEquals((36 - 4) * GIB, after.get(1).memoryAllocated().orElseThrow(), 1);
        assertEquals((20 + 4) * GIB, after.get(2).memoryAllocated().orElseThrow(), 1);
        Map<String, Capacity.ModelCapacity> byModel = new java.util.HashMap<>();
        Capacity.of(state.cards(), shape, recommendations).forEach(model -> byModel.put(model.model(), model));
        // A100: now 8 free on GPU-0 → 1; after, 24 free on GPU-0 → 3 and 8 on GPU-1 → 1.
        assertEquals(1, byModel.get("A100").fits());
        assertEquals(4, byModel.get("A100").fitsAfterRightSizing());
        // The L4's 4 GiB free fits nothing now or after its raise.
        assertEquals(0, byModel.get("L4").fits());
        assertEquals(0, byModel.get("L4").fitsAfterRightSizing());
        // Why: on the A100s 12 + 4 + 4 GiB given back, nothing taken; on the L4 4 GiB taken.
        assertEquals(20 * GIB, byModel.get("A100").memoryGivenBack(), 1);
        assertEquals(0, byModel.get("A100").memoryTaken(), 1e-9);
        assertEquals(0, byModel.get("L4").memoryGivenBack(), 1e-9);
        assertEquals(4 * GIB, byModel.get("L4").memoryTaken(), 1);
        // A card counted in a vendor's cores (20 AI cores, 8 allocated): a percentile of utilisation
        // is not a count of them, so only memory changes there.
        Readings vendor = new Readings();
        vendor.registered.add(new FleetReadings.Registered("n3", "NPU-0", 0, "Ascend910B3", "hami-core", Figure.of(1),
                Figure.of(64 * GIB), Figure.of(32 * GIB), Figure.of(20), Figure.of(8), Figure.of(1), Figure.of(4)));
        Card npu = Capacity.afterRightSizing(vendor.state().cards(),
                List.of(recommendation("e", List.of("NPU-0"), 32_768, 16_384, 8, 35))).getFirst();
        assertEquals(16 * GIB, npu.memoryAllocated().orElseThrow(), 1);
        assertEquals(8, npu.coresAllocated().orElseThrow(), 1e-9);
        // Without recommendations the two are the same.
        Capacity.of(state.cards(), shape).forEach(model -> {
            assertEquals(model.fits(), model.fitsAfterRightSizing());
            assertEquals(0, model.memoryGivenBack() + model.memoryTaken(), 1e-9);
        });
    }

    private static Recommendation recommendation(String pod, List<String> uuids, long currentMib, long recommendedMib,
                                                 long currentCores, long recommendedCores) {
        return new Recommendation(new WorkloadRef("ns", pod, "c"), "n1", uuids.size(), Figure.of(currentMib),
                Figure.of(currentCores), Figure.of(recommendedMib * 1024.0 * 1024 / 1.15), Figure.of(recommendedCores),
                500, Figure.of(recommendedMib), Figure.of(recommendedCores), java.util.Optional.empty(), false, uuids);
    }

    @Test
    void shapesOutsideWhatACardCanBeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PodShape(0, 10, 1));
        assertThrows(IllegalArgumentException.class, () -> new PodShape(1024, 101, 1));
        assertThrows(IllegalArgumentException.class, () -> new PodShape(1024, 10, 0));
    }
}
