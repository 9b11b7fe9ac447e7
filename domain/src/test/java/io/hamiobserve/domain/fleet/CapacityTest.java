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
    void shapesOutsideWhatACardCanBeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PodShape(0, 10, 1));
        assertThrows(IllegalArgumentException.class, () -> new PodShape(1024, 101, 1));
        assertThrows(IllegalArgumentException.class, () -> new PodShape(1024, 10, 0));
    }
}
