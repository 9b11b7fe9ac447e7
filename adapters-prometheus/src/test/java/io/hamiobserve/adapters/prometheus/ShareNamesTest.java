package io.hamiobserve.adapters.prometheus;

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
 * A share without the per-container detail is named by its container's info series
 * ({@link ShareSeries#named}), on a real Prometheus, where the engine holds two names for one
 * position: a StatefulSet's pod recreated under its own name with its container renamed, both info
 * series within the lookback. The join keeps one name, so the funnel and showback still read (two
 * names would make Prometheus refuse every query that names shares, for the whole fleet), and the
 * share is counted once, under one of its names.
 */
class ShareNamesTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static long end;
    private static LocalPrometheus prometheus;
    private static PrometheusApi api;

    @BeforeAll
    static void startPrometheus() throws Exception {
        end = (Instant.now().getEpochSecond() / 60) * 60 - 60;
        long start = end - 3600;
        prometheus = History.loaded("hami-observe-share-names", start, end, 60, series -> {
            series.series("hami_gpu_memory_limit_bytes", Map.of("node", "node-a", "device_uuid", "GPU-B0",
                    "device_index", "0", "device_type", "NVIDIA A100"), t -> 40 * GIB);
            // db-0, one container holding 8 GiB of the card (HAMi's series, no detail), renamed from
            // "postgres" to "pg" two minutes before the end: both names within five minutes.
            series.series("hami_vgpu_memory_allocated_bytes", Map.of("namespace", "data", "pod", "db-0",
                            "container_index", "0", "node", "node-a", "device_uuid", "GPU-B0", "zone", "vGPU"),
                            t -> 8 * GIB)
                    .series("hami_vgpu_core_allocated_ratio", Map.of("namespace", "data", "pod", "db-0",
                            "container_index", "0", "node", "node-a", "device_uuid", "GPU-B0", "zone", "vGPU"),
                            t -> 10)
                    .series("hami_observe_container_info", info("postgres"), start, end - 120, t -> 1)
                    .series("hami_observe_container_info", info("pg"), end - 120, t -> 1)
                    .series("hami_container_device_utilization_ratio", Map.of("namespace", "data", "pod", "db-0",
                            "container", "pg", "node", "node-a", "device_uuid", "GPU-B0"), end - 120, t -> 15);
        });
        api = new PrometheusApi(prometheus.url(), Duration.ofSeconds(20));
    }

    private static Map<String, String> info(String container) {
        return Map.of("namespace", "data", "pod", "db-0", "node", "node-a", "container_index", "0",
                "container", container, "init", "false", "owner_kind", "StatefulSet", "owner_name", "db");
    }

    private static double instant(PromQl.Query query) throws Exception {
        List<PrometheusApi.Sample> answer = PrometheusApi.await(api.instant(query, Instant.ofEpochSecond(end)));
        assertEquals(1, answer.size(), query.expression() + ": " + answer);
        return answer.getFirst().value();
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    @Test
    void aPositionNamedTwiceInTheLookbackIsOneShareAndEveryQueryReads() throws Exception {
        // The funnel's expressions (its rules' and its raw trend's) at the end: read, not refused,
        // the share sized once (0.2 of the card: 8 GiB of 40) and, used by its new name (15 % of
        // the card, more than half its size), active and effective.
        assertEquals(0.2, instant(FleetQueries.FUNNEL_ALLOCATED.plain()), 1e-12);
        assertEquals(0.2, instant(FleetQueries.FUNNEL_ACTIVE.plain()), 1e-12);
        assertEquals(0.2, instant(FleetQueries.FUNNEL_EFFECTIVE.plain()), 1e-12);

        // Showback's allocated card-seconds over the last ten minutes (left end open, as its rules
        // take an hour), raw: integrated by the share's position and named once at the end, so one
        // share, 0.2 of the card for 600 s, under either of its two names (topk among equals: a CI
        // run kept "pg", local runs "postgres"). Named at each step instead, the seven minutes
        // before the rename went to "postgres" and the rest to either: two series.
        FleetQueries.Integral allocatedSeconds = FleetQueries.cardHours("cluster").allocated();
        List<PrometheusApi.Sample> shares = PrometheusApi.await(api.instant(allocatedSeconds.raw().bind(Map.of(
                "window", Duration.ofMinutes(10).minusMillis(1), "step", Duration.ofMinutes(1), "stepSeconds", 60)),
                Instant.ofEpochSecond(end)));
        assertEquals(1, shares.size(), String.valueOf(shares));
        assertEquals(0.2 * 600, shares.getFirst().value(), 1e-9);
        assertTrue(List.of("postgres", "pg").contains(shares.getFirst().labels().get("container")),
                String.valueOf(shares));
    }
}
