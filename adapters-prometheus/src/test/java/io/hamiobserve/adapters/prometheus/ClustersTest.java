package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.Measure;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two clusters behind one engine, told apart by a {@code cluster} label that the scrape's target
 * labels put on every series (as a relabeling or Prometheus's external labels do): the whole
 * history sums them and names both, a node or pod name both use being one row per cluster; a history narrowed to one reads only that one's series, in
 * every query; a hostile name selects nothing and breaks no query.
 */
class ClustersTest {
    private static final String EAST = """
            # TYPE hami_gpu_memory_limit_bytes gauge
            hami_gpu_memory_limit_bytes{node="node-a",device_uuid="GPU-A0",device_index="0",device_type="NVIDIA A100"} 4.294967296e+10
            # TYPE hami_vgpu_memory_allocated_bytes gauge
            hami_vgpu_memory_allocated_bytes{namespace="ml-team",pod="llm",container_index="0",node="node-a",device_uuid="GPU-A0"} 8.589934592e+09
            # TYPE hami_observe_vgpu_container_memory_allocated_bytes gauge
            hami_observe_vgpu_container_memory_allocated_bytes{namespace="ml-team",pod="llm",container_index="0",container="server",node="node-a",device_uuid="GPU-A0"} 8.589934592e+09
            """;
    private static final String WEST = """
            # TYPE hami_gpu_memory_limit_bytes gauge
            hami_gpu_memory_limit_bytes{node="node-b",device_uuid="GPU-B0",device_index="0",device_type="NVIDIA L4"} 2.4e+10
            hami_gpu_memory_limit_bytes{node="node-b",device_uuid="GPU-B1",device_index="1",device_type="NVIDIA L4"} 2.4e+10
            # TYPE hami_vgpu_memory_allocated_bytes gauge
            hami_vgpu_memory_allocated_bytes{namespace="batch",pod="trainer",container_index="0",node="node-b",device_uuid="GPU-B0"} 4.294967296e+09
            # TYPE hami_observe_vgpu_container_memory_allocated_bytes gauge
            hami_observe_vgpu_container_memory_allocated_bytes{namespace="batch",pod="trainer",container_index="0",container="main",node="node-b",device_uuid="GPU-B0"} 4.294967296e+09
            """;

    @Test
    void aHistoryNarrowedToOneClusterReadsOnlyItsSeries() throws Exception {
        scrapedAsTwoClusters(EAST, WEST, prometheus -> {
            PrometheusFleetHistory history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
            FleetReadings all = history.readings(Instant.now(), FleetScope.EVERYTHING);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (history.clusters().size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(Set.of("GPU-A0", "GPU-B0", "GPU-B1"), uuids(all));
            // Each card says which cluster registers it (the console's Cluster column over all of them).
            assertEquals(Map.of("GPU-A0", "east", "GPU-B0", "west", "GPU-B1", "west"), all.registered().stream()
                    .collect(java.util.stream.Collectors.toMap(FleetReadings.Registered::uuid,
                            FleetReadings.Registered::cluster)));
            assertEquals(List.of("east", "west"), history.clusters());
            assertTrue(history.description().contains("2 clusters by label cluster (east, west)"),
                    history.description());

            PrometheusFleetHistory westOnly = history.inCluster("west");
            FleetReadings west = westOnly.readings(Instant.now(), FleetScope.EVERYTHING);
            assertEquals(Set.of("GPU-B0", "GPU-B1"), uuids(west));
            assertEquals(List.of("batch"), west.allocations().stream().map(FleetReadings.Allocation::namespace)
                    .distinct().toList());
            // Every query behind the figures names the cluster on every series it reads.
            west.provenance().forEach((measure, query) -> assertEquals(seriesIn(query.expression()),
                    count(query.expression(), "cluster=\"west\""), measure + ": " + query.expression()));
            assertEquals(List.of("east", "west"), westOnly.clusters(), "the narrowed history still names them all");
            assertTrue(westOnly.description().contains("cluster west"), westOnly.description());
            TrendSet trends = westOnly.trends(new TrendScope.Cluster(), Instant.now(), Duration.ofMinutes(2),
                    Duration.ofSeconds(15));
            double total = trends.of(Measure.TREND_MEMORY_TOTAL).getFirst().provenance().expression()
                    .contains("cluster=\"west\"") ? 1 : 0;
            assertEquals(1, total, "the trends are narrowed too");
            assertEquals(Set.of("GPU-A0"), uuids(history.inCluster("east").readings(Instant.now(),
                    FleetScope.EVERYTHING)));

            // A name that would end the string and add a selector is a string: nothing matches, nothing fails.
            FleetReadings hostile = history.inCluster("west\"} or vector(1) # \\").readings(Instant.now(),
                    FleetScope.EVERYTHING);
            assertEquals(Set.of(), uuids(hostile));
        });
    }

    /** What a test checks over the Prometheus that scrapes the two clusters. */
    private interface OverTwoClusters {
        void check(LocalPrometheus prometheus) throws Exception;
    }

    /**
     * {@code east}'s and {@code west}'s scheduler expositions, served and scraped by a real
     * Prometheus with their {@code cluster} labels; {@code check} runs once both have been scraped
     * (the history asks for the clusters every 5 minutes, so they must be there at its first ask).
     */
    private static void scrapedAsTwoClusters(String east, String west, OverTwoClusters check) throws Exception {
        ServerSocket eastEndpoint = ReplicatedSchedulerTest.serve(east);
        ServerSocket westEndpoint = ReplicatedSchedulerTest.serve(west);
        Map<String, Map<String, String>> targets = new LinkedHashMap<>();
        targets.put("127.0.0.1:" + eastEndpoint.getLocalPort(), Map.of("cluster", "east"));
        targets.put("127.0.0.1:" + westEndpoint.getLocalPort(), Map.of("cluster", "west"));
        try (eastEndpoint; westEndpoint; LocalPrometheus prometheus = LocalPrometheus.start(
                List.of(new LocalPrometheus.Job("hami-observe-scheduler", targets)), Duration.ofSeconds(1), List.of(),
                Duration.ofSeconds(60))) {
            assertEquals(2, ReplicatedSchedulerTest.value(new PrometheusApi(prometheus.url(), Duration.ofSeconds(20)),
                    "count(count by (cluster) (hami_gpu_memory_limit_bytes))", 2, Duration.ofSeconds(30)));
            check.check(prometheus);
        }
    }

    /** West running east's node and pod names on cards of its own. */
    private static final String WEST_SAME_NAMES = """
            # TYPE hami_gpu_memory_limit_bytes gauge
            hami_gpu_memory_limit_bytes{node="node-a",device_uuid="GPU-W0",device_index="0",device_type="NVIDIA L4"} 2.5769803776e+10
            hami_gpu_memory_limit_bytes{node="node-a",device_uuid="GPU-W1",device_index="1",device_type="NVIDIA L4"} 2.5769803776e+10
            # TYPE hami_vgpu_memory_allocated_bytes gauge
            hami_vgpu_memory_allocated_bytes{namespace="ml-team",pod="llm",container_index="0",node="node-a",device_uuid="GPU-W1"} 4.294967296e+09
            # TYPE hami_observe_vgpu_container_memory_allocated_bytes gauge
            hami_observe_vgpu_container_memory_allocated_bytes{namespace="ml-team",pod="llm",container_index="0",container="server",node="node-a",device_uuid="GPU-W1"} 4.294967296e+09
            """;

    @Test
    void aNodeAndAPodThatBothClustersNameAreOneRowPerCluster() throws Exception {
        scrapedAsTwoClusters(EAST, WEST_SAME_NAMES, prometheus -> {
            FleetState state = FleetState.of(PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20))
                    .readings(Instant.now(), FleetScope.EVERYTHING));
            assertEquals(List.of("east node-a 1 cards 40 GiB", "west node-a 2 cards 48 GiB"), state.nodes().stream()
                    .map(node -> state.cluster(node) + " " + node.name() + " " + node.cards() + " cards "
                            + Math.round(node.memoryTotal().orElseThrow() / (1L << 30)) + " GiB").toList());
            assertEquals(List.of("east ml-team/llm GPU-A0", "west ml-team/llm GPU-W1"),
                    state.workloads().stream().map(workload -> state.cluster(workload) + " "
                            + workload.ref().namespace() + "/" + workload.ref().pod() + " "
                            + String.join(",", workload.cards())).toList());
        });
    }

    /** East's node-a: one container named server, its exporter's sources answering. */
    private static final String EAST_NAMED = EAST + """
            # TYPE hami_observe_container_info gauge
            hami_observe_container_info{namespace="ml-team",pod="llm",container_index="0",container="server",init="false",node="node-a"} 1
            # TYPE hami_observe_scrape_source_success gauge
            hami_observe_scrape_source_success{node="node-a",source="nvml"} 1
            hami_observe_scrape_source_success{node="node-a",source="cachefile"} 1
            """;
    /** West's node-a: the same pod name, its one container named api, a second pod; its driver source failing. */
    private static final String WEST_NAMED = WEST_SAME_NAMES + """
            hami_observe_vgpu_container_memory_allocated_bytes{namespace="ml-team",pod="tuner",container_index="0",container="tune",node="node-a",device_uuid="GPU-W0"} 2.147483648e+09
            # TYPE hami_observe_container_info gauge
            hami_observe_container_info{namespace="ml-team",pod="llm",container_index="0",container="api",init="false",node="node-a"} 1
            hami_observe_container_info{namespace="ml-team",pod="tuner",container_index="0",container="tune",init="false",node="node-a"} 1
            # TYPE hami_observe_scrape_source_success gauge
            hami_observe_scrape_source_success{node="node-a",source="nvml"} 0
            hami_observe_scrape_source_success{node="node-a",source="cachefile"} 1
            """;

    @Test
    void aNodeNameBothClustersUseCountsNamesAndFailsPerCluster() throws Exception {
        scrapedAsTwoClusters(EAST_NAMED, WEST_NAMED, prometheus -> {
            PrometheusFleetHistory history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
            Instant now = Instant.now();
            // The cards-only pages count each cluster's containers on its own node-a.
            FleetReadings cardsOnly = history.readings(now, FleetScope.CARDS_ONLY);
            assertEquals(Map.of(new FleetReadings.ClusterNode("east", "node-a"), 1L,
                    new FleetReadings.ClusterNode("west", "node-a"), 2L), cardsOnly.containersByNode());
            assertEquals(cardsOnly.containersByNode(), history.readings(now, FleetScope.EVERYTHING).cardsOnly()
                    .containersByNode(), "counted alike from every container's readings");
            FleetState cards = FleetState.of(cardsOnly);
            assertEquals(List.of("east node-a 1 workloads 0 failing", "west node-a 2 workloads 1 failing"),
                    cards.nodes().stream().map(node -> cards.cluster(node) + " " + node.name() + " "
                            + node.workloads() + " workloads " + node.sourcesFailing() + " failing").toList());

            // Each cluster's pod takes its own cluster's container names; west's failing driver
            // leaves east's cards alone.
            FleetState all = FleetState.of(history.readings(now, FleetScope.EVERYTHING));
            assertEquals(List.of("east ml-team/llm/server", "west ml-team/llm/api", "west ml-team/tuner/tune"),
                    all.workloads().stream().map(workload -> all.cluster(workload) + " "
                            + workload.ref().namespace() + "/" + workload.ref().pod() + "/"
                            + workload.ref().container()).toList());
            assertEquals(List.of("east GPU-A0 NOT_REPORTED", "west GPU-W0 SOURCE_FAILING", "west GPU-W1 SOURCE_FAILING"),
                    all.cards().stream().map(card -> all.cluster(card) + " " + card.uuid() + " "
                            + (card.memoryUsed() instanceof Figure.Missing missing ? missing.why().name() : "known"))
                            .toList());
        });
    }

    @Test
    void narrowingPutsTheMatcherOnEverySeriesOfEveryTemplate() throws ReflectiveOperationException {
        QueryTemplateSeriesTest.templates().forEach((name, text) -> {
            String narrowed = PromQl.narrowed(text, "cluster", "e\"ast");
            assertEquals(seriesIn(text), count(narrowed, "cluster=\"e\\\"ast\""), name + ": " + narrowed);
            // Nothing else changes: taking the matcher out gives the template back (a selector's
            // empty braces, up{}, come out bare).
            assertEquals(text.replace("{}", ""), narrowed.replace("{cluster=\"e\\\"ast\"}", "").replace("cluster=\"e\\\"ast\", ", "")
                    .replace("cluster=\"e\\\"ast\"", ""), name);
        });
        // A vendor exporter's series and up: every selector written with braces, whatever its name.
        assertEquals("max by (device_uuid) (label_replace(npu_chip_info_utilization{cluster=\"x\"}, \"device_uuid\", "
                        + "\"$1\", \"vdie_id\", \"(?s)(.+)\")) or (up{cluster=\"x\", job=\"npu\"} == 0)",
                PromQl.narrowed("max by (device_uuid) (label_replace(npu_chip_info_utilization{}, \"device_uuid\", "
                        + "\"$1\", \"vdie_id\", \"(?s)(.+)\")) or (up{job=\"npu\"} == 0)", "cluster", "x"));
        assertEquals("label_replace(max by (UUID) (DCGM_FI_DEV_GPU_UTIL{cluster=\"x\", UUID=\"a\"}), \"field\", "
                        + "\"DCGM_FI_DEV_GPU_UTIL\", \"\", \"\") or max(hami_x{cluster=\"x\"}[5m:1m]) + "
                        + "sum(namespace:hami_y:sum{cluster=\"x\"}) offset 1h",
                PromQl.narrowed("label_replace(max by (UUID) (DCGM_FI_DEV_GPU_UTIL{UUID=\"a\"}), \"field\", "
                        + "\"DCGM_FI_DEV_GPU_UTIL\", \"\", \"\") or max(hami_x[5m:1m]) + sum(namespace:hami_y:sum) "
                        + "offset 1h", "cluster", "x"));
    }

    /**
     * How many series selectors an expression has outside strings: names of hami or DCGM series,
     * and any other name written with braces (a vendor exporter's series, {@code up{}}).
     */
    private static int seriesIn(String expression) {
        String outsideStrings = expression.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"");
        Matcher names = Pattern.compile("(?<![A-Za-z0-9_:])(?:[A-Za-z_:]*(?:hami_|DCGM_)[A-Za-z0-9_:]*"
                        + "|[A-Za-z_:][A-Za-z0-9_:]*(?=\\s*\\{))")
                .matcher(outsideStrings);
        int count = 0;
        while (names.find()) {
            count++;
        }
        return count;
    }

    private static int count(String text, String part) {
        return text.split(Pattern.quote(part), -1).length - 1;
    }

    private static Set<String> uuids(FleetReadings readings) {
        Set<String> uuids = new TreeSet<>();
        readings.registered().forEach(card -> uuids.add(card.uuid()));
        assertFalse(uuids.contains(""));
        return uuids;
    }
}
