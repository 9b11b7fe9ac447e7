package io.hamiobserve.demo;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;
import io.hamiobserve.adapters.prometheus.PrometheusFleetHistory;
import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.WorkloadGroup;
import io.hamiobserve.domain.fleet.WorkloadRecommendation;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.hamiobserve.app.testing.CommandLines.assertRefused;
import static io.hamiobserve.app.testing.CommandLines.parsed;
import static io.hamiobserve.app.testing.CommandLines.run;
import static io.hamiobserve.app.testing.CommandLines.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two-cluster demo's history in one real Prometheus: the same simulated fleet twice, one
 * labelled {@code cluster="east"}, the other {@code cluster="west"}, with the same node and pod names
 * (as two real clusters' often are) on cards of their own: the label keeps their rows apart.
 */
class DemoClustersTest {

    @Test
    void twoClustersBehindOnePrometheusAreToldApartByTheirLabel() throws Exception {
        Instant now = Instant.now();
        Instant end = now.minusSeconds(1);
        List<Path> files = new ArrayList<>();
        try {
            List<String> names = List.of("east", "west");
            for (int ordinal = 0; ordinal < names.size(); ordinal++) {
                String cluster = names.get(ordinal);
                DemoHistory history = new DemoHistory(DemoCluster.standard(ordinal), now, cluster);
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
                FleetState state = FleetState.of(history.readings(end, FleetScope.EVERYTHING));
                for (int wait = 0; wait < 50 && history.clusters().isEmpty(); wait++) {
                    Thread.sleep(100);
                }
                assertEquals(List.of("east", "west"), history.clusters());
                // The same node names, each cluster's its own rows on its own cards.
                List<String> nodes = state.nodes().stream().map(node -> state.cluster(node) + " " + node.name()
                        + " " + node.cards()).toList();
                assertEquals(List.of("east " + DemoCluster.NODE_A + " 4", "west " + DemoCluster.NODE_A + " 4"),
                        nodes.stream().filter(row -> row.contains(" " + DemoCluster.NODE_A + " ")).toList(),
                        nodes.toString());
                List<String> llmRows = state.workloads().stream()
                        .filter(workload -> workload.ref().pod().startsWith("llm-inference-"))
                        .map(state::cluster).distinct().toList();
                assertEquals(List.of("east", "west"), llmRows, state.workloads().toString());
                assertTrue(state.cards().stream().map(state::cluster).noneMatch(name -> name.contains(",")));

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
                // The fleet-wide read narrowed to a cluster is that cluster's read, figure for figure
                // (the console serves a cluster's summaries so once the fleet-wide ones are kept).
                for (String cluster : names) {
                    UsageHistory narrowed = history.inCluster(cluster).usage(end, RightSizing.DEFAULT_WINDOW,
                            RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
                    UsageHistory kept = usage.inCluster(cluster).orElseThrow();
                    assertFalse(narrowed.shares().isEmpty(), cluster);
                    assertEquals(new java.util.HashSet<>(narrowed.shares()), new java.util.HashSet<>(kept.shares()),
                            cluster);
                    assertEquals(narrowed.workloadHours(), kept.workloadHours(), cluster);
                    CardHours hours = history.cardHours(end.minus(Duration.ofHours(1)), end);
                    CardHours narrowedHours = history.inCluster(cluster).cardHours(end.minus(Duration.ofHours(1)), end);
                    CardHours keptHours = hours.inCluster(cluster).orElseThrow();
                    assertFalse(narrowedHours.shares().isEmpty(), cluster);
                    assertEquals(new java.util.HashSet<>(narrowedHours.cards()), new java.util.HashSet<>(keptHours.cards()),
                            cluster);
                    assertEquals(new java.util.HashSet<>(narrowedHours.shares()),
                            new java.util.HashSet<>(keptHours.shares()), cluster);
                }
                // So is one cluster's fleet now, from the fleet-wide readings the console keeps:
                // every container's view and the cards' view (its pages are served them so).
                FleetReadings whole = history.readings(end, FleetScope.EVERYTHING);
                for (String cluster : names) {
                    FleetState own = FleetState.of(history.inCluster(cluster).readings(end, FleetScope.EVERYTHING));
                    FleetState kept = FleetState.of(whole.inCluster(cluster).orElseThrow());
                    assertFalse(own.workloads().isEmpty(), cluster);
                    assertEquals(own.cards(), kept.cards(), cluster);
                    assertEquals(own.nodes(), kept.nodes(), cluster);
                    assertEquals(own.workloads(), kept.workloads(), cluster);
                    assertEquals(own.namespaces(), kept.namespaces(), cluster);
                    assertEquals(own.health(), kept.health(), cluster);
                    FleetState ownCards = FleetState.of(history.inCluster(cluster).readings(end, FleetScope.CARDS_ONLY));
                    FleetState keptCards = FleetState.of(whole.inCluster(cluster).orElseThrow().cardsOnly());
                    assertEquals(ownCards.cards(), keptCards.cards(), cluster);
                    assertEquals(ownCards.nodes(), keptCards.nodes(), cluster);
                }
            }
        } finally {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }

    @Test
    void anotherClusterRunsTheSameNodesAndPodsOnCardsOfItsOwn() {
        DemoCluster first = DemoCluster.standard(0);
        DemoCluster second = DemoCluster.standard(1);
        List<String> firstCards = first.cards().stream().map(card -> card.registration().uuid()).toList();
        List<String> secondCards = second.cards().stream().map(card -> card.registration().uuid()).toList();
        assertEquals(DemoCluster.standard().cards().stream().map(card -> card.registration().uuid()).toList(),
                firstCards, "the first cluster is the demo's one, unchanged");
        assertEquals(firstCards.size(), new java.util.HashSet<>(secondCards).size());
        assertTrue(secondCards.stream().noneMatch(firstCards::contains), secondCards + " " + firstCards);
        assertEquals(first.registeringNodes(), second.registeringNodes());
        assertEquals(first.pods().stream().map(pod -> pod.ref().name()).toList(),
                second.pods().stream().map(pod -> pod.ref().name()).toList());
        // Every share of the second cluster's pods is on one of its own cards (or on none registered,
        // as the first's pod of a card gone).
        second.pods().forEach(pod -> pod.containers().forEach(container -> container.shares().forEach(share ->
                assertFalse(firstCards.contains(share.uuid()), pod + " " + share))));
    }

    @Test
    void theFlagNamesTheClustersAndRefusesHostileOnesWithExitTwo() {
        assertEquals(List.of("east", "west"), value(parsed("demo", "--demo.clusters", "east,west"), "--demo.clusters"));
        assertEquals(List.of(""), DemoClusters.names(List.of()), "no flag: one cluster, no label");
        assertEquals(List.of("prod-eu-1"), DemoClusters.names(List.of("prod-eu-1")));
        assertRefused(run("demo", "--demo.clusters", "east,east"), "--demo.clusters", "'east' is given twice");
        assertRefused(run("demo", "--demo.clusters", "a,b,c,d,e"), "--demo.clusters", "at most 4 clusters, not 5");
        assertRefused(run("demo", "--demo.clusters", "East"), "--demo.clusters", "'East' is not a lower-case name");
        assertRefused(run("demo", "--demo.clusters", "east,<script>"), "'<script>' is not a lower-case name");
        assertRefused(run("demo", "--demo.clusters", "a\"}\n"), "'a\"}\\u000a' is not a lower-case name");
        assertRefused(run("demo", "--demo.clusters", "west-"), "'west-' is not");
        assertRefused(run("demo", "--demo.clusters", "east,,west"), "'' is not");
        assertRefused(run("demo", "--demo.clusters", "x".repeat(64)), "'" + "x".repeat(64) + "' is not");
        assertRefused(run("demo", "--demo.clusters", "y".repeat(10_000)), "'" + "y".repeat(70) + "...' is not");
    }

    @Test
    void eachClustersTargetsAreScrapedUnderItsClusterLabel() throws Exception {
        Instant now = Instant.now();
        List<DemoPrometheus.Cluster> clusters = List.of(targets(now, "east", 10), targets(now, "west", 20));
        List<LocalPrometheus.Job> jobs = DemoPrometheus.jobs(clusters);
        // The jobs of one cluster, each with both clusters' targets.
        assertEquals(DemoPrometheus.jobs(List.of(targets(now, "", 10))).stream().map(LocalPrometheus.Job::name)
                .toList(), jobs.stream().map(LocalPrometheus.Job::name).toList());
        Map<String, Map<String, String>> targets = new java.util.LinkedHashMap<>();
        jobs.forEach(job -> targets.putAll(job.targets()));
        assertEquals(14, targets.size(), targets.toString());
        targets.forEach((target, labels) -> assertEquals(target.endsWith(":1") ? "east" : "west",
                labels.get(DemoHistory.CLUSTER_LABEL), target + " " + labels));
        assertEquals(Map.of("node", DemoCluster.NODE_B, "cluster", "west"), targets.get("127.0.0.22:2"));
        // One cluster without a name: no cluster label, as the demo always was.
        DemoPrometheus.jobs(List.of(targets(now, "", 10))).forEach(job -> job.targets().values().forEach(labels ->
                assertFalse(labels.containsKey(DemoHistory.CLUSTER_LABEL), labels.toString())));

        // Prometheus reads that configuration and labels each cluster's targets.
        try (LocalPrometheus prometheus = LocalPrometheus.start(jobs, Duration.ofMinutes(1), List.of(),
                Duration.ofSeconds(60))) {
            HttpClient client = HttpClient.newHttpClient();
            String active = "";
            // Prometheus discovers its static targets just after it answers ready.
            for (int wait = 0; wait < 100 && count(active, "\"instance\"") < 14; wait++) {
                Thread.sleep(wait == 0 ? 0 : 100);
                active = client.send(HttpRequest.newBuilder(prometheus.url().resolve("/api/v1/targets?state=active"))
                        .build(), HttpResponse.BodyHandlers.ofString()).body();
            }
            assertEquals(7, count(active, "\"cluster\":\"west\",\"instance\":\"127.0.0.2"), active);
            assertEquals(7, count(active, "\"cluster\":\"east\",\"instance\":\"127.0.0.1"), active);
        }
    }

    /**
     * A cluster whose endpoints are all {@code 127.0.0.<first + i>:<n>}: east's end in {@code :1},
     * west's don't (loopback addresses nothing listens on; the config is what is tested).
     */
    private static DemoPrometheus.Cluster targets(Instant now, String name, int first) {
        String port = name.equals("west") ? ":2" : ":1";
        Map<String, String> nodes = new java.util.LinkedHashMap<>();
        nodes.put(DemoCluster.NODE_A, "127.0.0." + (first + 1) + port);
        nodes.put(DemoCluster.NODE_B, "127.0.0." + (first + 2) + port);
        Map<String, String> dcgm = new java.util.LinkedHashMap<>();
        dcgm.put(DemoCluster.NODE_A, "127.0.0." + (first + 3) + port);
        dcgm.put(DemoCluster.NODE_B, "127.0.0." + (first + 4) + port);
        Map<DemoAscend.Exporter, String> ascend = new java.util.EnumMap<>(DemoAscend.Exporter.class);
        ascend.put(DemoAscend.Exporter.HAMI_PLUGIN, "127.0.0." + (first + 5) + port);
        ascend.put(DemoAscend.Exporter.NPU_EXPORTER, "127.0.0." + (first + 6) + port);
        return new DemoPrometheus.Cluster(new DemoHistory(DemoCluster.standard(), now, name),
                "127.0.0." + first + port, nodes, dcgm, Map.of(DemoCluster.NPU_NODE, ascend));
    }

    private static int count(String text, String part) {
        int found = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            found++;
        }
        return found;
    }
}
