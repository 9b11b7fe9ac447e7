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
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Usage grouped by workload across its history, against a real Prometheus (promtool-loaded): a
 * Deployment rolled out mid-window (new pod names) across an upgrade of the scheduler role (the old
 * pod named by {@code hami_observe_pod_owner} beside a container info series that names no owner,
 * the new one by the owner labels of its info series alone), and a pod from an exporter too old to
 * name owners.
 */
class WorkloadHistoryTest {
    private static final double MIB = 1024 * 1024;
    private static long end;
    private static LocalPrometheus prometheus;
    private static PrometheusFleetHistory history;

    @BeforeAll
    static void start() throws Exception {
        end = (Instant.now().getEpochSecond() / 3600) * 3600 - 600;
        long start = end - 12 * 3600;
        long rollout = start + 6 * 3600;
        prometheus = History.loaded("hami-observe-workloads", start, end, 60, series -> {
            // Deployment ml/serve: pod serve-old for the first six hours, serve-new (a rollout) after.
            series.series("hami_vgpu_memory_used_bytes", use("ml", "serve-old", "server"), start,
                            rollout - 60, t -> 2000 * MIB)
                    .series("hami_vgpu_memory_used_bytes", use("ml", "serve-new", "server"), rollout,
                            t -> 2100 * MIB)
                    .series("hami_container_device_utilization_ratio", use("ml", "serve-new", "server"), rollout,
                            t -> 20)
                    .series("hami_observe_pod_owner", owner("ml", "serve-old", "Deployment", "serve"), start,
                            rollout - 60, t -> 1)
                    .series("hami_observe_container_info", Map.of("namespace", "ml", "pod", "serve-old", "node",
                            "node-a", "container_index", "0", "container", "server", "init", "false"), start,
                            rollout - 60, t -> 1)
                    .series("hami_observe_container_info", Map.of("namespace", "ml", "pod", "serve-new", "node",
                            "node-a", "container_index", "0", "container", "server", "init", "false", "owner_kind",
                            "Deployment", "owner_name", "serve"), rollout, t -> 1);
            // A bare pod whose exporter predates the owner series: its own workload.
            series.series("hami_vgpu_memory_used_bytes", use("ml", "debug", "shell"), start, t -> 500 * MIB);
        });
        history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    private static Map<String, String> use(String namespace, String pod, String container) {
        return Map.of("namespace", namespace, "pod", pod, "container", container, "node", "node-a",
                "device_uuid", "GPU-" + pod, "vdevice_index", "0");
    }

    private static Map<String, String> owner(String namespace, String pod, String kind, String name) {
        return Map.of("namespace", namespace, "pod", pod, "node", "node-a", "owner_kind", kind, "owner_name", name);
    }

    @Test
    void aRolloutMidWindowIsOneWorkloadWithTheHoursOfBothPods() throws Exception {
        UsageHistory usage = history.usage(Instant.ofEpochSecond(end), Duration.ofDays(1), RightSizing.MIN_HISTORY,
                FleetScope.EVERYTHING);
        WorkloadGroup serve = new WorkloadGroup("", "ml", "Deployment", "serve", "server");
        // Each pod alone has six hours; the workload has twelve (the owner joined at each hour).
        long hours = usage.workloadHours().get(serve);
        assertTrue(hours >= 12 && hours <= 13, "the workload's hours: " + hours);
        usage.shares().stream().filter(share -> share.pod().startsWith("serve-")).forEach(share -> {
            assertEquals(serve, share.workload(), share.pod());
            assertTrue(share.hours() >= 6 && share.hours() <= 7, share.pod() + ": " + share.hours());
        });

        List<WorkloadRecommendation> all = RightSizing.byWorkload(List.of(), usage);
        assertEquals(2, all.size(), "the Deployment's container and the bare pod: " + all);
        WorkloadRecommendation deployment = all.stream().filter(each -> each.workload().equals(serve)).findFirst()
                .orElseThrow();
        assertEquals(List.of("serve-new", "serve-old"), deployment.pods());
        assertEquals(2100 * MIB, deployment.memoryPeak().orElseThrow());
        assertEquals(2560, deployment.memoryMib().orElseThrow());
        assertEquals(hours / 24.0, deployment.historyDays().orElseThrow(), 1e-9);
        assertTrue(deployment.memoryUpperMib().orElseThrow() > 2560, "half a day of history widens the upper bound");

        WorkloadRecommendation bare = all.stream().filter(each -> each.workload().isBarePod()).findFirst().orElseThrow();
        assertEquals(WorkloadGroup.barePod("", "ml", "debug", "shell"), bare.workload());
    }
}
