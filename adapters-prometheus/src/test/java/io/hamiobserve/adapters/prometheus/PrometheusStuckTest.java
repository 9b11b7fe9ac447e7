package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Stuck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stuck list read from a real Prometheus: ghost allocations joined with their size, zombies
 * (memory outside HAMi-Core no share of the card covers, not a pod's own card) with their first
 * moment and card, shares idle past the threshold, pending pods with their oldest wait.
 */
class PrometheusStuckTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final String HOSTILE_POD = "p\"} or up{x=\"";
    private static long end;
    private static LocalPrometheus prometheus;
    private static PrometheusFleetHistory history;

    @BeforeAll
    static void start() throws Exception {
        end = (Instant.now().getEpochSecond() / 60) * 60 - 120;
        long start = end - 3600;
        prometheus = History.loaded("hami-observe-stuck", start, end, 60, series -> {
            Map<String, String> held = Map.of("namespace", "ml", "pod", "held", "node", "n1", "device_uuid", "GPU-1",
                    "reason", "deleting");
            Map<String, String> pulling = Map.of("namespace", "cv", "pod", HOSTILE_POD, "node", "n1",
                    "device_uuid", "GPU-1", "reason", "never_started");
            Map<String, String> noPod = Map.of("node", "n1", "device_uuid", "GPU-1", "namespace", "", "pod", "",
                    "container", "");
            Map<String, String> sim = Map.of("node", "n1", "device_uuid", "GPU-1", "namespace", "ml", "pod", "sim",
                    "container", "c");
            Map<String, String> stray = Map.of("node", "n1", "device_uuid", "GPU-1", "namespace", "ml", "pod", "stray",
                    "container", "c");
            series.series("hami_observe_ghost_allocation_since_timestamp_seconds", held, t -> end - 7200)
                    .series("hami_observe_ghost_allocation_cards", held, t -> 0.5)
                    .series("hami_observe_ghost_allocation_since_timestamp_seconds", pulling, t -> end - 600)
                    .series("hami_observe_unmanaged_memory_bytes", noPod, t -> 4 * GIB)
                    .series("hami_observe_unmanaged_first_seen_timestamp_seconds", noPod, t -> end - 3600)
                    .series("hami_observe_unmanaged_memory_bytes", sim, t -> 2 * GIB)
                    .series("hami_vgpu_memory_allocated_bytes", Map.of("namespace", "ml", "pod", "sim", "node", "n1",
                            "container_index", "0", "device_uuid", "GPU-1"), t -> 2 * GIB)
                    .series("hami_observe_unmanaged_memory_bytes", stray, t -> GIB)
                    .series("hami_vgpu_memory_allocated_bytes", Map.of("namespace", "ml", "pod", "stray", "node", "n1",
                            "container_index", "0", "device_uuid", "GPU-2"), t -> GIB)
                    .series("hami_gpu_memory_limit_bytes", Map.of("node", "n1", "device_uuid", "GPU-1",
                            "device_index", "0", "device_type", "NVIDIA A100"), t -> 40 * GIB)
                    .series("hami_container_last_kernel_elapsed_seconds", Map.of("namespace", "ml", "pod", "nb",
                            "container", "lab", "node", "n1", "vdevice_index", "0", "device_uuid", "GPU-1"),
                            t -> 2 * 86400)
                    .series("hami_container_last_kernel_elapsed_seconds", Map.of("namespace", "ml", "pod", "busy",
                            "container", "c", "node", "n1", "vdevice_index", "0", "device_uuid", "GPU-1"), t -> 3600)
                    .series("hami_observe_pending_gpu_pods", Map.of("namespace", "ml", "reason",
                            "insufficient_memory"), t -> 3)
                    .series("hami_observe_pending_gpu_pod_oldest_wait_seconds", Map.of("namespace", "ml", "reason",
                            "insufficient_memory"), t -> 5400);
        });
        history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    @Test
    void theStuckListIsReadJoinedAndSized() throws Exception {
        Instant at = Instant.ofEpochSecond(end);
        Stuck stuck = history.stuck(at, Duration.ofHours(24));
        assertEquals(List.of(
                new Stuck.GhostShare("ml", "held", "n1", "GPU-1", "deleting", end - 7200, OptionalDouble.of(0.5)),
                new Stuck.GhostShare("cv", HOSTILE_POD, "n1", "GPU-1", "never_started", end - 600,
                        OptionalDouble.empty())), stuck.ghosts());
        assertEquals(1.0, stuck.ghosts().get(0).cardHours(at).orElseThrow(), 1e-9);
        // A process of no known pod and a pod's process on a card it holds no share of; not the pod on its own card.
        assertEquals(List.of(
                new Stuck.Zombie("n1", "GPU-1", "", "", "", 4 * GIB, OptionalDouble.of(end - 3600),
                        OptionalDouble.of(40 * GIB)),
                new Stuck.Zombie("n1", "GPU-1", "ml", "stray", "c", GIB, OptionalDouble.empty(),
                        OptionalDouble.of(40 * GIB))), stuck.zombies());
        assertEquals(0.1, stuck.zombies().get(0).cardHours(at).orElseThrow(), 1e-9);
        assertEquals(List.of(new Stuck.Idle("ml", "nb", "lab", "n1", "GPU-1", 2 * 86400)), stuck.idle());
        assertEquals(List.of(new Stuck.PendingGroup("ml", "insufficient_memory", 3, 5400)), stuck.pending());
        assertTrue(stuck.provenance().get(Measure.ZOMBIE_MEMORY).expression()
                .contains("unless on (namespace, pod, device_uuid) hami_vgpu_memory_allocated_bytes"));
        assertTrue(history.stuck(at, Duration.ofHours(72)).idle().isEmpty(), "the threshold is the caller's");
    }
}
