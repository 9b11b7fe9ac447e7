package io.hamiobserve.domain.fleet;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static io.hamiobserve.domain.fleet.Readings.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Right-sizing per workload, as a table: each case is the pods a controller had in the window
 * (their peaks, percentiles, samples and hours), what runs now, and the figures expected.
 */
class WorkloadRightSizingTest {
    /** One pod's history on one card. */
    record Pod(String name, double peakMib, double medianMib, double p95, double p50, long samples, long hours) {
    }

    /**
     * A case: the workload, its pods, the hours any of them has samples in (null: the engine did
     * not say), the request now (MiB per card, percent; 0: no pod runs now), and what is expected.
     */
    record Case(String name, WorkloadGroup workload, List<Pod> pods, Long hours, double requestMib, double requestCores,
                Expect expect) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** Expected figures; -1: missing. */
    record Expect(int pods, String notEnoughData, double days, long memoryMib, long memoryLowerMib,
                  long memoryUpperMib, long cores, long coresLower, long coresUpper, boolean limitBump,
                  boolean replicasDiffer) {
    }

    private static final WorkloadGroup SERVE = new WorkloadGroup("", "ml", "Deployment", "serve", "server");
    private static final WorkloadGroup NIGHTLY = new WorkloadGroup("", "batch", "CronJob", "nightly", "embed");
    private static final WorkloadGroup DB = new WorkloadGroup("", "data", "StatefulSet", "vector-db", "db");
    private static final WorkloadGroup TRAIN = new WorkloadGroup("", "ml", "Job", "train-7", "trainer");

