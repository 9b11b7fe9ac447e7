package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.WorkloadGroup;
import io.hamiobserve.domain.fleet.WorkloadRecommendation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two clusters in one engine (a real Prometheus, promtool-loaded) running the same Deployment under
 * the same names: namespace ml, pod serve-0, container server. Their histories stay apart: two
 * recommendations, each with its cluster's peak and hours, never one lent the other's.
 */
class ClusterWorkloadsTest {
    private static final double MIB = 1024 * 1024;
    private static long end;
    private static LocalPrometheus prometheus;
    private static PrometheusFleetHistory history;

    @BeforeAll
    static void start() throws Exception {
        end = (Instant.now().getEpochSecond() / 3600) * 3600 - 600;
        long start = end - 12 * 3600;
        prometheus = History.loaded("hami-observe-cluster-workloads", start, end, 60, series -> {
            series.series("hami_vgpu_memory_used_bytes", use("east"), t -> 2000 * MIB)
                    .series("hami_observe_pod_owner", owner("east"), t -> 1)
                    // West's replica ran only the last four hours, at a larger size.
                    .series("hami_vgpu_memory_used_bytes", use("west"), end - 4 * 3600, t -> 6000 * MIB)
                    .series("hami_observe_pod_owner", owner("west"), end - 4 * 3600, t -> 1);
        });
        history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    private static Map<String, String> use(String cluster) {
        return Map.of("cluster", cluster, "namespace", "ml", "pod", "serve-0", "container", "server",
                "node", "node-a", "device_uuid", "GPU-0", "vdevice_index", "0");
    }

    private static Map<String, String> owner(String cluster) {
        return Map.of("cluster", cluster, "namespace", "ml", "pod", "serve-0", "node", "node-a",
                "owner_kind", "Deployment", "owner_name", "serve");
    }

    @Test
    void theSameNamedWorkloadInTwoClustersIsTwoRecommendations() throws Exception {
        UsageHistory usage = history.usage(Instant.ofEpochSecond(end), Duration.ofDays(1), RightSizing.MIN_HISTORY,
                FleetScope.EVERYTHING);
        WorkloadGroup east = new WorkloadGroup("east", "ml", "Deployment", "serve", "server");
        WorkloadGroup west = new WorkloadGroup("west", "ml", "Deployment", "serve", "server");
        assertEquals(2, usage.shares().size(), usage.shares().toString());
        Map<WorkloadGroup, Double> peaks = new HashMap<>();
        usage.shares().forEach(share -> peaks.put(share.workload(), share.memoryPeak().orElseThrow()));
        assertEquals(Map.of(east, 2000 * MIB, west, 6000 * MIB), peaks);
        long eastHours = usage.workloadHours().get(east);
        long westHours = usage.workloadHours().get(west);
        assertTrue(eastHours >= 12 && eastHours <= 13, "east's hours: " + eastHours);
        assertTrue(westHours >= 4 && westHours <= 5, "west's hours: " + westHours);

        List<WorkloadRecommendation> recommendations = RightSizing.byWorkload(List.of(), usage);
        assertEquals(List.of(east, west), recommendations.stream().map(WorkloadRecommendation::workload).toList());
        assertEquals(2000 * MIB, recommendations.get(0).memoryPeak().orElseThrow());
        assertEquals(6000 * MIB, recommendations.get(1).memoryPeak().orElseThrow());
    }

    @Test
    void oneClusterReadsOnlyItsWorkload() throws Exception {
        UsageHistory west = history.inCluster("west").usage(Instant.ofEpochSecond(end), Duration.ofDays(1),
                RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
        assertEquals(List.of(new WorkloadGroup("west", "ml", "Deployment", "serve", "server")),
                west.shares().stream().map(UsageHistory.ShareHistory::workload).toList());
        assertEquals(6000 * MIB, west.shares().getFirst().memoryPeak().orElseThrow());
    }
}
