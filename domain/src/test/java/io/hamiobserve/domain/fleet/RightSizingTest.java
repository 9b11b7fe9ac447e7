package io.hamiobserve.domain.fleet;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.hamiobserve.domain.fleet.Readings.GIB;
import static io.hamiobserve.domain.fleet.Readings.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RightSizingTest {
    private static final WorkloadRef LLM = new WorkloadRef("ml-team", "llm-inference", "server");

    private static Workload workload(WorkloadRef ref, double memoryMib, double cores, String... uuids) {
        List<WorkloadShare> shares = java.util.Arrays.stream(uuids).map(uuid -> new WorkloadShare(ref, 0, "node-a",
                uuid, "A100", Figure.of(memoryMib * MIB), Figure.of(cores), Figure.of(0), Figure.of(0), Figure.of(1),
                0)).toList();
        return new Workload(ref, "node-a", shares);
    }

    private static UsageHistory.ShareHistory history(WorkloadRef ref, String uuid, double peakMib, double p95,
                                                     long samples, long settled) {
        return new UsageHistory.ShareHistory(ref.namespace(), ref.pod(), ref.container(), uuid,
                Figure.of(peakMib * MIB), Figure.of(p95), samples, settled, Figure.of(p95));
    }

    private static UsageHistory window(UsageHistory.ShareHistory... shares) {
        return new UsageHistory(Instant.EPOCH, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY, List.of(shares),
                Map.of());
    }

    @Test
    void theBriefsPodAsking8GiBAndUsingAbout2100MiBGetsAbout2AndAHalfGiB() {
        // 2100 MiB used: max(2100 × 1.15, 2100 + 300) = 2415 → 2560 MiB.
        assertEquals(2560, RightSizing.memoryMib(2100 * MIB));
        // The demo's pod peaks at 2100 × 1.06 = 2226 MiB: 2226 × 1.15 = 2559.9 → still 2560 MiB.
        assertEquals(2560, RightSizing.memoryMib(2226 * MIB));
        Recommendation recommendation = RightSizing.recommend(workload(LLM, 8192, 30, "GPU-0"),
                window(history(LLM, "GPU-0", 2226, 27.4, 2000, 1800)));
        assertEquals(2560, recommendation.memoryMib().orElseThrow());
        assertEquals(2.5 * GIB, recommendation.memoryMib().orElseThrow() * MIB);
        assertEquals(30, recommendation.cores().orElseThrow());
        assertEquals(8192, recommendation.currentMemoryMib().orElseThrow());
        assertEquals(-5632, recommendation.memoryChangeMib().orElseThrow());
        assertEquals(Severity.CRITICAL, recommendation.memorySeverity());
        assertEquals(Severity.GOOD, recommendation.coresSeverity());
        assertEquals(Severity.CRITICAL, recommendation.severity());
        assertEquals(5632 * MIB, recommendation.memoryFreedBytes());
        assertEquals("""
                resources:
                  limits:
                    nvidia.com/gpu: 1
                    nvidia.com/gpumem: 2560
                    nvidia.com/gpucores: 30
                """, recommendation.snippet().orElseThrow());
    }

    @Test
    void memoryKeepsRoomForACudaContextWhenTheMarginIsSmallerAndRoundsUpTo256MiB() {
        // 500 MiB: 15 % is 75 MiB, less than the 300 MiB floor: 800 → 1024.
        assertEquals(1024, RightSizing.memoryMib(500 * MIB));
        // Nothing used still leaves room for a context: 300 → 512.
        assertEquals(512, RightSizing.memoryMib(0));
        // Exactly on a step stays on it; a hair above goes to the next.
        assertEquals(2560, RightSizing.memoryMib(2560 / 1.15 * MIB));
        assertEquals(2816, RightSizing.memoryMib((2560 / 1.15 + 0.01) * MIB));
        // Large peaks: the 15 % margin dominates.
        assertEquals(18432, RightSizing.memoryMib(15900 * MIB));
    }

    @Test
    void coresAreTheP95RoundedUpTo5AtLeast5AndAtMost100() {
        assertEquals(30, RightSizing.cores(27.4));
        assertEquals(30, RightSizing.cores(30));
        assertEquals(35, RightSizing.cores(30.2));
        // HAMi reads 0 cores as "no limit": an idle container is held to 5, not let loose.
        assertEquals(5, RightSizing.cores(0));
        // HAMi's utilisation sums processes and can pass 100; a request cannot.
        assertEquals(100, RightSizing.cores(140));
    }

    @Test
    void tooLittleHistoryGivesNoRecommendationAndSaysWhy() {
        Workload llm = workload(LLM, 8192, 30, "GPU-0");
        Recommendation few = RightSizing.recommend(llm, window(history(LLM, "GPU-0", 2100, 20, 99, 50)));
        assertEquals(Figure.missing(Absence.NOT_ENOUGH_HISTORY), few.memoryMib());
        assertEquals("99 samples, fewer than 100", few.notEnoughData().orElseThrow());
        assertEquals(Severity.UNKNOWN, few.severity());
        assertTrue(few.snippet().isEmpty());

        Recommendation young = RightSizing.recommend(llm, window(history(LLM, "GPU-0", 2100, 20, 500, 0)));
        assertEquals("less than 3 h of history", young.notEnoughData().orElseThrow());

        Recommendation none = RightSizing.recommend(llm, window());
        assertEquals("no usage samples in the window", none.notEnoughData().orElseThrow());
        assertEquals(0, none.samples());
        assertFalse(none.idle());

        Recommendation enough = RightSizing.recommend(llm, window(history(LLM, "GPU-0", 2100, 20, 100, 1)));
        assertTrue(enough.notEnoughData().isEmpty());
    }

    @Test
    void aContainerOnSeveralCardsGetsTheLargestPerCardRecommendation() {
        WorkloadRef embed = new WorkloadRef("vision", "embed", "worker");
        Recommendation recommendation = RightSizing.recommend(workload(embed, 10240, 40, "GPU-2", "GPU-3"),
                window(history(embed, "GPU-2", 9000, 30, 500, 400), history(embed, "GPU-3", 9540, 38, 600, 400)));
        assertEquals(RightSizing.memoryMib(9540 * MIB), recommendation.memoryMib().orElseThrow());
        assertEquals(40, recommendation.cores().orElseThrow());
        assertEquals(500, recommendation.samples());
        assertEquals(2, recommendation.cards());
        // 10240 → 11008 on each of two cards: asks for more, frees nothing.
        assertEquals(0, recommendation.memoryFreedBytes());
        assertTrue(recommendation.snippet().orElseThrow().contains("nvidia.com/gpu: 2"));
        // One card without history makes the whole container wait.
        Recommendation partial = RightSizing.recommend(workload(embed, 10240, 40, "GPU-2", "GPU-3"),
                window(history(embed, "GPU-2", 9000, 30, 500, 400)));
        assertTrue(partial.notEnoughData().isPresent());
    }

    @Test
    void severityGoesByAbsoluteDifference() {
        assertEquals(Severity.CRITICAL, Severity.ofMemoryDifference(-4096));
        assertEquals(Severity.WARNING, Severity.ofMemoryDifference(4095));
        assertEquals(Severity.WARNING, Severity.ofMemoryDifference(1024));
        assertEquals(Severity.OK, Severity.ofMemoryDifference(-256));
        assertEquals(Severity.GOOD, Severity.ofMemoryDifference(255));
        assertEquals(Severity.CRITICAL, Severity.ofCoresDifference(25));
        assertEquals(Severity.WARNING, Severity.ofCoresDifference(-10));
        assertEquals(Severity.OK, Severity.ofCoresDifference(5));
        assertEquals(Severity.GOOD, Severity.ofCoresDifference(4));
    }

    @Test
    void anIdleWorkloadIsMarkedIdle() {
        Recommendation idle = RightSizing.recommend(workload(LLM, 8192, 30, "GPU-0"),
                window(history(LLM, "GPU-0", 2100, 0, 2000, 1800)));
        assertTrue(idle.idle());
        assertEquals(5, idle.cores().orElseThrow());
        // 30 → 5 cores: a quarter card given back.
        assertEquals(Severity.CRITICAL, idle.coresSeverity());
    }

    @Test
    void savingsSumWhatEveryRecommendationGivesBackInBytesAndCards() {
        WorkloadRef other = new WorkloadRef("ml-team", "notebook", "jupyter");
        List<Recommendation> all = RightSizing.recommendAll(
                List.of(workload(LLM, 8192, 30, "GPU-0"), workload(other, 4096, 20, "GPU-0")),
                window(history(LLM, "GPU-0", 2226, 27, 2000, 1800), history(other, "GPU-0", 3180, 8, 2000, 1800)));
        assertEquals(List.of(LLM, other), all.stream().map(Recommendation::workload).toList());
        // llm: 8192 → 2560 frees 5632 MiB; notebook: 4096 → 3840 frees 256 MiB; cores 30 → 30, 20 → 10.
        assertEquals(3840, all.get(1).memoryMib().orElseThrow());
        RightSizing.Savings savings = RightSizing.Savings.of(all, Figure.of(40 * GIB));
        assertEquals((5632 + 256) * MIB, savings.memoryBytes());
        assertEquals(10, savings.cores());
        assertEquals((5632 + 256) * MIB / (40 * GIB), savings.memoryCards().orElseThrow(), 1e-9);
        assertEquals(Duration.ofDays(14), RightSizing.DEFAULT_WINDOW);
    }
}