    static Stream<Case> cases() {
        List<Pod> cronJobs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            // 40 runs of 15 minutes: 30 samples each, too few for any one pod, plenty together.
            cronJobs.add(new Pod("nightly-" + (29000000 + i) + "-x" + i, 3000 + i, 2800, 60, 40, 30, 1));
        }
        return Stream.of(
                // 14 days; a rollout on day 7 gave the pods new names: one history, 2 pods.
                // peak 2100 → max(2415, 2400) → 2560; upper 2100 × (1 + 1/14) × 1.15 = 2587.5 → 2816;
                // lower 1800 × 1.15 × (1 + 0.001/14)^-2 = 2069.7 → 2304; cores p95 27.4 → 30, upper
                // 27.4 × 15/14 = 29.4 → 30, lower p50 12 → 15.
                new Case("a rollout mid-window", SERVE, List.of(
                        new Pod("serve-7d9f-a1", 2100, 1800, 27.4, 12, 2016, 168),
                        new Pod("serve-5c44-b2", 2050, 1790, 26.0, 11, 2016, 168)), 336L, 8192, 50,
                        new Expect(2, null, 14, 2560, 2304, 2816, 30, 15, 30, false, false)),
                // 40 short Jobs of a CronJob: 30 samples each, 1200 together over 40 hours.
                // peak 3039 → 3494.9 → 3584; upper 3039 × (1 + 24/40) × 1.15 = 5592 → 5632;
                // lower 2800 × 1.15 × (1 + 0.001/(40/24))^-2 = 3216.1 → 3328.
                new Case("a CronJob of many short Jobs", NIGHTLY, cronJobs, 40L, 0, 0,
                        new Expect(40, null, 40 / 24.0, 3584, 3328, 5632, 60, 40, 100, false, false)),
                // One replica hot (10 GiB), the other idle (1 GiB): said, and the target follows the hot one.
                // peak 10240 → 11776 → 11776; upper × (1 + 1/7) = 13458 → 13568.
                new Case("a StatefulSet with one hot replica", DB, List.of(
                        new Pod("vector-db-0", 10240, 9000, 80, 60, 2016, 168),
                        new Pod("vector-db-1", 1024, 900, 5, 2, 2016, 168)), 168L, 16384, 100,
                        new Expect(2, null, 7, 11776, 10496, 13568, 80, 60, 95, false, true)),
                // Peak 4050 of a 4096 limit (98.9 %): never lower; raised to max(4096 × 1.2, 4096 + 100) = 4915 → 5120.
                new Case("a limit hit", TRAIN, List.of(
                        new Pod("train-7-abcde", 4050, 3900, 90, 85, 2016, 168)), 168L, 4096, 100,
                        new Expect(1, null, 7, 5120, 4608, 5376, 90, 85, 100, true, false)),
                // 2 hours: 240 samples, but less than 3 h of history: no recommendation yet.
                new Case("2 hours of history", SERVE, List.of(
                        new Pod("serve-7d9f-a1", 2100, 1800, 27.4, 12, 240, 2)), 2L, 8192, 50,
                        new Expect(1, "less than 3 h of history", 2 / 24.0, -1, -1, -1, -1, -1, -1, false, false)),
                // The engine does not say the workload's hours: its longest-lived pod's stand in.
                new Case("hours from the longest-lived pod", SERVE, List.of(
                        new Pod("serve-7d9f-a1", 2100, 1800, 27.4, 12, 2016, 168),
                        new Pod("serve-5c44-b2", 2050, 1790, 26.0, 11, 200, 24)), null, 8192, 50,
                        // 7 days: upper 27.4 × 8/7 = 31.3 → 35.
                        new Expect(2, null, 7, 2560, 2304, 2816, 30, 15, 35, false, false)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void recommendsPerWorkload(Case each) {
        List<UsageHistory.ShareHistory> shares = each.pods().stream().map(pod -> new UsageHistory.ShareHistory(
                each.workload().namespace(), pod.name(), each.workload().container(), "GPU-" + pod.name(),
                Figure.of(pod.peakMib() * MIB), Figure.of(pod.p95()), pod.samples(), pod.samples() / 2,
                Figure.of(pod.p95()), each.workload(), Figure.of(pod.medianMib() * MIB), Figure.of(pod.p50()),
                pod.hours())).toList();
        List<Workload> now = new ArrayList<>();
        if (each.requestMib() > 0) {
            // The last pod of the list runs now, with the request given.
            Pod last = each.pods().getLast();
            WorkloadRef ref = new WorkloadRef(each.workload().namespace(), last.name(), each.workload().container());
            now.add(new Workload(ref, "node-a", List.of(new WorkloadShare(ref, 0, "node-a", "GPU-" + last.name(),
                    "A100", Figure.of(each.requestMib() * MIB), Figure.of(each.requestCores()), Figure.of(0),
                    Figure.of(0), Figure.of(1), 0))));
        }
        UsageHistory history = new UsageHistory(Instant.EPOCH, Duration.ofDays(14), RightSizing.MIN_HISTORY, shares,
                each.hours() == null ? Map.of() : Map.of(each.workload(), each.hours()), Map.of());

        List<WorkloadRecommendation> all = RightSizing.byWorkload(now, history);
        assertEquals(1, all.size(), "one row per workload and container: " + all);
        WorkloadRecommendation got = all.getFirst();
        Expect expect = each.expect();
        assertEquals(each.workload(), got.workload());
        assertEquals(expect.pods(), got.pods().size());
        assertEquals(Optional.ofNullable(expect.notEnoughData()), got.notEnoughData());
        assertEquals(expect.days(), got.historyDays().orElseThrow(), 1e-9);
        assertEquals(expect.memoryMib(), value(got.memoryMib()), "memory target");
        assertEquals(expect.memoryLowerMib(), value(got.memoryLowerMib()), "memory lower bound");
        assertEquals(expect.memoryUpperMib(), value(got.memoryUpperMib()), "memory upper bound");
        assertEquals(expect.cores(), value(got.cores()), "cores target");
        assertEquals(expect.coresLower(), value(got.coresLower()), "cores lower bound");
        assertEquals(expect.coresUpper(), value(got.coresUpper()), "cores upper bound");
        assertEquals(expect.limitBump(), got.limitBump().isPresent(), "limit bump: " + got.limitBump());
        assertEquals(expect.replicasDiffer(), got.replicasDiffer().isPresent(), "replicas: " + got.replicasDiffer());
        if (got.memoryMib().isKnown()) {
            // Bounds never cross the target.
            assertEquals(true, value(got.memoryLowerMib()) <= value(got.memoryMib())
                    && value(got.memoryMib()) <= value(got.memoryUpperMib()));
        }
    }

    private static long value(Figure figure) {
        return figure.isKnown() ? Math.round(figure.orElseThrow()) : -1;
    }

    @org.junit.jupiter.api.Test
    void aPodNameTwoClustersRunNowJoinsItsOwnClustersWorkload() {
        WorkloadGroup east = new WorkloadGroup("east", "ml", "Deployment", "serve", "server");
        WorkloadGroup west = new WorkloadGroup("west", "ml", "Deployment", "serve", "server");
        List<UsageHistory.ShareHistory> shares = new ArrayList<>();
        List<Workload> now = new ArrayList<>();
        for (WorkloadGroup group : List.of(east, west)) {
            String card = "GPU-" + group.cluster();
            shares.add(new UsageHistory.ShareHistory("ml", "serve-1", "server", card, Figure.of(2000 * MIB),
                    Figure.of(20), 5000, 2500, Figure.of(20), group, Figure.of(1800 * MIB), Figure.of(10), 336));
            // The same pod name runs now in both clusters, each on its own card with its own request.
            WorkloadRef ref = new WorkloadRef("ml", "serve-1", "server");
            double request = group == east ? 4096 : 8192;
            now.add(new Workload(ref, "node-a", List.of(new WorkloadShare(ref, 0, "node-a", card, "A100",
                    Figure.of(request * MIB), Figure.of(30), Figure.of(0), Figure.of(0), Figure.of(1), 0))));
        }
        UsageHistory history = new UsageHistory(Instant.EPOCH, Duration.ofDays(14), RightSizing.MIN_HISTORY, shares,
                Map.of(), Map.of());
        // West's running pod listed first: it still joins west's workload, not the first owner found.
        List<WorkloadRecommendation> rows = RightSizing.byWorkload(List.of(now.get(1), now.get(0)), history);
        assertEquals(List.of(east, west), rows.stream().map(WorkloadRecommendation::workload).toList());
        assertEquals(List.of(4096.0, 8192.0), rows.stream().map(row -> row.currentMemoryMib().orElseThrow()).toList());
        assertEquals(List.of(List.of("serve-1"), List.of("serve-1")),
                rows.stream().map(WorkloadRecommendation::podsNow).toList());
    }

    @org.junit.jupiter.api.Test
    void rowsComeInTheWorkloadsOrderWhateverOrderTheHistoryListsThem() {
        // Each field decides between two groups equal before it: cluster, namespace, kind, name,
        // then container; a running pod with no history (its own workload) sorts among them.
        List<WorkloadGroup> ordered = List.of(
                new WorkloadGroup("", "ml", "Deployment", "serve", "server"),
                new WorkloadGroup("", "ml", "Deployment", "serve", "sidecar"),
                new WorkloadGroup("", "ml", "Deployment", "train", "a"),
                new WorkloadGroup("", "ml", "StatefulSet", "db", "a"),
                new WorkloadGroup("", "zeta", "Deployment", "a", "a"),
                new WorkloadGroup("east", "a", "CronJob", "a", "a"),
                new WorkloadGroup("west", "a", "CronJob", "a", "a"));
        List<UsageHistory.ShareHistory> shares = new ArrayList<>();
        for (int i = ordered.size() - 1; i >= 0; i--) {
            WorkloadGroup group = ordered.get(i);
            if (group.ownerKind().equals("StatefulSet")) {
                continue;
            }
            shares.add(new UsageHistory.ShareHistory(group.namespace(), group.ownerName() + "-" + i, group.container(),
                    "GPU-" + i, Figure.of(2000 * MIB), Figure.of(20), 5000, 2500, Figure.of(20), group,
                    Figure.of(1800 * MIB), Figure.of(10), 336));
        }
        // The StatefulSet's pod runs now and has no history: a workload of its own, a bare pod.
        WorkloadRef db = new WorkloadRef("ml", "db-0", "a");
        List<Workload> now = List.of(new Workload(db, "node-a", List.of(new WorkloadShare(db, 0, "node-a", "GPU-db",
                "A100", Figure.of(4096 * MIB), Figure.of(30), Figure.of(0), Figure.of(0), Figure.of(1), 0))));
        UsageHistory history = new UsageHistory(Instant.EPOCH, Duration.ofDays(14), RightSizing.MIN_HISTORY, shares,
                Map.of(), Map.of());

        List<WorkloadGroup> expected = new ArrayList<>(ordered);
        expected.set(3, WorkloadGroup.barePod("", "ml", "db-0", "a"));
        assertEquals(expected, RightSizing.byWorkload(now, history).stream().map(WorkloadRecommendation::workload)
                .toList());
    }
}
