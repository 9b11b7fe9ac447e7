package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.FleetReadings;
import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two clusters behind one source: a selector on every page, the selected cluster's reads only,
 * and every link, export and form of a page of one cluster carrying it; an unknown or hostile
 * cluster is a 400 that says which clusters there are. Without clusters, no selector (the other
 * console tests and the browser test check those pages unchanged).
 */
class ConsoleClustersTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final Pattern SELECTOR = Pattern.compile(
            "<nav class=\"choices\" aria-label=\"Cluster\">(.*?)</nav>", Pattern.DOTALL);
    private static final Pattern HREF = Pattern.compile("href=\"([^\"]*)\"");

    private final HttpClient client = HttpClient.newHttpClient();
    private WebServer server;
    private final FixedHistory whole = new FixedHistory();
    private final FixedHistory east = new FixedHistory();
    private final FixedHistory west = new FixedHistory();

    private String start() {
        // East holds the fixed fleet; west holds nothing but an exporter's health.
        west.alter = r -> new FleetReadings(r.at(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(),
                List.of(), r.sources(), List.of(), List.of(), List.of(), r.containersByNode(), r.provenance());
        Map<String, FixedHistory> clusters = Map.of("east", east, "west", west);
        whole.clustered = clusters;
        east.clustered = clusters;
        west.clustered = clusters;
        Console console = Console.create(whole, ConsoleSettings.defaults().withRoutePrefix("/gpu"),
                Clock.fixed(NOW, ZoneOffset.UTC));
        server = WebServer.builder().port(0).host("127.0.0.1").shutdownHook(false).routing(console::routing).build()
                .start();
        return "http://127.0.0.1:" + server.port() + "/gpu";
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private HttpResponse<String> get(String url) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void everyPageOfOneClusterReadsItAloneAndEveryLinkCarriesIt() throws Exception {
        String base = start();
        for (ConsolePage page : ConsolePages.ALL) {
            String path = page.path() + switch (page.path()) {
                case "/node" -> "?name=node-a&";
                case "/card" -> "?uuid=GPU-A0&";
                case "/workload" -> "?namespace=ml-team&pod=llm-inference&container=server&";
                default -> "?";
            };
            String html = get(base + path + "cluster=east").body();
            Matcher selector = SELECTOR.matcher(html);
            assertTrue(selector.find(), path + html);
            assertEquals(List.of("All", "east", "west"), texts(selector.group(1)), path);
            // Every other link stays in the cluster: pages, crumbs, navigation, sort, page, window, exports.
            List<String> links = links(html.replace(selector.group(), ""));
            assertFalse(links.isEmpty(), path);
            for (String href : links) {
                if (!href.startsWith("/gpu/assets/") && !href.startsWith("#")) {
                    assertTrue(href.contains("cluster=east"), path + ": a link that leaves the cluster: " + href);
                }
            }
            // The filter forms of its tables keep it too.
            if (html.contains("<form class=\"filter\"") || html.contains("<form class=\"shape\"")) {
                assertTrue(html.contains("type=\"hidden\" name=\"cluster\" value=\"east\""), path + html);
            }
        }
        assertTrue(east.calls.get() > 0, "east's reads");
        assertEquals(0, west.calls.get(), "west is not read for east's pages");
    }

    @Test
    void theSelectorNarrowsThePagesAndTheirExports() throws Exception {
        String base = start();
        String all = get(base + "/cards").body();
        assertTrue(all.contains("GPU-A0"), all);
        Matcher options = SELECTOR.matcher(all);
        assertTrue(options.find(), all);
        assertEquals(List.of("All", "east", "west"), texts(options.group(1)));
        assertTrue(options.group(1).contains("href=\"/gpu/cards?cluster=west\">west</a>"), options.group(1));

        // The overview of all: each cluster's own totals, each linking to its overview.
        String overview = get(base + "/").body();
        assertTrue(overview.contains("<a href=\"/gpu/?cluster=east\">east</a>"), overview);
        assertTrue(overview.contains("<a href=\"/gpu/?cluster=west\">west</a>"), overview);
        String totals = get(base + "/?export=clusters.csv").body();
        assertEquals(3, totals.strip().split("\n").length, totals);
        assertTrue(totals.lines().anyMatch(line -> line.startsWith("east,2,1,")), totals);
        assertTrue(totals.lines().anyMatch(line -> line.startsWith("west,0,0,")), totals);
        assertFalse(get(base + "/?cluster=east").body().contains("<a href=\"/gpu/?cluster=west\">west</a></td>"));

        String westCards = get(base + "/cards?cluster=west").body();
        assertFalse(westCards.contains("GPU-A0"), westCards);
        assertTrue(westCards.contains("No cards."), westCards);
        assertTrue(west.calls.get() > 0);

        HttpResponse<String> csv = get(base + "/cards?cluster=east&export=cards.csv");
        assertEquals(200, csv.statusCode());
        assertTrue(csv.body().contains("GPU-A0"), csv.body());
        assertTrue(get(base + "/cards?cluster=east").body().contains("export=cards.csv&amp;cluster=east")
                || get(base + "/cards?cluster=east").body().contains("cluster=east&amp;export=cards.csv"));
        assertFalse(get(base + "/cards?cluster=west&export=cards.csv").body().contains("GPU-A0"));

        // A cluster whose reads fail: the 503 page's navigation stays in the cluster.
        west.failure = "west's Prometheus is down";
        HttpResponse<String> failed = get(base + "/workloads?cluster=west");
        assertEquals(503, failed.statusCode(), failed.body());
        assertTrue(failed.body().contains("href=\"/gpu/nodes?cluster=west\""), failed.body());
    }

    @Test
    void thePagesOfAllClustersNameEachRowsClusterAndAPageOfOneDoesNot() throws Exception {
        // The whole source says which cluster registers each card (east holds the fixed fleet).
        whole.alter = r -> new FleetReadings(r.at(), r.registered().stream().map(card -> new FleetReadings.Registered(
                card.node(), card.uuid(), card.index(), card.model(), card.mode(), card.healthy(), card.memoryTotal(),
                card.memoryAllocated(), card.coresTotal(), card.coresAllocated(), card.slotsUsed(), card.slotsTotal(),
                card.coresAllocatedPercent(), "east")).toList(), r.hosts(), r.allocations(), r.names(), r.uses(),
                r.unmanaged(), r.quotas(), r.sources(), r.ledgerAges(), r.skips(), r.targetsDown(),
                r.containersByNode(), r.provenance(), r.physical(), r.origins(), r.resources());
        String base = start();
        for (String export : List.of("/nodes?export=nodes.csv", "/cards?export=cards.csv",
                "/workloads?export=workloads.csv", "/?export=nodes.csv")) {
            List<String> lines = get(base + export).body().lines().toList();
            assertTrue(lines.getFirst().startsWith("cluster,"), export + ": " + lines.getFirst());
            assertTrue(lines.size() > 1, export);
            lines.subList(1, lines.size()).forEach(line -> assertTrue(line.startsWith("east,"), export + ": " + line));
            String narrowed = get(base + export.replace("?", "?cluster=east&")).body().lines().findFirst().orElseThrow();
            assertFalse(narrowed.startsWith("cluster,"), export + " of one cluster: " + narrowed);
        }
        String page = get(base + "/nodes").body();
        assertTrue(page.contains(">Cluster<"), page);
        assertFalse(get(base + "/nodes?cluster=east").body().contains(">Cluster<"));
        // The per-workload recommendations name their cluster only where the page spans clusters.
        for (String path : List.of("/rightsizing", "/workloads")) {
            String header = get(base + path + "?export=byworkload.csv").body().lines().findFirst().orElseThrow();
            assertTrue(header.startsWith("severity,cluster,namespace,"), path + ": " + header);
            String narrowed = get(base + path + "?cluster=east&export=byworkload.csv").body().lines().findFirst()
                    .orElseThrow();
            assertTrue(narrowed.startsWith("severity,namespace,"), path + " of one cluster: " + narrowed);
        }
    }

    /** The fixed fleet once per cluster: the same node and pod names, each cluster's cards its own UUIDs. */
    private static FleetReadings twice(FleetReadings r) {
        java.util.function.UnaryOperator<String> west = uuid -> uuid.replace("GPU-", "GPU-W");
        List<FleetReadings.Registered> registered = new ArrayList<>();
        for (String cluster : List.of("east", "west")) {
            java.util.function.UnaryOperator<String> uuid = cluster.equals("east") ? id -> id : west;
            r.registered().forEach(card -> registered.add(new FleetReadings.Registered(card.node(),
                    uuid.apply(card.uuid()), card.index(), card.model(), card.mode(), card.healthy(),
                    card.memoryTotal(), card.memoryAllocated(), card.coresTotal(), card.coresAllocated(),
                    card.slotsUsed(), card.slotsTotal(), card.coresAllocatedPercent(), cluster)));
        }
        List<FleetReadings.Host> hosts = new ArrayList<>(r.hosts());
        r.hosts().forEach(host -> hosts.add(new FleetReadings.Host(host.node(), west.apply(host.uuid()),
                host.memoryUsed(), host.utilisation(), host.temperature(), host.power(), host.beyondAllocation())));
        List<FleetReadings.Allocation> allocations = new ArrayList<>(r.allocations());
        r.allocations().forEach(a -> allocations.add(new FleetReadings.Allocation(a.namespace(), a.pod(),
                a.containerIndex(), a.node(), west.apply(a.uuid()), a.memory(), a.cores())));
        List<FleetReadings.Use> uses = new ArrayList<>(r.uses());
        r.uses().forEach(u -> uses.add(new FleetReadings.Use(u.namespace(), u.pod(), u.container(), u.node(),
                west.apply(u.uuid()), u.memory(), u.utilisation(), u.lastKernelSeconds())));
        return new FleetReadings(r.at(), registered, hosts, allocations, r.names(), uses, r.unmanaged(), r.quotas(),
                r.sources(), r.ledgerAges(), r.skips(), r.targetsDown(), r.containersByNode(), r.provenance(),
                r.physical(), r.origins(), r.resources());
    }

    /** {@link #twice}'s readings of {@code cluster} alone, as its own source reads them. */
    private static FleetReadings only(FleetReadings r, String cluster) {
        FleetReadings both = twice(r);
        List<FleetReadings.Registered> registered = both.registered().stream()
                .filter(card -> card.cluster().equals(cluster)).toList();
        java.util.Set<String> uuids = new java.util.HashSet<>(registered.stream()
                .map(FleetReadings.Registered::uuid).toList());
        return new FleetReadings(r.at(), registered,
                both.hosts().stream().filter(host -> uuids.contains(host.uuid())).toList(),
                both.allocations().stream().filter(a -> uuids.contains(a.uuid())).toList(), r.names(),
                both.uses().stream().filter(u -> uuids.contains(u.uuid())).toList(), r.unmanaged(), r.quotas(),
                r.sources(), r.ledgerAges(), r.skips(), r.targetsDown(), r.containersByNode(), r.provenance(),
                r.physical(), r.origins(), r.resources());
    }

    /**
     * The console over {@code fleetWide} readings, each cluster's own reads being {@link #twice}'s
     * cards of that cluster ({@link #only}).
     */
    private String startEachClusterItsOwn(java.util.function.UnaryOperator<FleetReadings> fleetWide) {
        whole.alter = fleetWide;
        String base = start();
        east.alter = r -> only(r, "east");
        west.alter = r -> only(r, "west");
        return base;
    }

    /**
     * The overview's row per cluster: from the fleet-wide readings where each card names its cluster,
     * with no read of a cluster's own, and the same rows each cluster's own read gives where a card
     * in the fleet-wide readings names none.
     */
    @Test
    void theOverviewsClusterRowsNeedNoReadOfTheirOwnWhereEachCardNamesItsCluster() throws Exception {
        String base = startEachClusterItsOwn(ConsoleClustersTest::twice);
        String derived = get(base + "/?export=clusters.csv").body();
        assertEquals(3, derived.lines().count(), derived);
        assertTrue(derived.lines().skip(1).allMatch(row -> row.startsWith("east,") || row.startsWith("west,")), derived);
        assertFalse(east.scopes.contains(io.hamiobserve.domain.fleet.FleetScope.CARDS_ONLY), east.scopes.toString());
        assertFalse(west.scopes.contains(io.hamiobserve.domain.fleet.FleetScope.CARDS_ONLY), west.scopes.toString());
        stop();

        // One card of no cluster in the fleet-wide readings: each cluster's cards read on their own.
        base = startEachClusterItsOwn(r -> {
            FleetReadings both = twice(r);
            List<FleetReadings.Registered> registered = new ArrayList<>(both.registered());
            FleetReadings.Registered card = registered.removeLast();
            registered.add(new FleetReadings.Registered(card.node(), "GPU-NONE", card.index(), card.model(),
                    card.mode(), card.healthy(), card.memoryTotal(), card.memoryAllocated(), card.coresTotal(),
                    card.coresAllocated(), card.slotsUsed(), card.slotsTotal(), card.coresAllocatedPercent(), ""));
            return new FleetReadings(both.at(), registered, both.hosts(), both.allocations(), both.names(),
                    both.uses(), both.unmanaged(), both.quotas(), both.sources(), both.ledgerAges(), both.skips(),
                    both.targetsDown(), both.containersByNode(), both.provenance(), both.physical(), both.origins(),
                    both.resources());
        });
        String read = get(base + "/?export=clusters.csv").body();
        assertTrue(east.scopes.contains(io.hamiobserve.domain.fleet.FleetScope.CARDS_ONLY), east.scopes.toString());
        assertTrue(west.scopes.contains(io.hamiobserve.domain.fleet.FleetScope.CARDS_ONLY), west.scopes.toString());
        assertEquals(read, derived);
    }

    @Test
    void aNodeAndAPodBothClustersRunAreARowPerClusterEachLinkingInItsCluster() throws Exception {
        String base = startEachClusterItsOwn(ConsoleClustersTest::twice);
        // The nodes of all: node-a twice, one row per cluster, each linking to its cluster's node.
        for (String path : List.of("/nodes", "/")) {
            String html = get(base + path).body();
            assertTrue(html.contains("<a href=\"/gpu/node?name=node-a&amp;cluster=east\">node-a</a>"), path + html);
            assertTrue(html.contains("<a href=\"/gpu/node?name=node-a&amp;cluster=west\">node-a</a>"), path + html);
            assertFalse(html.contains("east, west"), path + html);
        }
        List<String> nodes = get(base + "/nodes?export=nodes.csv").body().lines().toList();
        assertEquals(3, nodes.size(), nodes.toString());
        assertTrue(nodes.get(1).startsWith("east,node-a,2,3,"), nodes.get(1));
        assertTrue(nodes.get(2).startsWith("west,node-a,2,3,"), nodes.get(2));
        String json = get(base + "/nodes?export=nodes.json").body();
        assertTrue(json.indexOf("\"east\"") >= 0 && json.indexOf("\"west\"") > json.indexOf("\"east\""), json);

        // The cards: each cluster's own, each linking to its card and node in its cluster.
        String cards = get(base + "/cards").body();
        assertTrue(cards.contains("href=\"/gpu/card?uuid=GPU-WA0&amp;cluster=west\""), cards);
        assertTrue(cards.contains("href=\"/gpu/card?uuid=GPU-A0&amp;cluster=east\""), cards);
        List<String> cardRows = get(base + "/cards?export=cards.csv").body().lines().skip(1).toList();
        assertEquals(List.of("east", "east", "west", "west"),
                cardRows.stream().map(line -> line.substring(0, line.indexOf(','))).toList());

        // The workloads: ml-team/llm-inference once per cluster, each linking to its own.
        String workloads = get(base + "/workloads").body();
        for (String cluster : List.of("east", "west")) {
            assertTrue(workloads.contains("href=\"/gpu/workload?namespace=ml-team&amp;pod=llm-inference"
                    + "&amp;container=server&amp;cluster=" + cluster + "\""), cluster + workloads);
        }
        List<String> llm = get(base + "/workloads?export=workloads.csv").body().lines()
                .filter(line -> line.contains("llm-inference")).toList();
        assertEquals(2, llm.size(), llm.toString());
        assertTrue(llm.get(0).startsWith("east,") && llm.get(1).startsWith("west,"), llm.toString());
        // Each row's own recommendation: east's cards have a history, west's (their own UUIDs) none.
        assertFalse(llm.get(0).substring("east".length()).equals(llm.get(1).substring("west".length())),
                llm.toString());

        // A node page of All for the shared name: one cluster's node, its own cards alone.
        String allNode = get(base + "/node?name=node-a").body();
        assertTrue(allNode.contains("GPU-A0") != allNode.contains("GPU-WA0"), allNode);

        // The link opens that cluster's node: its own cards only.
        String westNode = get(base + "/node?name=node-a&cluster=west").body();
        assertTrue(westNode.contains("GPU-WA0"), westNode);
        assertFalse(westNode.contains("GPU-A0<"), westNode);
    }

    @Test
    void aClustersSummariesAreServedFromTheFleetWideOnesKeptNotReadAgain() throws Exception {
        // Every share and card of the whole source's summaries is east's (each figure by cluster, as
        // the engine's answers are grouped).
        whole.summariesCluster = "east";
        east.summariesCluster = "east";
        String base = start();
        // A cluster's page before the fleet-wide summaries are kept reads its own.
        assertTrue(get(base + "/rightsizing?cluster=west").body().contains("No "), "west holds no share");
        assertEquals(1, west.summaryCalls.get(), "nothing kept yet: west's own read");
        for (String path : List.of("/rightsizing?export=rightsizing.json", "/showback?export=showback.json")) {
            assertEquals(200, get(base + path).statusCode(), path);
        }
        int wholeReads = whole.summaryCalls.get();
        assertEquals(2, wholeReads, "the fleet-wide use and card-hours, once each");

        String eastUse = get(base + "/rightsizing?cluster=east&export=rightsizing.json").body();
        assertTrue(eastUse.contains("llm-inference") && eastUse.contains("notebook"), eastUse);
        String eastBill = get(base + "/showback?cluster=east&export=showback.json").body();
        assertTrue(eastBill.contains("ml-team"), eastBill);
        assertEquals(get(base + "/showback?export=showback.json").body(), eastBill,
                "east holds every card-hour, so its bill is the whole one");
        String westUse = get(base + "/rightsizing?cluster=west&export=rightsizing.json").body();
        assertFalse(westUse.contains("llm-inference"), westUse);
        String westBill = get(base + "/showback?cluster=west&export=showback.json").body();
        assertFalse(westBill.contains("ml-team"), westBill);
        assertEquals(0, east.summaryCalls.get(), "east's summaries were the fleet-wide ones, narrowed");
        assertEquals(1, west.summaryCalls.get(), "west's too, after its first read");
        assertEquals(wholeReads, whole.summaryCalls.get());
        assertTrue(east.calls.get() > 0, "east's fleet now is still its own read");
    }

    @Test
    void aHostileClusterNameTheEngineHoldsIsServedItsRowsEscaped() throws Exception {
        // A cluster label value is whatever a relabeling wrote: markup, quotes, 1,000 characters (one
        // with a control character cannot be selected: every parameter holding one is refused).
        String hostile = "<script>alert(\"c\")</script>' &amp; " + "x".repeat(1_000);
        FixedHistory own = new FixedHistory();
        whole.summariesCluster = hostile;
        Map<String, FixedHistory> clusters = Map.of(hostile, own, "west", west);
        whole.clustered = clusters;
        own.clustered = clusters;
        west.clustered = clusters;
        Console console = Console.create(whole, ConsoleSettings.defaults(), Clock.fixed(NOW, ZoneOffset.UTC));
        server = WebServer.builder().port(0).host("127.0.0.1").shutdownHook(false).routing(console::routing).build()
                .start();
        String base = "http://127.0.0.1:" + server.port();
        assertEquals(200, get(base + "/rightsizing").statusCode());
        assertEquals(200, get(base + "/showback").statusCode());
        String selected = URLEncoder.encode(hostile, StandardCharsets.UTF_8);
        for (String path : List.of("/rightsizing", "/showback", "/workloads", "/namespaces")) {
            HttpResponse<String> page = get(base + path + "?cluster=" + selected);
            assertEquals(200, page.statusCode(), path);
            assertFalse(page.body().contains("<script>alert("), path + ": the name unescaped");
            assertTrue(page.body().contains("ml-team"), path);
        }
        String use = get(base + "/rightsizing?cluster=" + selected + "&export=rightsizing.json").body();
        assertTrue(use.contains("llm-inference"), use);
        assertEquals(0, own.summaryCalls.get(), "its summaries were the fleet-wide ones, narrowed");
    }

    @Test
    void summariesWithSharesOfNoClusterAreReadPerCluster() throws Exception {
        // An exporter's figures that name no cluster: which cluster holds them, only a narrowed read tells.
        east.summariesCluster = "east";
        String base = start();
        assertEquals(200, get(base + "/rightsizing").statusCode());
        assertEquals(200, get(base + "/showback").statusCode());
        String eastUse = get(base + "/rightsizing?cluster=east&export=rightsizing.json").body();
        assertTrue(eastUse.contains("llm-inference"), eastUse);
        assertEquals(200, get(base + "/showback?cluster=east").statusCode());
        assertEquals(2, east.summaryCalls.get(), "east's use and card-hours read narrowed");
    }

    @Test
    void anUnknownOrHostileClusterIsRefusedWithTheClustersThereAre() throws Exception {
        String base = start();
        for (String cluster : List.of("north", "east\"} or vector(1)", "<script>alert(1)</script>")) {
            HttpResponse<String> response = get(base + "/workloads?cluster="
                    + URLEncoder.encode(cluster, StandardCharsets.UTF_8));
            assertEquals(400, response.statusCode(), cluster);
            assertTrue(response.body().contains("is not one the source holds: east, west"), response.body());
            assertFalse(response.body().contains("<script>alert(1)"), response.body());
        }
        assertEquals(0, east.calls.get() + west.calls.get(), "nothing was read for a refused cluster");
    }

    @Test
    void withoutClustersThereIsNoSelectorAndAClusterIsRefused() throws Exception {
        Console console = Console.create(new FixedHistory(), ConsoleSettings.defaults(), Clock.fixed(NOW,
                ZoneOffset.UTC));
        server = WebServer.builder().port(0).host("127.0.0.1").shutdownHook(false).routing(console::routing).build()
                .start();
        String base = "http://127.0.0.1:" + server.port();
        String page = get(base + "/").body();
        assertFalse(page.contains("aria-label=\"Cluster\""), page);
        assertFalse(get(base + "/cards?export=cards.csv").body().startsWith("cluster,"), "no cluster column");
        for (String path : List.of("/rightsizing", "/workloads")) {
            assertFalse(get(base + path).body().contains(">Cluster<"), path + ": no cluster column");
            String header = get(base + path + "?export=byworkload.csv").body().lines().findFirst().orElseThrow();
            assertTrue(header.startsWith("severity,namespace,"), path + ": " + header);
        }
        assertFalse(page.contains("cluster="), page);
        HttpResponse<String> refused = get(base + "/?cluster=east");
        assertEquals(400, refused.statusCode());
        assertTrue(refused.body().contains("its series carry no cluster label"), refused.body());
    }

    private static List<String> links(String html) {
        List<String> links = new ArrayList<>();
        Matcher href = HREF.matcher(html);
        while (href.find()) {
            links.add(href.group(1).replace("&amp;", "&"));
        }
        return links;
    }

    private static List<String> texts(String nav) {
        List<String> texts = new ArrayList<>();
        Matcher text = Pattern.compile(">([^<]+)</a>").matcher(nav);
        while (text.find()) {
            texts.add(text.group(1));
        }
        return texts;
    }
}
