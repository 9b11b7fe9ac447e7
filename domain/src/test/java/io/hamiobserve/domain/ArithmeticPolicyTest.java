package io.hamiobserve.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The project's one arithmetic policy ({@link Quantities}): bounded quantities, saturating sums
 * and conversions, exact running totals. Each test states one part of the proof that no figure
 * can wrap, throw, or turn negative.
 */
class ArithmeticPolicyTest {
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);

    @Test
    void recordsRefuseQuantitiesBeyondTheBounds() {
        // The cases: a share of 9,000,000,000,000 MiB (≥ 2^43) and 2^62 cores.
        assertThrows(IllegalArgumentException.class, () -> new DeviceShare("GPU-a", "NVIDIA", 9_000_000_000_000L, 10));
        assertThrows(IllegalArgumentException.class, () -> new DeviceShare("GPU-a", "NVIDIA", 1, 1L << 62));
        assertThrows(IllegalArgumentException.class, () -> new RegisteredCard("GPU-a", 0, 1,
                Quantities.MAX_MEMORY_MIB + 1, 100, "T", 0, CardMode.HAMI_CORE, true));
        assertThrows(IllegalArgumentException.class, () -> new QuotaLimit("ns", "q", QuotaResource.GPU_MEMORY_MIB,
                Quantities.MAX_QUOTA + 1));
        assertThrows(IllegalArgumentException.class, () -> new DeviceUsage(0, "GPU-a", -1, 0, 0, 0, 0, 100, 0, 1, 0));

        DeviceShare largest = new DeviceShare("GPU-a", "NVIDIA", Quantities.MAX_MEMORY_MIB, Quantities.MAX_PERCENT);
        assertEquals(Quantities.MAX_MEMORY_BYTES, largest.memoryBytes());
        assertEquals(Long.MAX_VALUE, new QuotaLimit("ns", "q", QuotaResource.GPU_MEMORY_MIB, Quantities.MAX_QUOTA)
                .hardLimit() * Units.BYTES_PER_MIB + (Units.BYTES_PER_MIB - 1));
    }

    @Test
    void theBoundsLeaveRoomForEveryRealCardAndForThousandsOfThemInOneSum() {
        long largestCardTodayMib = 288L * 1024; // 288 GB-class cards
        assertTrue(Quantities.MAX_MEMORY_MIB >= 1024 * largestCardTodayMib);
        // 8,191 largest quantities sum in bytes without leaving a long.
        assertTrue(BigInteger.valueOf(Quantities.MAX_MEMORY_BYTES).multiply(BigInteger.valueOf(8191))
                .compareTo(LONG_MAX) <= 0);
    }

    @Test
    void saturatingAdditionStopsAtTheLargestLong() {
        assertEquals(3, Quantities.add(1, 2));
        assertEquals(Long.MAX_VALUE, Quantities.add(Long.MAX_VALUE, 1));
        assertEquals(Long.MAX_VALUE, Quantities.add(Long.MAX_VALUE, Long.MAX_VALUE));
        assertEquals(Long.MAX_VALUE, Quantities.add(Long.MAX_VALUE - 1, 1));
        long sum = 0;
        for (int i = 0; i < 20_000; i++) {
            sum = Quantities.add(sum, Quantities.MAX_MEMORY_BYTES);
        }
        assertEquals(Long.MAX_VALUE, sum);
    }

    @Test
    void excessNeverOverflowsWhateverTheInputs() {
        assertEquals(5, Quantities.excess(7, 2));
        assertEquals(0, Quantities.excess(2, 7));
        assertEquals(Long.MAX_VALUE, Quantities.excess(Long.MAX_VALUE, 0));
        assertEquals(0, Quantities.excess(Long.MIN_VALUE, Long.MAX_VALUE));
        assertEquals(Long.MAX_VALUE, Quantities.excess(Long.MAX_VALUE, Long.MIN_VALUE));
        assertEquals(0, Quantities.toIntSaturated(-4));
        assertEquals(Integer.MAX_VALUE, Quantities.toIntSaturated(Long.MAX_VALUE));
    }

    @Test
    void runningTotalsAreExactPastTheRangeOfALongAndReadSaturated() {
        RunningTotal total = new RunningTotal();
        for (int i = 0; i < 3; i++) {
            total.add(Long.MAX_VALUE);
        }
        assertEquals(Long.MAX_VALUE, total.saturated());
        for (int i = 0; i < 3; i++) {
            total.add(-Long.MAX_VALUE);
        }
        assertTrue(total.isZero());
        total.add(-Long.MAX_VALUE);
        total.add(-Long.MAX_VALUE);
        assertEquals(Long.MIN_VALUE, total.saturated());
        total.add(Long.MAX_VALUE);
        total.add(Long.MAX_VALUE - 41);
        assertEquals(-41, total.saturated());
    }

    @Test
    void runningTotalsAgreeWithArbitraryPrecisionOverRandomAddsAndRemoves() {
        Random random = new Random(20_260_101L);
        for (int run = 0; run < 200; run++) {
            RunningTotal total = new RunningTotal();
            BigInteger exact = BigInteger.ZERO;
            List<Long> added = new ArrayList<>();
            for (int step = 0; step < 500; step++) {
                if (!added.isEmpty() && random.nextInt(3) == 0) {
                    long term = added.remove(random.nextInt(added.size()));
                    total.add(-term);
                    exact = exact.subtract(BigInteger.valueOf(term));
                } else {
                    long term = random.nextInt(4) == 0 ? Long.MAX_VALUE - random.nextInt(10)
                            : random.nextLong() & Long.MAX_VALUE;
                    added.add(term);
                    total.add(term);
                    exact = exact.add(BigInteger.valueOf(term));
                }
                long expected = exact.compareTo(LONG_MAX) > 0 ? Long.MAX_VALUE
                        : exact.compareTo(LONG_MIN) < 0 ? Long.MIN_VALUE : exact.longValueExact();
                assertEquals(expected, total.saturated(), "run " + run + " step " + step);
            }
            for (long term : added) {
                total.add(-term);
            }
            assertTrue(total.isZero());
        }
    }

    @Test
    void ledgerTotalsOfTheLargestSharesStayExactAndComeBackToZeroWhenPodsLeave() {
        Ledger ledger = new Ledger();
        ledger.putNode("node", List.of(new RegisteredCard("GPU-1", 0, 10, 80 * 1024, 100, "T", 0, CardMode.HAMI_CORE,
                true)));
        // Every pod lists the card 1,024 times at the largest share: 2^40 MiB each, 2^50 for 1,024 pods;
        // passing a long in MiB would take 2^33 such shares, more than any heap holds.
        List<ContainerShares> containers = List.of(new ContainerShares(0, "c", false, java.util.Collections.nCopies(
                1024, new DeviceShare("GPU-1", "NVIDIA", Quantities.MAX_MEMORY_MIB, Quantities.MAX_PERCENT))));
        for (int p = 0; p < 1024; p++) {
            ledger.putPod(new PodPlacement(new PodRef("ns", "p" + p, "uid-" + p), "node", PodPhase.RUNNING, true,
                    containers));
        }
        AllocationView.CardAllocation card = ledger.view().cards().getFirst();
        assertEquals(1L << 50, card.allocatedMemoryMib());
        assertEquals(1L << 50, card.allocatedCores());
        assertEquals(Long.MAX_VALUE, card.allocatedMemoryBytes());
        assertEquals(1L << 50, ledger.view().quotas().getFirst().used());

        for (int p = 0; p < 1024; p++) {
            ledger.removePod("uid-" + p);
        }
        card = ledger.view().cards().getFirst();
        assertEquals(List.of(0L, 0L, 0L), List.of(card.allocatedMemoryMib(), card.allocatedCores(),
                (long) card.sharedContainers()));
        assertEquals(List.of(), ledger.view().quotas());
    }
}
