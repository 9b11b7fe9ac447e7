package io.hamiobserve.demo;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;
import io.hamiobserve.adapters.prometheus.PrometheusFleetHistory;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.WorkloadGroup;
import io.hamiobserve.domain.fleet.WorkloadRecommendation;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two-cluster demo's history in one real Prometheus: the same simulated fleet twice, one
 * labelled {@code cluster="east"}, the other {@code cluster="west"}, with the same node, pod and card
 * names (as two real clusters' often are) — the label alone keeps them apart.
 */
class DemoClustersTest {

    @Test
    void twoClustersBehindOnePrometheusAreToldApartByTheirLabel() throws Exception {
        Instant now = Instant.now();
        Instant end = now.minusSeconds(1);
        List<Path> files = new ArrayList<>();
        try {
            for (String cluster : List.of("east", "west")) {
                DemoHistory history = new DemoHistory(DemoCluster.standard(), now, cluster);
                Path file = Files.createTempFile("demo-clusters-" + cluster, ".om");
                files.add(file);
                // The last hours (as the demo loads before it starts): enough for right-sizing.
                history.writeOpenMetrics(List.of(file), end.minus(DemoPrometheus.AT_ONCE), end, true, "127.0.0.1:1",
                        Map.of(DemoCluster.NODE_A, "127.0.0.1:2", DemoCluster.NODE_B, "127.0.0.1:3"));
            }
            try (LocalPrometheus prometheus = LocalPrometheus.start(List.of(), Duration.ofMinutes(1), files,
                    Duration.ofSeconds(60))) {
                PrometheusFleetHistory history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(30));
                // The clusters are asked alongside the fleet's present (and kept a while).
                history.readings(end, FleetScope.EVERYTHING);
                for (int wait = 0; wait < 50 && history.clusters().isEmpty(); wait++) {
                    Thread.sleep(100);
                }
                assertEquals(List.of("east", "west"), history.clusters());

                UsageHistory usage = history.usage(end, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY,
                        FleetScope.EVERYTHING);
                List<WorkloadRecommendation> llm = RightSizing.byWorkload(List.of(), usage).stream()
                        .filter(row -> row.workload().ownerName().equals("llm-inference")).toList();
                assertEquals(List.of("east", "west"), llm.stream().map(row -> row.workload().cluster()).toList(),
                        llm.toString());
                for (WorkloadRecommendation row : llm) {
                    assertEquals("Deployment", row.workload().ownerKind());
                    assertEquals(2560, RightSizing.memoryMib(row.memoryPeak().orElseThrow()), row.toString());
                }

                UsageHistory west = history.inCluster("west").usage(end, RightSizing.DEFAULT_WINDOW,
                        RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
                List<WorkloadGroup> westGroups = west.shares().stream().map(UsageHistory.ShareHistory::workload)
                        .distinct().toList();
                assertTrue(westGroups.stream().anyMatch(group -> group.ownerName().equals("llm-inference")),
                        westGroups.toString());
                assertTrue(westGroups.stream().allMatch(group -> group.cluster().equals("west")), westGroups.toString());
                assertEquals(usage.shares().size(), 2 * west.shares().size(), "each cluster holds half the shares");
            }
        } finally {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }
}
