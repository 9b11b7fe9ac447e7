package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Measure;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On a real Prometheus, a read of the whole fleet's now asks again only for the container series of
 * the nodes whose allocation fingerprints moved ({@link KeptContainers}): a node whose fingerprint
 * stays is taken as it was kept, which this history shows by changing node-b's share without its
 * fingerprint (a fingerprint never does that; here it makes the reuse visible). A node named like a
 * regular expression is asked for as itself: unescaped, its name would select every node. Every
 * series carries a {@code cluster} label, as one of several clusters' in one engine does.
 */
class NodeFingerprintReadTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final String HOSTILE = "n.*|x";
    private static long end;
    private static long changeA;
    private static long changeHostile;
    private static LocalPrometheus prometheus;

    @BeforeAll
    static void startPrometheus() throws Exception {
        end = (Instant.now().getEpochSecond() / 60) * 60 - 60;
        long start = end - 3600;
        changeA = end - 1200;
        changeHostile = end - 600;
        prometheus = History.loaded("hami-observe-node-fingerprints", start, end, 60, series -> {
            share(series, "node-a", "a-0", start, t -> 8 * GIB);
            share(series, "node-a", "a-1", changeA, t -> 4 * GIB);
            fingerprint(series, "node-a", t -> t < changeA ? 1 : 2);
            share(series, "node-b", "b-0", start, t -> t < changeA ? 8 * GIB : 6 * GIB);
            fingerprint(series, "node-b", t -> 5);
            share(series, HOSTILE, "h-0", start, t -> t < changeHostile ? 8 * GIB : 2 * GIB);
            fingerprint(series, HOSTILE, t -> t < changeHostile ? 9 : 10);
        });
    }

    @AfterAll
    static void stopPrometheus() {
        prometheus.close();
    }

    private static void share(History series, String node, String pod, long from,
                              java.util.function.LongToDoubleFunction bytes) throws IOException {
        Map<String, String> share = Map.of("namespace", "ml", "pod", pod, "container_index", "0", "node", node,
                "device_uuid", "GPU-" + node, "cluster", "east");
        series.series("hami_vgpu_memory_allocated_bytes", share, from, bytes)
                .series("hami_vgpu_core_allocated_ratio", share, from, t -> 10)
                .series("hami_observe_container_info", Map.of("namespace", "ml", "pod", pod, "node", node,
                        "container_index", "0", "container", "main-" + pod, "init", "false", "owner_kind", "Pod",
                        "owner_name", pod, "cluster", "east"), from, t -> 1);
    }

    private static void fingerprint(History series, String node, java.util.function.LongToDoubleFunction value)
            throws IOException {
        series.series("hami_observe_node_allocations_fingerprint", Map.of("node", node, "instance", "scheduler:9395",
                "cluster", "east"), value);
    }

    private static Map<String, Double> gibByPod(FleetReadings readings) {
        Map<String, Double> pods = new TreeMap<>();
        readings.allocations().forEach(share -> pods.put(share.pod(), share.memory().asOptional().orElse(-1) / GIB));
        return pods;
    }

    @Test
    void onlyChangedNodesAreReadAgainAndTheRestIsTakenAsKept() throws Exception {
        PrometheusFleetHistory history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
        Instant beforeAnyChange = Instant.ofEpochSecond(changeA - 300);
        Instant afterA = Instant.ofEpochSecond(changeA + 300);
        Instant afterHostile = Instant.ofEpochSecond(changeHostile + 300);
        assertEquals(Map.of("a-0", 8.0, "b-0", 8.0, "h-0", 8.0),
                gibByPod(history.readings(beforeAnyChange, FleetScope.EVERYTHING)));

        // node-a's fingerprint moved: its new pod is read, with its name; node-b's share is the kept one.
        FleetReadings afterAChanged = history.readings(afterA, FleetScope.EVERYTHING);
        assertEquals(Map.of("a-0", 8.0, "a-1", 4.0, "b-0", 8.0, "h-0", 8.0), gibByPod(afterAChanged));
        assertTrue(afterAChanged.names().stream().anyMatch(name -> name.container().equals("main-a-1")));
        // What the engine says of node-b now, read by a history that kept nothing.
        PrometheusFleetHistory fresh = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
        assertEquals(Map.of("a-0", 8.0, "a-1", 4.0, "b-0", 6.0, "h-0", 8.0),
                gibByPod(fresh.readings(afterA, FleetScope.EVERYTHING)));
        // The figures say which query they answer: the one over every node, part of it kept.
        String listed = afterAChanged.provenance().get(Measure.CONTAINER_MEMORY_ALLOCATED).expression();
        assertFalse(listed.contains("node=~"), listed);

        // The node named like a regular expression is read as itself: node-b is still the kept share.
        assertEquals(Map.of("a-0", 8.0, "a-1", 4.0, "b-0", 8.0, "h-0", 2.0),
                gibByPod(history.readings(afterHostile, FleetScope.EVERYTHING)));

        // Every tenth read reads every node: reads 4 to 10 keep node-b's share, read 11 does not.
        for (int read = 4; read <= KeptContainers.FULL_READ_EVERY; read++) {
            assertEquals(8.0, gibByPod(history.readings(afterHostile, FleetScope.EVERYTHING)).get("b-0"),
                    "read " + read);
        }
        assertEquals(6.0, gibByPod(history.readings(afterHostile, FleetScope.EVERYTHING)).get("b-0"));
    }

    @Test
    void aNodeNamedLikeARegularExpressionSelectsItselfAlone() throws Exception {
        PrometheusApi api = new PrometheusApi(prometheus.url(), Duration.ofSeconds(20));
        PromQl.Query narrowed = new PromQl.Query("count", PromQl.narrowedToAny(
                "count(hami_vgpu_memory_allocated_bytes)", "node", java.util.List.of(HOSTILE, "node-\\")));
        // Read unescaped, "n.*|x" would select every node's share: three.
        assertEquals(1.0, api.instant(narrowed, Instant.ofEpochSecond(end)).join().get(0).value());
    }

    @Test
    void aScopeOtherThanTheWholeFleetKeepsNothing() throws Exception {
        PrometheusFleetHistory history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
        history.readings(Instant.ofEpochSecond(changeA - 300), FleetScope.EVERYTHING);
        assertEquals(Map.of("b-0", 6.0), gibByPod(history.readings(Instant.ofEpochSecond(changeA + 300),
                new FleetScope.OnNode("node-b"))));
    }
}
