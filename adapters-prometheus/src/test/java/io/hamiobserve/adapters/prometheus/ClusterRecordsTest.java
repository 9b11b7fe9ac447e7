package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two clusters in one engine under the same names — node, card UUID, namespace, pod and container —
 * held twice by real Prometheus servers: one with the raw history only, one that has also run the
 * console's recording rules over it. Every record keeps the cluster, so right-sizing over both
 * clusters, right-sizing of one, and one cluster's funnel chart read the records, and give what
 * the raw series give: never one cluster's pod lent the other's peak or share.
 */
class ClusterRecordsTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final Duration HOURS = Duration.ofHours(8);

    private static long at;
    private static History.RawAndRecorded servers;
    private static PrometheusFleetHistory fromRaw;
    private static PrometheusFleetHistory fromRecorded;

    @BeforeAll
    static void startBothWithTheSameHistory() throws Exception {
        long base = (Instant.now().getEpochSecond() / 3600) * 3600 - 10 * 3600;
        at = base + HOURS.toSeconds();
        // East: 8 GiB and 30 % of the card (0.3 of it), 2 GiB used at 10 %; west: 16 GiB and
        // 50 % (0.5), 6 GiB used at 60 %, peaking at 12 GiB once in its fifth hour.
        servers = History.rawAndRecorded("hami-observe-cluster-records", base + 30, at - 30, 60, series -> {
            cluster(series, "east", 8 * GIB, 30, t -> 2 * GIB, 10);
            cluster(series, "west", 16 * GIB, 50,
                    t -> (t - base) / 3600 == 4 && t % 3600 == 630 ? 12 * GIB : 6 * GIB, 60);
        });
        fromRaw = PrometheusFleetHistory.at(servers.raw().url(), Duration.ofSeconds(20));
        fromRecorded = PrometheusFleetHistory.at(servers.recorded().url(), Duration.ofSeconds(20));
        // What the engines hold, as the console's first read of now asks it (answered beside it).
        knowsBothClusters(fromRaw);
        knowsBothClusters(fromRecorded);
    }

    /** A read of now, then until its question about the clusters is answered (at most 10 s). */
    private static void knowsBothClusters(PrometheusFleetHistory history) throws Exception {
        history.readings(Instant.ofEpochSecond(at - 60), FleetScope.EVERYTHING);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (history.clusters().size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(List.of("east", "west"), history.clusters());
    }

    private static void cluster(History series, String cluster, double memory, double cores,
                                java.util.function.LongToDoubleFunction used, double utilisation) throws Exception {
        series.series("hami_gpu_memory_limit_bytes", Map.of("cluster", cluster, "node", "node-a",
                "device_uuid", "GPU-0", "device_index", "0", "device_type", "NVIDIA A100", "instance", "scheduler-0"),
                t -> 40 * GIB);
        Map<String, String> share = Map.of("cluster", cluster, "namespace", "ml", "pod", "serve-0",
                "container_index", "0", "node", "node-a", "device_uuid", "GPU-0", "instance", "scheduler-0");
        Map<String, String> detail = new java.util.HashMap<>(share);
        detail.put("container", "server");
        series.series("hami_vgpu_memory_allocated_bytes", share, t -> memory)
                .series("hami_vgpu_core_allocated_ratio", share, t -> cores)
                .series("hami_observe_vgpu_container_memory_allocated_bytes", detail, t -> memory)
                .series("hami_observe_vgpu_container_core_allocated_ratio", detail, t -> cores);
        Map<String, String> use = Map.of("cluster", cluster, "namespace", "ml", "pod", "serve-0",
                "container", "server", "node", "node-a", "device_uuid", "GPU-0", "instance", "node-a:9394");
        series.series("hami_vgpu_memory_used_bytes", use, used)
                .series("hami_container_device_utilization_ratio", use, t -> utilisation);
    }

    @AfterAll
    static void stop() {
        if (servers != null) {
            servers.close();
        }
    }

    /** The hourly group's last run before {@code at}: there the records hold every sample there is. */
    private static Instant lastHourlyRun() throws Exception {
        return History.lastRun(servers.recorded().url(), RecordingRules.Group.HOURLY_BY_CLUSTER, at);
    }

    @Test
    void rightSizingOfBothClustersAndOfOneReadsTheHourlyRecordsAndTheirFiguresStayApart() throws Exception {
        Instant run = lastHourlyRun();
        UsageHistory fromSamples = fromRaw.usage(run, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY,
                FleetScope.EVERYTHING);
        UsageHistory fromRecords = fromRecorded.usage(run, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY,
                FleetScope.EVERYTHING);
        assertFalse(fromSamples.provenance(Measure.CONTAINER_MEMORY_PEAK).expression()
                .contains(RecordingRules.CONTAINER_MEMORY_PEAK_HOURLY));
        assertTrue(fromRecords.provenance(Measure.CONTAINER_MEMORY_PEAK).expression()
                .contains(RecordingRules.CONTAINER_MEMORY_PEAK_HOURLY), "two clusters read the hourly records");
        assertTrue(fromRecords.provenance(Measure.CONTAINER_SAMPLES).expression()
                .contains(RecordingRules.CONTAINER_MEMORY_SAMPLES_HOURLY));
        List<UsageHistory.ShareHistory> records = byCluster(fromRecords);
        assertEquals(2, records.size(), records.toString());
        assertEquals(RecordingRulesTest.withoutHours(byCluster(fromSamples)), RecordingRulesTest.withoutHours(records));
        assertEquals(2 * GIB, records.get(0).memoryPeak().orElseThrow(), "east's own peak");
        assertEquals(12 * GIB, records.get(1).memoryPeak().orElseThrow(), "west's own peak");
        assertEquals(records.get(0).samples(), records.get(1).samples(), "each its own samples, not both's");

        // One cluster of the two: its records alone, the same figures as its raw series.
        UsageHistory west = fromRecorded.inCluster("west").usage(run, RightSizing.DEFAULT_WINDOW,
                RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
        assertTrue(west.provenance(Measure.CONTAINER_MEMORY_PEAK).expression()
                .contains(RecordingRules.CONTAINER_MEMORY_PEAK_HOURLY));
        assertEquals(RecordingRulesTest.withoutHours(List.of(records.get(1))), RecordingRulesTest.withoutHours(west.shares()));
        assertEquals(RecordingRulesTest.withoutHours(byCluster(fromRaw.inCluster("west").usage(run, RightSizing.DEFAULT_WINDOW,
                RightSizing.MIN_HISTORY, FleetScope.EVERYTHING))), RecordingRulesTest.withoutHours(west.shares()));
    }

    @Test
    void oneClustersFunnelReadsItsOwnRecordsAndTheFleetsAddsBothUp() throws Exception {
        Instant end = Instant.ofEpochSecond(at - 60);
        TrendSet westRecorded = fromRecorded.inCluster("west").trends(new TrendScope.Cluster(), end,
                Duration.ofHours(5), Duration.ofMinutes(10));
        TrendSet westRaw = fromRaw.inCluster("west").trends(new TrendScope.Cluster(), end,
                Duration.ofHours(5), Duration.ofMinutes(10));
        TrendSet bothRecorded = fromRecorded.trends(new TrendScope.Cluster(), end, Duration.ofHours(5),
                Duration.ofMinutes(10));
        TrendSet bothRaw = fromRaw.trends(new TrendScope.Cluster(), end, Duration.ofHours(5), Duration.ofMinutes(10));
        for (Measure measure : List.of(Measure.TREND_FUNNEL_TOTAL, Measure.TREND_FUNNEL_ALLOCATED,
                Measure.TREND_FUNNEL_ACTIVE, Measure.TREND_FUNNEL_EFFECTIVE)) {
            for (TrendSet[] pair : List.of(new TrendSet[]{westRecorded, westRaw}, new TrendSet[]{bothRecorded, bothRaw})) {
                Trend fromRecords = pair[0].of(measure).getFirst();
                Trend computed = pair[1].of(measure).getFirst();
                assertTrue(fromRecords.provenance().expression().contains("hami_observe:funnel_cards_"),
                        measure + " read from " + fromRecords.provenance().expression());
                assertFalse(computed.provenance().expression().contains("hami_observe:funnel_cards_"));
                assertEquals(Arrays.toString(computed.values()), Arrays.toString(fromRecords.values()), measure.name());
            }
        }
        // West: one card, its share half of it (cores), used at 60 %: active and effective. Both:
        // two cards (the same UUID on a node of the same name, one in each cluster), 0.3 + 0.5 blocked.
        assertEquals(1, last(westRecorded, Measure.TREND_FUNNEL_TOTAL), 1e-9);
        assertEquals(0.5, last(westRecorded, Measure.TREND_FUNNEL_ALLOCATED), 1e-9);
        assertEquals(0.5, last(westRecorded, Measure.TREND_FUNNEL_EFFECTIVE), 1e-9);
        assertEquals(2, last(bothRecorded, Measure.TREND_FUNNEL_TOTAL), 1e-9);
        assertEquals(0.8, last(bothRecorded, Measure.TREND_FUNNEL_ALLOCATED), 1e-9);
        assertEquals(0.8, last(bothRecorded, Measure.TREND_FUNNEL_ACTIVE), 1e-9);
        // East's 10 % of the card is less than half its 0.3 share: only west's is effective.
        assertEquals(0.5, last(bothRecorded, Measure.TREND_FUNNEL_EFFECTIVE), 1e-9);
    }

    @Test
    void recordsOfAnEarlierRuleFileWithoutTheClusterServeOnlyTheFleetWhole() throws Exception {
        // The same two clusters, with records as the rule file before this one wrote them where one
        // engine ran it over both: each container's hour and the funnel without the cluster (the
        // two pods of the same name as one), and only the groups' first markers.
        long base = at - HOURS.toSeconds();
        try (LocalPrometheus old = History.loaded("hami-observe-cluster-old-records", base + 30, at - 30, 60, series -> {
            cluster(series, "east", 8 * GIB, 30, t -> 2 * GIB, 10);
            cluster(series, "west", 16 * GIB, 50, t -> 6 * GIB, 60);
            Map<String, String> container = Map.of("namespace", "ml", "pod", "serve-0", "container", "server",
                    "node", "node-a", "device_uuid", "GPU-0");
            series.series(RecordingRules.CONTAINER_MEMORY_PEAK_HOURLY, container, base + 3600, at, 3600, t -> 6 * GIB)
                    .series(RecordingRules.CONTAINER_MEMORY_SAMPLES_HOURLY, container, base + 3600, at, 3600, t -> 120)
                    .series(RecordingRules.EVALUATED, Map.of("group", RecordingRules.Group.HOURLY.label),
                            base + 3600, at, 3600, t -> 1);
            long every = RecordingRules.FUNNEL_INTERVAL.toSeconds();
            series.series(RecordingRules.FUNNEL_HEALTHY, Map.of(), base + 17, at, every, t -> 2)
                    .series(RecordingRules.FUNNEL_ALLOCATED, Map.of(), base + 17, at, every, t -> 0.8)
                    .series(RecordingRules.FUNNEL_ACTIVE, Map.of(), base + 17, at, every, t -> 0.8)
                    .series(RecordingRules.FUNNEL_EFFECTIVE, Map.of(), base + 17, at, every, t -> 0.5)
                    .series(RecordingRules.EVALUATED, Map.of("group", RecordingRules.Group.FUNNEL.label),
                            base + 17, at, every, t -> 1);
        })) {
            // A read of use before any read of now (rightsize's, right after its read of now, whose
            // question about the clusters had not come back): it asks about the clusters itself,
            // and waits for that answer before it chooses the records.
            Instant when = Instant.ofEpochSecond(at - 60);
            UsageHistory first = PrometheusFleetHistory.at(old.url(), Duration.ofSeconds(20)).usage(when,
                    RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
            assertFalse(first.provenance(Measure.CONTAINER_MEMORY_PEAK).expression()
                    .contains(RecordingRules.CONTAINER_MEMORY_PEAK_HOURLY), "a first read took two clusters for one");
            assertEquals(List.of("east", "west"), first.shares().stream().map(share -> share.workload().cluster())
                    .sorted().toList());

            PrometheusFleetHistory fromOld = PrometheusFleetHistory.at(old.url(), Duration.ofSeconds(20));
            knowsBothClusters(fromOld);

            // Right-sizing of both clusters, and of one: every container's figures from its raw
            // series, never the one record that ran the two pods together.
            for (PrometheusFleetHistory history : List.of(fromOld, fromOld.inCluster("west"))) {
                UsageHistory usage = history.usage(when, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY,
                        FleetScope.EVERYTHING);
                assertFalse(usage.provenance(Measure.CONTAINER_MEMORY_PEAK).expression()
                        .contains(RecordingRules.CONTAINER_MEMORY_PEAK_HOURLY));
                assertTrue(usage.shares().stream().allMatch(share -> !share.workload().cluster().isEmpty()),
                        usage.shares().toString());
            }
            // One cluster's funnel computed; the fleet's, which sums every cluster, from the records.
            Instant end = Instant.ofEpochSecond(at - 60);
            Trend west = fromOld.inCluster("west").trends(new TrendScope.Cluster(), end, Duration.ofHours(2),
                    Duration.ofMinutes(10)).of(Measure.TREND_FUNNEL_ALLOCATED).getFirst();
            assertFalse(west.provenance().expression().contains("hami_observe:funnel_cards_"));
            assertEquals(0.5, west.values()[west.size() - 1], 1e-9);
            Trend fleet = fromOld.trends(new TrendScope.Cluster(), end, Duration.ofHours(2), Duration.ofMinutes(10))
                    .of(Measure.TREND_FUNNEL_ALLOCATED).getFirst();
            assertTrue(fleet.provenance().expression().contains("hami_observe:funnel_cards_"));
            assertEquals(0.8, fleet.values()[fleet.size() - 1], 1e-9);
        }
    }

    private static double last(TrendSet set, Measure measure) {
        double[] values = set.of(measure).getFirst().values();
        return values[values.length - 1];
    }

    private static List<UsageHistory.ShareHistory> byCluster(UsageHistory usage) {
        return usage.shares().stream().sorted(Comparator.comparing(share -> share.workload().cluster())).toList();
    }
}
