package io.hamiobserve.adapters.prometheus;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
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
 * share is counted once, under one of its names, its use under the same one. A pod without the
 * detail meets its use by pod and card, a sidecar's outside HAMi-Core included.
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
            share(series, "db-0");
            series.series("hami_observe_container_info", info("db-0", "postgres"), start, end - 120, t -> 1)
                    .series("hami_observe_container_info", info("db-0", "pg"), end - 120, t -> 1)
                    .series("hami_container_device_utilization_ratio", Map.of("namespace", "data", "pod", "db-0",
                            "container", "pg", "node", "node-a", "device_uuid", "GPU-B0"), end - 120, t -> 15);
            // cache-0, as large, unused, renamed from "redis" to "kv" eight minutes before the end:
            // the last ten minutes' first step knows "redis" alone, the last three "kv" alone.
            share(series, "cache-0");
            series.series("hami_observe_container_info", info("cache-0", "redis"), start, end - 480, t -> 1)
                    .series("hami_observe_container_info", info("cache-0", "kv"), end - 480, t -> 1);
            // web-0, as large, its one share-holding container "app" using 10 % of the card and a
            // sidecar outside HAMi-Core ("proxy", from the driver's processes) using it at 30 %:
            // both are the pod's use of the card its share holds.
            share(series, "web-0");
            series.series("hami_observe_container_info", info("web-0", "app"), t -> 1);
            for (Map.Entry<String, Double> container : Map.of("app", 10.0, "proxy", 30.0).entrySet()) {
                series.series("hami_container_device_utilization_ratio", Map.of("namespace", "data", "pod", "web-0",
                        "container", container.getKey(), "node", "node-a", "device_uuid", "GPU-B0"),
                        t -> container.getValue());
            }
        });
        api = new PrometheusApi(prometheus.url(), Duration.ofSeconds(20));
    }

    /** A pod's one container at position 0 holding 8 GiB and 10 % of the card, as HAMi's series say it. */
    private static void share(History series, String pod) throws IOException {
        series.series("hami_vgpu_memory_allocated_bytes", Map.of("namespace", "data", "pod", pod,
                        "container_index", "0", "node", "node-a", "device_uuid", "GPU-B0", "zone", "vGPU"),
                        t -> 8 * GIB)
                .series("hami_vgpu_core_allocated_ratio", Map.of("namespace", "data", "pod", pod,
                        "container_index", "0", "node", "node-a", "device_uuid", "GPU-B0", "zone", "vGPU"),
                        t -> 10);
    }

    private static Map<String, String> info(String pod, String container) {
        return Map.of("namespace", "data", "pod", pod, "node", "node-a", "container_index", "0",
                "container", container, "init", "false", "owner_kind", "StatefulSet", "owner_name",
                pod.substring(0, pod.indexOf('-')));
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
        // each share sized once (0.2 of the card: 8 GiB of 40); db-0, used by its new name (15 %
        // of the card, more than half its size), and web-0 (its sidecar's 30 %) active and effective.
        assertEquals(0.6, instant(FleetQueries.FUNNEL_ALLOCATED.bind("cluster", new PromQl.Label("cluster"))), 1e-12);
        assertEquals(0.4, instant(FleetQueries.FUNNEL_ACTIVE.bind("cluster", new PromQl.Label("cluster"))), 1e-12);
        assertEquals(0.4, instant(FleetQueries.FUNNEL_EFFECTIVE.bind("cluster", new PromQl.Label("cluster"))), 1e-12);

        // Showback's card-seconds allocated, memory and cores over the last ten minutes (left end
        // open, as its rules take an hour), raw: integrated by the share's position and named once
        // at the end, so one series a share, 0.2 of the card for 600 s, under one of its names
        // (topk among equals: for db-0 a CI run kept "pg", local runs "postgres"). Named at each
        // step, cache-0's minutes went to "redis" before the rename and to "kv" after it: two.
        FleetQueries.CardHourQueries cardHours = FleetQueries.cardHours("cluster");
        Map<FleetQueries.Integral, Double> perSecond = Map.of(cardHours.allocated(), 0.2, cardHours.memory(), 8 * GIB,
                cardHours.cores(), 10.0);
        Map<String, List<String>> names = Map.of("db-0", List.of("postgres", "pg"), "cache-0", List.of("redis", "kv"),
                "web-0", List.of("app"));
        Map<String, String> allocatedAs = new java.util.HashMap<>();
        for (Map.Entry<FleetQueries.Integral, Double> integral : perSecond.entrySet()) {
            List<PrometheusApi.Sample> shares = raw(integral.getKey());
            for (Map.Entry<String, List<String>> pod : names.entrySet()) {
                PrometheusApi.Sample share = onlyOf(shares, pod.getKey(), integral.getKey());
                assertEquals(integral.getValue() * 600, share.value(), 1e-9 * integral.getValue() * 600,
                        integral.getKey().name() + ": " + shares);
                assertTrue(pod.getValue().contains(share.labels().get("container")),
                        integral.getKey().name() + ": " + shares);
                if (integral.getKey() == cardHours.allocated()) {
                    allocatedAs.put(pod.getKey(), share.labels().get("container"));
                }
            }
        }

        // Card-seconds used, named once as the allocation is, so a share's use and allocation are
        // one row: db-0 15 % of the card for the three steps its utilisation is seen (its new name
        // only; named at each step, the steps that kept "postgres" lost it, or the use and the
        // allocation fell under two names), web-0 its size (the larger of its containers' use, 30 %,
        // held to 0.2) for all ten, under its share's name, not the sidecar's. cache-0 used nothing.
        List<PrometheusApi.Sample> used = raw(cardHours.used());
        PrometheusApi.Sample db = onlyOf(used, "db-0", cardHours.used());
        assertEquals(0.15 * 180, db.value(), 1e-9, used.toString());
        assertEquals(allocatedAs.get("db-0"), db.labels().get("container"), used.toString());
        PrometheusApi.Sample web = onlyOf(used, "web-0", cardHours.used());
        assertEquals(0.2 * 600, web.value(), 1e-9, used.toString());
        assertEquals("app", web.labels().get("container"), used.toString());
        assertEquals(2, used.size(), used.toString());
    }

    /** An integral's raw query over the last ten minutes (left end open, as its rules take an hour), at one-minute steps. */
    private static List<PrometheusApi.Sample> raw(FleetQueries.Integral integral) throws Exception {
        return PrometheusApi.await(api.instant(integral.raw().bind(Map.of("window", Duration.ofMinutes(10).minusMillis(1),
                "step", Duration.ofMinutes(1), "stepSeconds", 60)), Instant.ofEpochSecond(end)));
    }

    private static PrometheusApi.Sample onlyOf(List<PrometheusApi.Sample> shares, String pod,
                                               FleetQueries.Integral integral) {
        List<PrometheusApi.Sample> ofPod = shares.stream().filter(share -> share.labels().get("pod").equals(pod)).toList();
        assertEquals(1, ofPod.size(), integral.name() + ": " + shares);
        return ofPod.getFirst();
    }
}
