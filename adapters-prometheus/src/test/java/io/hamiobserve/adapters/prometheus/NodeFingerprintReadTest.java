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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On a real Prometheus, a read of the whole fleet's now asks again only for the container series of
 * the nodes whose allocation fingerprints moved ({@link KeptNodeSeries}): a node whose fingerprint
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
            // node-a's card takes its new share with its fingerprint; node-b's moves without it.
            card(series, "node-a", t -> t < changeA ? 8 * GIB : 12 * GIB);
            cardsFingerprint(series, "node-a", t -> t < changeA ? 21 : 22);
            card(series, "node-b", t -> t < changeA ? 8 * GIB : 6 * GIB);
            cardsFingerprint(series, "node-b", t -> 25);
            card(series, HOSTILE, t -> t < changeHostile ? 8 * GIB : 2 * GIB);
            cardsFingerprint(series, HOSTILE, t -> t < changeHostile ? 29 : 30);
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

    /** A node's one card: its size, what its shares hold, its limits, shares and health. */
    private static void card(History series, String node, java.util.function.LongToDoubleFunction allocated)
            throws IOException {
        Map<String, String> card = Map.of("node", node, "device_uuid", "GPU-" + node, "device_index", "0",
                "device_type", "NVIDIA-A100", "instance", "scheduler:9395", "cluster", "east");
        series.series("hami_gpu_memory_limit_bytes", card, t -> 40 * GIB)
                .series("hami_gpu_memory_allocated_bytes", card, allocated)
                .series("hami_gpu_core_limit_ratio", card, t -> 100)
                .series("hami_gpu_core_allocated_ratio", card, t -> 10)
                .series("hami_gpu_shared_count", card, t -> 1)
                .series("hami_observe_gpu_share_limit", card, t -> 10);
        Map<String, String> health = new TreeMap<>(card);
        health.put("mode", "hami-core");
        series.series("hami_observe_gpu_healthy", health, t -> 1);
    }

    private static void cardsFingerprint(History series, String node, java.util.function.LongToDoubleFunction value)
            throws IOException {
        series.series("hami_observe_node_cards_fingerprint", Map.of("node", node, "instance", "scheduler:9395",
                "cluster", "east"), value);
    }

    private static Map<String, Double> allocatedGibByCard(FleetReadings readings) {
        Map<String, Double> cards = new TreeMap<>();
        readings.registered().forEach(card -> cards.put(card.uuid(),
                card.memoryAllocated().asOptional().orElse(-1) / GIB));
        return cards;
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
        for (int read = 4; read <= KeptNodeSeries.FULL_READ_EVERY; read++) {
            assertEquals(8.0, gibByPod(history.readings(afterHostile, FleetScope.EVERYTHING)).get("b-0"),
                    "read " + read);
        }
        assertEquals(6.0, gibByPod(history.readings(afterHostile, FleetScope.EVERYTHING)).get("b-0"));
    }

    @Test
    void onlyChangedNodesCardsAreReadAgainAndTheRestAreTakenAsKept() throws Exception {
        PrometheusFleetHistory history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
        Instant afterA = Instant.ofEpochSecond(changeA + 300);
        Instant afterHostile = Instant.ofEpochSecond(changeHostile + 300);
        assertEquals(Map.of("GPU-node-a", 8.0, "GPU-node-b", 8.0, "GPU-" + HOSTILE, 8.0),
                allocatedGibByCard(history.readings(Instant.ofEpochSecond(changeA - 300), FleetScope.EVERYTHING)));
        // node-a's cards' fingerprint moved: its card is read again; node-b's is the kept one.
        FleetReadings afterAChanged = history.readings(afterA, FleetScope.EVERYTHING);
        assertEquals(Map.of("GPU-node-a", 12.0, "GPU-node-b", 8.0, "GPU-" + HOSTILE, 8.0),
                allocatedGibByCard(afterAChanged));
        // Every figure of a kept card is kept with it, the other seven as well as the allocation.
        FleetReadings.Registered b = afterAChanged.registered().stream()
                .filter(card -> card.node().equals("node-b")).findFirst().orElseThrow();
        assertEquals(List.of(40.0, 100.0, 10.0, 1.0, 10.0, 1.0), List.of(b.memoryTotal().orElseThrow() / GIB,
                b.coresTotal().orElseThrow(), b.coresAllocated().orElseThrow(), b.slotsUsed().orElseThrow(),
                b.slotsTotal().orElseThrow(), b.healthy().orElseThrow()));
        assertEquals(List.of("east", "hami-core"), List.of(b.cluster(), b.mode()));
        // A history that kept nothing reads what the engine says of node-b's card now.
        assertEquals(Map.of("GPU-node-a", 12.0, "GPU-node-b", 6.0, "GPU-" + HOSTILE, 8.0), allocatedGibByCard(
                PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20)).readings(afterA,
                        FleetScope.EVERYTHING)));
        // The node named like a regular expression is read as itself; node-b's card is still the kept one.
        assertEquals(Map.of("GPU-node-a", 12.0, "GPU-node-b", 8.0, "GPU-" + HOSTILE, 2.0),
                allocatedGibByCard(history.readings(afterHostile, FleetScope.EVERYTHING)));
        // Every tenth read reads every node.
        for (int read = 4; read <= KeptNodeSeries.FULL_READ_EVERY; read++) {
            assertEquals(8.0, allocatedGibByCard(history.readings(afterHostile, FleetScope.EVERYTHING))
                    .get("GPU-node-b"), "read " + read);
        }
        assertEquals(6.0, allocatedGibByCard(history.readings(afterHostile, FleetScope.EVERYTHING))
                .get("GPU-node-b"));
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
