package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.WorkloadRef;
import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The console's routes served by a real Helidon server over a fixed fleet. */
class ConsoleTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final List<String> PAGES = List.of("/", "/nodes", "/node?name=node-a", "/cards",
            "/card?uuid=GPU-A1", "/workloads", "/workload?namespace=ml-team&pod=llm-inference&container=server",
            "/namespaces", "/rightsizing", "/capacity", "/stuck");

    private final HttpClient client = HttpClient.newHttpClient();
    private WebServer server;
    private FixedHistory history;

    private String start(ConsoleSettings settings) {
        return start(settings, new FixedHistory());
    }

    private String start(ConsoleSettings settings, FixedHistory fixed) {
        history = fixed;
        Console console = Console.create(history, settings, Clock.fixed(NOW, ZoneOffset.UTC));
        server = WebServer.builder().port(0).host("127.0.0.1").shutdownHook(false).routing(console::routing).build()
                .start();
        return "http://127.0.0.1:" + server.port();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void everyPageAnswersWithAStrictContentSecurityPolicyAndNoInlineScriptOrStyle() throws Exception {
        String base = start(ConsoleSettings.defaults());
        for (String page : PAGES) {
            HttpResponse<String> response = get(base + page);
            assertEquals(200, response.statusCode(), page + ": " + response.body());
            assertEquals(Console.CONTENT_SECURITY_POLICY,
                    response.headers().firstValue("Content-Security-Policy").orElseThrow(), page);
            assertTrue(response.headers().firstValue("Content-Type").orElseThrow().startsWith("text/html"), page);
            String html = response.body();
            assertFalse(html.contains(" style="), page + " has an inline style attribute");
            assertFalse(html.contains("<style"), page + " has an inline style element");
            Matcher scripts = Pattern.compile("<script([^>]*)>").matcher(html);
            while (scripts.find()) {
                assertTrue(scripts.group(1).contains("src="), page + " has an inline script: " + scripts.group());
            }
            assertFalse(Pattern.compile("\\son[a-z]+=\"").matcher(html.replace("onerror=alert", "")).find(),
                    page + " has an event handler attribute");
        }
    }

    @Test
    void labelValuesCarryingHtmlStayInertText() throws Exception {
        String base = start(ConsoleSettings.defaults());
        for (String page : List.of("/cards", "/workloads", "/namespaces", "/card?uuid=GPU-A1", "/rightsizing",
                "/stuck", "/capacity")) {
            String html = get(base + page).body();
            assertFalse(html.contains("<img src=x"), page);
            assertFalse(html.contains("<script>alert"), page);
            assertFalse(html.contains("<svg onload"), page);
            assertFalse(html.contains("<i>"), page + ": the source's description is text too");
        }
        String cards = get(base + "/cards").body();
        assertTrue(cards.contains("&lt;img src=x onerror=alert(1)&gt;"), "the card type is shown, escaped");
        String workloads = get(base + "/workloads").body();
        assertTrue(workloads.contains(">&lt;script&gt;alert('ns')&lt;/script&gt;<"), workloads);
        assertTrue(workloads.contains(">pod\"&gt;&lt;svg onload=alert(2)&gt;</a>"), workloads);
        // In a link, the value is URL-encoded, so it cannot end the attribute either.
        assertTrue(workloads.contains("namespace=%3Cscript%3Ealert%28%27ns%27%29%3C%2Fscript%3E"), workloads);
        String queries = get(base + "/").body();
        assertTrue(queries.contains("<pre>up{job=\"&lt;script&gt;\"}</pre>"), "the query text is escaped too");
    }

    @Test
    void aDeploymentsPodShowsTheWorkloadsRecommendationOverItsPodsAndThePatchToCopy() throws Exception {
        FixedHistory owned = new FixedHistory();
        owned.owned = true;
        String base = start(ConsoleSettings.defaults(), owned);
        String page = get(base + "/workload?namespace=ml-team&pod=llm-inference&container=server").body();
        assertTrue(page.contains("Deployment ml-team/llm"), page);
        assertTrue(page.contains("2 (1 now)"), "both pods of the rollout: " + page);
        assertTrue(page.contains("Pod llm-old"), page);
        assertTrue(page.contains("data-copy=\"patch\""), page);
        assertTrue(page.contains("kubectl patch deployment &#39;llm&#39; -n &#39;ml-team&#39; --type strategic")
                || page.contains("kubectl patch deployment 'llm' -n 'ml-team' --type strategic"), page);
        assertTrue(page.contains("nvidia.com/gpumem: &#39;2560&#39;") || page.contains("nvidia.com/gpumem: '2560'"),
                page);
        assertTrue(page.contains("Days of history"), page);
        String rightsizing = get(base + "/rightsizing").body();
        assertTrue(rightsizing.contains("id=\"byworkload\""), rightsizing);
        assertTrue(rightsizing.contains(">Deployment<"), rightsizing);
    }

    @Test
    void theBriefsPodGetsTwoAndAHalfGibAndACopyableSnippet() throws Exception {
        String base = start(ConsoleSettings.defaults());
        String page = get(base + "/workload?namespace=ml-team&pod=llm-inference&container=server").body();
        assertTrue(page.contains("8 GiB (8,192 MiB) → 2.50 GiB (2,560 MiB)"), page);
        assertTrue(page.contains("nvidia.com/gpumem: 2560"), page);
        assertTrue(page.contains("data-copy=\"snippet\""), page);
        assertTrue(page.contains("data-chart=\""), "the explanation graph's data");
        String rightsizing = get(base + "/rightsizing").body();
        assertTrue(rightsizing.contains("critical"), rightsizing);
        assertTrue(rightsizing.contains("50 samples, fewer than 100"), "the notebook has too little data");
    }

    @Test
    void tablesExportEveryFilteredRowAsCsvAndJson() throws Exception {
        String base = start(ConsoleSettings.defaults());
        HttpResponse<String> csv = get(base + "/workloads?export=workloads.csv&workloads.q=ml-team");
        assertEquals(200, csv.statusCode());
        assertEquals("text/csv; charset=utf-8", csv.headers().firstValue("Content-Type").orElseThrow());
        assertEquals("attachment; filename=\"workloads.csv\"",
                csv.headers().firstValue("Content-Disposition").orElseThrow());
        List<String> lines = csv.body().lines().toList();
        assertTrue(lines.getFirst().startsWith("namespace,pod,container,node,cards,memory_allocated,memory_used"),
                lines.getFirst());
        assertEquals(3, lines.size(), "a header and the two ml-team workloads: " + lines);
        assertTrue(csv.body().contains("8589934592"), "raw bytes, not formatted text");
        HttpResponse<String> json = get(base + "/workloads?export=workloads.json");
        assertEquals("application/json", json.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(json.body().contains("\"memory_used\" : null"), json.body());
        assertTrue(json.body().contains("\"memory_used_missing\" : \"no usage yet"), json.body());
        // An export of a table the page does not have is the page itself.
        assertTrue(get(base + "/workloads?export=nosuch.csv").headers().firstValue("Content-Type").orElseThrow()
                .startsWith("text/html"));
    }

    private static String podsTable(String html) {
        return html.substring(html.indexOf("<section class=\"table\" id=\"workloads\">"));
    }

    @Test
    void sortingFilteringAndPagingLiveInTheUrl() throws Exception {
        String base = start(ConsoleSettings.defaults());
        // The pods' table (the workloads' table above it names the same bare pods).
        String ascending = podsTable(get(base + "/workloads?workloads.sort=memory_allocated&workloads.dir=asc").body());
        String descending = podsTable(get(base + "/workloads?workloads.sort=memory_allocated&workloads.dir=desc")
                .body());
        assertTrue(ascending.indexOf(">notebook</a>") < ascending.indexOf(">llm-inference</a>"), "4 GiB before 8 GiB");
        String hostile = ">pod\"&gt;&lt;svg onload=alert(2)&gt;</a>";
        assertTrue(descending.indexOf(hostile) < descending.indexOf(">llm-inference</a>"), "20 GiB before 8 GiB");
        assertTrue(descending.indexOf(">llm-inference</a>") < descending.indexOf(">notebook</a>"), "8 before 4 GiB");
        String filtered = get(base + "/workloads?workloads.q=jupyter").body();
        assertTrue(filtered.contains("1 of 3 rows match"), filtered);
        String paged = get(base + "/workloads?workloads.size=1&workloads.page=2").body();
        assertTrue(paged.contains("page 2 of 3"), paged);
        assertTrue(paged.contains("workloads.page=1") && paged.contains("workloads.page=3"), "previous and next");
    }

    @Test
    void missingFiguresReadNoDataWithTheirReasonNeverZero() throws Exception {
        String base = start(ConsoleSettings.defaults());
        String workloads = get(base + "/workloads").body();
        assertTrue(workloads.contains("title=\"no usage yet: HAMi-Core reports a container from its first CUDA call"),
                workloads);
        String card = get(base + "/card?uuid=GPU-A1").body();
        assertTrue(card.contains("no data — the driver does not report this for the card"), card);
    }

    @Test
    void exporterHealthReadsNoDataUntilAnExporterHasReportedItsSources() throws Exception {
        String base = start(ConsoleSettings.defaults());
        String reported = get(base + "/").body();
        assertTrue(reported.contains("2 sources reporting"), reported);

        server.stop();
        FixedHistory silentFleet = new FixedHistory();
        silentFleet.noSourcesReported = true;
        String silent = get(start(ConsoleSettings.defaults(), silentFleet) + "/").body();
        assertTrue(silent.contains("no exporter has reported its sources yet"), silent);
        assertFalse(silent.contains("0 sources reporting"), "nothing reported is not healthy");
    }

    @Test
    void theConsoleWorksUnderARoutePrefix() throws Exception {
        String base = start(ConsoleSettings.defaults().withRoutePrefix("/gpu/"));
        String home = get(base + "/gpu/").body();
        assertEquals(200, get(base + "/gpu").statusCode());
        assertTrue(home.contains("href=\"/gpu/cards\""), home);
        assertTrue(home.contains("src=\"/gpu/assets/console.js\""), home);
        assertEquals(200, get(base + "/gpu/assets/uPlot.iife.min.js").statusCode());
        assertEquals(404, get(base + "/cards").statusCode());
    }

    @Test
    void onlyTheListedStaticFilesAreServedAndTheyRevalidate() throws Exception {
        String base = start(ConsoleSettings.defaults());
        HttpResponse<String> script = get(base + "/assets/uPlot.iife.min.js");
        assertEquals(200, script.statusCode());
        assertTrue(script.body().contains("uPlot"));
        String etag = script.headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> again = client.send(HttpRequest.newBuilder(URI.create(base + "/assets/uPlot.iife.min.js"))
                .header("If-None-Match", etag).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(304, again.statusCode());
        assertEquals(200, get(base + "/assets/console.css").statusCode());
        assertEquals(404, get(base + "/assets/..%2Fmodule-info.class").statusCode());
        assertEquals(404, get(base + "/assets/Console.class").statusCode());
    }

    @Test
    void prometheusDownGivesAClearPageNotAHang() throws Exception {
        String base = start(ConsoleSettings.defaults());
        history.failure = "Prometheus at http://prometheus:9090/ is unreachable (connection refused) [query x]";
        HttpResponse<String> page = get(base + "/cards");
        assertEquals(503, page.statusCode());
        assertTrue(page.body().contains("The figures cannot be read now: Prometheus at http://prometheus:9090/ is "
                + "unreachable (connection refused)"), page.body());
        history.failure = null;
        assertEquals(200, get(base + "/cards").statusCode(), "the next request asks again");
    }

    @Test
    void concurrentPagesShareOneReadingOfTheFleet() throws Exception {
        String base = start(ConsoleSettings.defaults().withFresh(Duration.ofMinutes(5)));
        get(base + "/cards");
        int after = history.calls.get();
        get(base + "/nodes");
        get(base + "/cards?cards.sort=model");
        assertEquals(after, history.calls.get(), "the fleet now is reused while fresh");
    }

    @Test
    void eachPageAsksOnlyForTheContainersItShows() throws Exception {
        String base = start(ConsoleSettings.defaults().withFresh(Duration.ZERO));
        get(base + "/cards");
        get(base + "/card?uuid=GPU-A1");
        get(base + "/node?name=node-a");
        get(base + "/workload?namespace=ml-team&pod=llm-inference&container=server");
        get(base + "/rightsizing");
        assertEquals(List.of(FleetScope.CARDS_ONLY, new FleetScope.OnCard("GPU-A1"), new FleetScope.OnNode("node-a"),
                new FleetScope.OfWorkload(new WorkloadRef("ml-team", "llm-inference", "server")),
                FleetScope.EVERYTHING), history.scopes);
    }

    @Test
    void queriesLinkIntoPrometheusWhenItsExternalAddressIsKnown() throws Exception {
        String base = start(ConsoleSettings.defaults().withPrometheusExternal(
                Optional.of(URI.create("https://prometheus.example.com/"))));
        String page = get(base + "/").body();
        assertTrue(page.contains("href=\"https://prometheus.example.com/graph?g0.expr=up%7Bjob%3D%22%3Cscript%3E%22%7D"
                + "&amp;g0.tab=1\""), page);
    }

    /** A clock a test moves by hand. */
    private static final class MovingClock extends Clock {
        private volatile Instant now = NOW;

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    /**
     * A console refreshing with {@code settings}. Tests that count the refresh's reads (each read of
     * the fleet history counts) turn the other windows' round off: it reads six windows of its own
     * after the first round ({@link #theOtherWindowsAreReadAfterTheFirstRoundAndServedKeptOnTheirFirstVisit}).
     */
    private Console startRefreshing(ConsoleSettings settings, Clock clock) {
        history = new FixedHistory();
        history.gate = new java.util.concurrent.CountDownLatch(1);
        Console console = Console.create(history, settings, clock);
        server = WebServer.builder().port(0).host("127.0.0.1").shutdownHook(false).routing(console::routing).build()
                .start();
        return console;
    }

    @Test
    void itIsReadyOnceTheFirstRefreshHasAnsweredAndRefreshesWhetherOrNotAnyoneLooks() throws Exception {
        Console console = startRefreshing(ConsoleSettings.defaults().withFresh(Duration.ofMillis(20))
                .withRefresh(Duration.ofMillis(100), Duration.ofMinutes(5)).withOtherWindowsRefresh(Duration.ZERO),
                Clock.fixed(NOW, ZoneOffset.UTC));
        assertTrue(console.ready(), "without a background refresh there is nothing to wait for");
        Thread refreshing = console.warmUp(Duration.ofMillis(100));
        try {
            // The first reading at start: the fleet now (every container, the cards' view derived from
            // it) and the trends; the summaries (a window, a week) once those have answered.
            awaitCalls(2);
            assertFalse(console.ready(), "Prometheus has not answered the first refresh yet");
            assertTrue(console.notReadyReason().contains("Prometheus"), console.notReadyReason());
            history.gate.countDown();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!console.ready() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(console.ready());
            // Nobody visits: the figures are read again all the same.
            int first = history.calls.get();
            awaitCalls(first + 10);
            assertTrue(history.scopes.stream().filter(FleetScope.EVERYTHING::equals).count() >= 3,
                    "every container read again in the background: " + history.scopes);
            assertFalse(history.scopes.contains(FleetScope.CARDS_ONLY), "the cards read apart: " + history.scopes);
            // A visit is served the kept answers: no read of its own for the fleet-wide figures.
            String page = get("http://127.0.0.1:" + server.port() + "/workloads").body();
            assertTrue(page.contains("as of <time>" + NOW + "</time>, refreshed every "), page);
        } finally {
            refreshing.interrupt();
        }
    }

    @Test
    void theSummariesOverAWindowAreReadAgainOnlyEverySummaryIntervalAndPagesJudgeTheirAgeByIt() throws Exception {
        MovingClock clock = new MovingClock();
        Console console = startRefreshing(ConsoleSettings.defaults().withRefresh(Duration.ofMillis(100),
                Duration.ofMinutes(1)).withSummaryRefresh(Duration.ofMinutes(10)).withOtherWindowsRefresh(Duration.ZERO),
                clock);
        history.gate.countDown();
        Thread refreshing = console.warmUp(Duration.ofMillis(100));
        try {
            awaitCalls(5);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!console.ready() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(2, history.summaryCalls.get(), "the first refresh reads the window's use and the week's hours");
            // Refreshes go on (the fleet now each time); the summaries are not read again before 10 minutes.
            for (int minute = 1; minute <= 9; minute++) {
                clock.now = NOW.plus(Duration.ofMinutes(minute));
                awaitCalls(history.calls.get() + 6);
            }
            assertEquals(2, history.summaryCalls.get(), "summaries read again before their interval");
            // Nine minutes old, read every ten: no note that they are old; the header says both intervals.
            String page = get("http://127.0.0.1:" + server.port() + "/workloads").body();
            assertTrue(page.contains("as of <time>" + NOW + "</time>, refreshed every "), page);
            assertTrue(page.contains(", its summaries over a window every 10m"), page);
            assertFalse(page.contains("old and are being read again"), page);
            clock.now = NOW.plus(Duration.ofMinutes(10));
            awaitSummaryCalls(4);
            assertEquals(4, history.summaryCalls.get(), "summaries read again once their interval had passed");
        } finally {
            refreshing.interrupt();
        }
    }

    /**
     * A console to refresh every 100 ms whose pages wait {@code readLimit}, its summaries over a
     * window held until {@code history.summaryGate} opens (an engine slow at weeks); everything else
     * answers at once.
     */
    private Console summariesHeld(Duration readLimit, MovingClock clock) {
        Console started = startRefreshing(ConsoleSettings.defaults().withReadLimit(readLimit)
                .withRefresh(Duration.ofMillis(100), Duration.ofMinutes(1)).withSummaryRefresh(Duration.ofMinutes(10))
                .withOtherWindowsRefresh(Duration.ZERO), clock);
        history.summaryGate = new java.util.concurrent.CountDownLatch(1);
        history.gate.countDown();
        return started;
    }

    @Test
    void summariesSlowerThanAPageWaitsAreAskedOnceAndKeptWhenTheyArrive() throws Exception {
        MovingClock clock = new MovingClock();
        // A page waits 300 ms; the summaries take as long as the test says (an engine slow at weeks).
        Console console = summariesHeld(Duration.ofMillis(300), clock);
        Thread refreshing = console.warmUp(Duration.ofMillis(100));
        try {
            awaitSummaryCalls(2);
            // Refreshes go on past the page's wait for the summaries: the fleet now and the trends
            // each time, the summaries still being read and not asked again beside them.
            awaitCalls(history.calls.get() + 12);
            assertEquals(2, history.summaryCalls.get(), "summaries asked again while the first round was being read");
            // A round slower than a page waits is slow, not wedged: the console stays ready, and a
            // page that needs the summaries joins the round (waits its own 300 ms and says so)
            // instead of asking for them again beside it.
            assertTrue(console.ready(), console.notReadyReason());
            HttpResponse<String> meanwhile = get("http://127.0.0.1:" + server.port() + "/rightsizing");
            assertEquals(503, meanwhile.statusCode(), meanwhile.body());
            assertTrue(meanwhile.body().contains("have not arrived after 0.3 s"), meanwhile.body());
            assertEquals(2, history.summaryCalls.get(), "a page asked for the summaries again beside the round");
            history.summaryGate.countDown();
            clock.now = NOW.plus(Duration.ofMinutes(1));
            awaitCalls(history.calls.get() + 12);
            // The round answered after the refresh had stopped waiting for it: kept, and read as of
            // when it was asked, so not due again before ten minutes from then.
            assertEquals(2, history.summaryCalls.get(), "a round that answered late was asked again at once");
            String page = get("http://127.0.0.1:" + server.port() + "/rightsizing").body();
            assertTrue(page.contains("llm-inference"), page);
            assertEquals(2, history.summaryCalls.get(), "the page read the summaries itself instead of the round's");
            clock.now = NOW.plus(Duration.ofMinutes(10));
            awaitSummaryCalls(4);
            assertEquals(4, history.summaryCalls.get(), "summaries read again once their interval had passed");
        } finally {
            refreshing.interrupt();
        }
    }

    @Test
    void theFleetNowAndTheDaysChartAreReadBeforeTheSummaries() throws Exception {
        Console console = startRefreshing(ConsoleSettings.defaults().withRefresh(Duration.ofMillis(100),
                Duration.ofMinutes(1)).withSummaryRefresh(Duration.ofMinutes(10)).withOtherWindowsRefresh(Duration.ZERO),
                new MovingClock());
        // The fleet now held (an engine whose few query slots it must have first).
        java.util.concurrent.CountDownLatch fleetNow = new java.util.concurrent.CountDownLatch(1);
        history.alter = readings -> {
            try {
                fleetNow.await();
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
            }
            return readings;
        };
        history.gate.countDown();
        Thread refreshing = console.warmUp(Duration.ofMillis(100));
        try {
            awaitCalls(2);
            Thread.sleep(300);
            assertEquals(0, history.summaryCalls.get(), "the summaries were sent beside a fleet now still being read");
            fleetNow.countDown();
            awaitSummaryCalls(2);
            assertEquals(2, history.summaryCalls.get());
        } finally {
            refreshing.interrupt();
        }
    }

    @Test
    void theOverviewIsNotHeldForAWeeksCardHoursStillBeingRead() throws Exception {
        // A page waits up to 20 s for what it needs; the summaries take as long as the test says.
        Thread refreshing = summariesHeld(Duration.ofSeconds(20), new MovingClock()).warmUp(Duration.ofMillis(100));
        try {
            awaitSummaryCalls(2);
            long asked = System.nanoTime();
            HttpResponse<String> meanwhile = get("http://127.0.0.1:" + server.port() + "/");
            long tookMillis = (System.nanoTime() - asked) / 1_000_000;
            // Served without the funnel's card-hours, saying so, well before the page's own 20 s.
            assertEquals(200, meanwhile.statusCode(), meanwhile.body());
            assertTrue(tookMillis < 10_000, "the overview waited " + tookMillis + " ms for the card-hours");
            assertTrue(meanwhile.body().contains("is still being read"), meanwhile.body());
            assertFalse(meanwhile.body().contains("Funnel by namespace"), meanwhile.body());
            assertTrue(meanwhile.body().contains("llm-inference"), "the rest of the page is there");
            assertEquals(2, history.summaryCalls.get(), "the overview asked for the card-hours again beside the round");
            history.summaryGate.countDown();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            String after = "";
            while (!after.contains("Funnel by namespace") && System.nanoTime() < deadline) {
                Thread.sleep(50);
                after = get("http://127.0.0.1:" + server.port() + "/").body();
            }
            // Kept once it arrived: served from then on.
            assertTrue(after.contains("Funnel by namespace"), after);
            assertFalse(after.contains("is still being read"), after);
            assertEquals(2, history.summaryCalls.get(), "the round's card-hours were read again for the page");
        } finally {
            refreshing.interrupt();
        }
    }

    @Test
    void windowsKeptByTheRefreshAreServedOnTheirFirstVisitWithoutAReadOfTheirOwn() throws Exception {
        MovingClock clock = new MovingClock();
        Console console = startRefreshing(ConsoleSettings.defaults().withRefresh(Duration.ofMillis(100),
                Duration.ofMinutes(1)).withSummaryRefresh(Duration.ofMinutes(10))
                .withKeptWindows(List.of(Duration.ofDays(7), Duration.ofDays(30))).withOtherWindowsRefresh(Duration.ZERO),
                clock);
        history.gate.countDown();
        Thread refreshing = console.warmUp(Duration.ofMillis(100));
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!console.ready() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            // The defaults (use over 14 days, a week's hours), then use over 7 and 30 days, hours over 30
            // (a week's hours are the default's).
            assertEquals(5, history.summaryCalls.get(), "the first refresh reads the kept windows too");
            clock.now = NOW.plus(Duration.ofMinutes(9));
            awaitCalls(history.calls.get() + 6);
            for (String page : List.of("/workloads?window=7d", "/rightsizing?window=30d", "/namespaces?window=30d",
                    "/showback?window=30d")) {
                String body = get("http://127.0.0.1:" + server.port() + page).body();
                // Judged against the summaries' interval: nine minutes old is not old.
                assertTrue(body.contains(", its summaries over a window every 10m"), page + ": " + body);
                assertFalse(body.contains("old and are being read again"), page);
            }
            assertEquals(5, history.summaryCalls.get(), "a kept window was read again for its first visit");
            // A window not kept is read when asked.
            get("http://127.0.0.1:" + server.port() + "/workloads?window=24h");
            assertEquals(6, history.summaryCalls.get());
        } finally {
            refreshing.interrupt();
        }
        assertThrows(IllegalArgumentException.class,
                () -> ConsoleSettings.defaults().withKeptWindows(List.of(Duration.ofDays(5))));
    }

    @Test
    void aWindowAVisitorAskedForIsReadWithTheSummariesUntilItsVisitsStop() throws Exception {
        MovingClock clock = new MovingClock();
        Console console = startRefreshing(ConsoleSettings.defaults().withRefresh(Duration.ofMillis(100),
                Duration.ofMinutes(1)).withSummaryRefresh(Duration.ofMinutes(10))
                .withKeepVisited(Duration.ofSeconds(2)).withOtherWindowsRefresh(Duration.ZERO), clock);
        history.gate.countDown();
        Thread refreshing = console.warmUp(Duration.ofMillis(100));
        try {
            awaitSummaryCalls(2);
            assertEquals(List.of("hours 7d", "use 14d"), summaryWindows(0, 2), "nothing visited: the defaults");
            // A visitor's first look at other windows is a read of its own, and not yet said to be kept.
            String first = get("http://127.0.0.1:" + server.port() + "/workloads?window=24h").body();
            assertFalse(first.contains(", its summaries over a window every 10m"), first);
            get("http://127.0.0.1:" + server.port() + "/namespaces?window=30d");
            assertEquals(List.of("use 1d", "hours 30d"), history.summaryWindows.subList(2, 4));
            // The next round reads them with the defaults; the pages then say they are kept.
            clock.now = NOW.plus(Duration.ofMinutes(10));
            awaitSummaryCalls(8);
            assertEquals(List.of("hours 30d", "hours 7d", "use 14d", "use 1d"), summaryWindows(4, 8));
            String kept = get("http://127.0.0.1:" + server.port() + "/workloads?window=24h").body();
            assertTrue(kept.contains(", its summaries over a window every 10m"), kept);
            assertEquals(8, history.summaryCalls.get(), "a kept window was read again for a visit");
            // Nobody looks at them for longer than they are kept for: a round reads the defaults only.
            Thread.sleep(2_100);
            clock.now = NOW.plus(Duration.ofMinutes(20));
            awaitSummaryCalls(10);
            Thread.sleep(300);
            assertEquals(List.of("hours 7d", "use 14d"), summaryWindows(8, history.summaryWindows.size()));
        } finally {
            refreshing.interrupt();
        }
        assertEquals(Duration.ZERO, ConsoleSettings.defaults().withKeepVisited(Duration.ZERO).keepVisited());
        assertThrows(IllegalArgumentException.class,
                () -> ConsoleSettings.defaults().withKeepVisited(Duration.ofSeconds(-1)));
    }

    @Test
    void theOtherWindowsAreReadAfterTheFirstRoundAndServedKeptOnTheirFirstVisit() throws Exception {
        MovingClock clock = new MovingClock();
        Console console = startRefreshing(ConsoleSettings.defaults().withRefresh(Duration.ofMillis(100),
                Duration.ofMinutes(1)).withSummaryRefresh(Duration.ofMinutes(10))
                .withOtherWindowsRefresh(Duration.ofMinutes(30)).withKeptWindows(List.of(Duration.ofDays(30)))
                // A visit would have the window read with every round (the test above): not here.
                .withKeepVisited(Duration.ZERO), clock);
        history.summaryGate = new java.util.concurrent.CountDownLatch(1);
        history.gate.countDown();
        Thread refreshing = console.warmUp(Duration.ofMillis(100));
        try {
            // The first round (the defaults, and 30 days kept by the settings) is read alone: the
            // other windows wait until it has answered.
            awaitSummaryCalls(4);
            Thread.sleep(400);
            assertEquals(List.of("hours 30d", "hours 7d", "use 14d", "use 30d"), summaryWindows(0, 4),
                    "the other windows were read beside the first round");
            history.summaryGate.countDown();
            // Then every other window the pages offer, once each: the use over 24 hours and 7 days, the
            // card-hours over 24 hours and 14 days.
            awaitSummaryCalls(8);
            Thread.sleep(400);
            assertEquals(List.of("hours 14d", "hours 1d", "use 1d", "use 7d"), summaryWindows(4,
                    history.summaryWindows.size()));
            assertEquals(8, history.summaryCalls.get(), "the other windows were read more than once");
            // Their first visit is served kept, judged against their own interval.
            for (String page : List.of("/workloads?window=7d", "/rightsizing?window=24h", "/namespaces?window=14d",
                    "/showback?window=24h", "/capacity?window=7d")) {
                String body = get("http://127.0.0.1:" + server.port() + page).body();
                assertTrue(body.contains(", its summaries over a window every 30m"), page + ": " + body);
                assertFalse(body.contains("old and are being read again"), page);
            }
            assertEquals(8, history.summaryCalls.get(), "another window was read for its first visit");
            // The next rounds: the summaries every 10 minutes, the other windows every 30.
            clock.now = NOW.plus(Duration.ofMinutes(10));
            awaitSummaryCalls(12);
            Thread.sleep(400);
            assertEquals(12, history.summaryCalls.get(), "the other windows were read again before their interval");
            String body = get("http://127.0.0.1:" + server.port() + "/workloads?window=7d").body();
            assertFalse(body.contains("old and are being read again"), "ten minutes old, read every 30: " + body);
            clock.now = NOW.plus(Duration.ofMinutes(30));
            awaitSummaryCalls(20);
            Thread.sleep(400);
            assertEquals(20, history.summaryCalls.get());
        } finally {
            refreshing.interrupt();
        }
        assertEquals(Duration.ofMinutes(10), ConsoleSettings.defaults().withSummaryRefresh(Duration.ofMinutes(10))
                .withOtherWindowsRefresh(Duration.ofMinutes(1)).otherWindowsRefresh(), "more often than the summaries");
        assertThrows(IllegalArgumentException.class,
                () -> ConsoleSettings.defaults().withOtherWindowsRefresh(Duration.ofSeconds(-1)));
    }

    @Test
    void aWindowVisitedBeforeAnyRoundReadItIsReadByTheOtherWindowsRound() throws Exception {
        MovingClock clock = new MovingClock();
        Console console = startRefreshing(ConsoleSettings.defaults().withRefresh(Duration.ofSeconds(1),
                Duration.ofMinutes(1)).withSummaryRefresh(Duration.ofMinutes(10))
                .withOtherWindowsRefresh(Duration.ofMinutes(30)), clock);
        history.gate.countDown();
        Thread refreshing = console.warmUp(Duration.ofSeconds(1));
        try {
            awaitSummaryCalls(2);
            // Visited after the first round, before the other windows' round (a refresh later): the
            // visit reads the window itself, and the next round of the summaries is ten minutes away.
            get("http://127.0.0.1:" + server.port() + "/workloads?window=7d");
            awaitSummaryCalls(8);
            Thread.sleep(400);
            // However the visit and the round fell, the window is kept by the other windows' round
            // now, and the page judges its figures by that round's interval until a round of the
            // summaries reads it.
            int calls = history.summaryCalls.get();
            String body = get("http://127.0.0.1:" + server.port() + "/workloads?window=7d").body();
            assertTrue(body.contains(", its summaries over a window every 30m"), body);
            assertEquals(calls, history.summaryCalls.get(), "the visited window was read again for a visit");
            // The next round of the summaries reads it with the defaults, and the page says so.
            clock.now = NOW.plus(Duration.ofMinutes(10));
            awaitSummaryCalls(calls + 3);
            Thread.sleep(400);
            assertEquals(calls + 3, history.summaryCalls.get());
            assertTrue(get("http://127.0.0.1:" + server.port() + "/workloads?window=7d").body()
                    .contains(", its summaries over a window every 10m"));
        } finally {
            refreshing.interrupt();
        }
    }

    @Test
    void readinessWaitsForTheFirstRefreshNoLongerThanItsTimeout() throws Exception {
        Console console = startRefreshing(ConsoleSettings.defaults().withRefresh(Duration.ofMinutes(1),
                Duration.ofMillis(200)).withOtherWindowsRefresh(Duration.ZERO), Clock.fixed(NOW, ZoneOffset.UTC));
        Thread refreshing = console.warmUp(Duration.ofMinutes(1));
        try {
            assertFalse(console.ready());
            Thread.sleep(400);
            assertTrue(console.ready(), "a Prometheus that does not answer holds readiness for the timeout only");
            history.gate.countDown();
        } finally {
            refreshing.interrupt();
        }
    }

    @Test
    void whenRefreshingFailsThePagesKeepTheLastFiguresAndSayHowOldTheyAre() throws Exception {
        MovingClock clock = new MovingClock();
        Console console = startRefreshing(ConsoleSettings.defaults().withRefresh(Duration.ofMillis(300),
                Duration.ofMinutes(1)).withOtherWindowsRefresh(Duration.ZERO), clock);
        history.gate.countDown();
        Thread refreshing = console.warmUp(Duration.ofMillis(300));
        try {
            awaitCalls(5);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!console.ready() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            history.failure = "connection refused";
            int before = history.calls.get();
            awaitCalls(before + 5);
            clock.now = NOW.plus(Duration.ofMinutes(10));
            HttpResponse<String> response = get("http://127.0.0.1:" + server.port() + "/");
            assertEquals(200, response.statusCode(), response.body());
            assertTrue(response.body().contains("as of <time>" + NOW + "</time>"), response.body());
            assertTrue(response.body().contains("These figures are 10m old: reading them again from Prometheus "
                    + "failed (last at "), response.body());
            assertTrue(response.body().contains("): connection refused. The console keeps these"), response.body());
        } finally {
            refreshing.interrupt();
        }
    }

    /** The windows of the summaries read from the {@code from}th read to the {@code to}th, sorted: a round reads them at once. */
    private List<String> summaryWindows(int from, int to) {
        return history.summaryWindows.subList(from, to).stream().sorted().toList();
    }

    private void awaitSummaryCalls(int calls) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (history.summaryCalls.get() < calls && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    private void awaitCalls(int calls) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (history.calls.get() < calls && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(history.calls.get() >= calls, "reads: " + history.calls.get() + ", expected " + calls);
    }
}
