package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.Funnel;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The funnel's "effective" (a share using at least {@link Funnel#EFFECTIVE} of its size) on a real
 * Prometheus, at its edge: the query compares the size with the use instead of joining the size
 * with itself, and must count exactly the shares the domain's rule counts, a share using exactly
 * half included and one a hair under it left out, as the expression it replaced did.
 */
class FunnelEffectiveTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static long end;
    private static LocalPrometheus prometheus;
    private static PrometheusFleetHistory history;
    private static PrometheusApi api;

    @BeforeAll
    static void startPrometheus() throws Exception {
        end = (Instant.now().getEpochSecond() / 60) * 60 - 60;
        prometheus = History.loaded("hami-observe-funnel", end - 3600, end, 60, series -> {
            series.series("hami_gpu_memory_limit_bytes", Map.of("node", "node-a", "device_uuid", "GPU-A0",
                    "device_index", "0", "device_type", "NVIDIA A100"), t -> 40 * GIB);
            // Size 0.2 (memory, the larger), using 10 %: exactly half of it.
            share(series, "half", 8 * GIB, 10, 10.0);
            // Size 0.3, using 14.9 %: a hair under half.
            share(series, "under", 12 * GIB, 0, 14.9);
            // Size 0.4 (cores, the larger), using 20 %: exactly half of it.
            share(series, "cores", 4 * GIB, 40, 20.0);
            // Size 0.1 and no utilisation reported: not effective.
            share(series, "silent", 4 * GIB, 0, Double.NaN);
        });
        history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
        api = new PrometheusApi(prometheus.url(), Duration.ofSeconds(20));
    }

    private static void share(History series, String pod, double memory, double cores, double utilisation)
            throws Exception {
        Map<String, String> share = Map.of("namespace", "ml", "pod", pod, "container_index", "0",
                "container", "main", "node", "node-a", "device_uuid", "GPU-A0");
        series.series("hami_observe_vgpu_container_memory_allocated_bytes", share, t -> memory)
                .series("hami_observe_vgpu_container_core_allocated_ratio", share, t -> cores);
        if (!Double.isNaN(utilisation)) {
            series.series("hami_container_device_utilization_ratio", Map.of("namespace", "ml", "pod", pod,
                    "container", "main", "node", "node-a", "device_uuid", "GPU-A0"), t -> utilisation);
        }
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    @Test
    void aShareUsingExactlyHalfItsSizeIsEffectiveAndOneAHairUnderIsNot() throws Exception {
        TrendSet trends = history.trends(new TrendScope.Cluster(), Instant.ofEpochSecond(end), Duration.ofMinutes(10),
                Duration.ofMinutes(1));
        Trend allocated = trends.of(Measure.TREND_FUNNEL_ALLOCATED).getFirst();
        Trend effective = trends.of(Measure.TREND_FUNNEL_EFFECTIVE).getFirst();
        assertEquals(0.2 + 0.3 + 0.4 + 0.1, allocated.at(allocated.size() - 1).orElseThrow(), 1e-12);
        // "half" and "cores", as Funnel's own rule (used ≥ EFFECTIVE × allocated) counts them.
        assertEquals(Funnel.EFFECTIVE, 0.5);
        assertEquals(0.2 + 0.4, effective.at(effective.size() - 1).orElseThrow(), 1e-12);
    }

    @Test
    void theComparisonGivesTheFigureTheSelfJoinGaveToTheLastBit() throws Exception {
        PromQl.Label cluster = new PromQl.Label(RecordingRules.CLUSTER_LABEL);
        String query = FleetQueries.FUNNEL_EFFECTIVE.bind("cluster", cluster).expression();
        // The rule as it was written first: the size kept where the use ÷ 100 is at least half the size.
        String selfJoin = new PromQl.Template("self_join", FleetQueries.funnelSizeMetWithUse(by -> "max by (" + by
                + ") (hami_container_device_utilization_ratio) / 100", (use, size, on) -> "(" + size + " and " + on
                + " (" + use + " >= " + on + " group_right 0.5 * " + size + "))")).bind("cluster", cluster).expression();
        assertEquals(instant(selfJoin), instant(query));
        assertEquals(0.2 + 0.4, instant(query), 1e-12);
    }

    private static double instant(String expression) throws Exception {
        return History.valueAt(api, expression, end);
    }
}
