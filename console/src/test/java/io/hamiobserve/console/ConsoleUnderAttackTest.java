package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console tried as an attacker and an unlucky operator would (issue "the console under attack
 * and failure"): parameters that decode to nothing, HEAD, a fleet whose figures are missing, a
 * card gone from the metrics, and the four states a page's figures can be in.
 */
class ConsoleUnderAttackTest {
    static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    static final List<String> PAGES = List.of("/", "/nodes", "/node?name=node-a", "/cards",
            "/card?uuid=GPU-A1", "/workloads", "/workload?namespace=ml-team&pod=llm-inference&container=server",
            "/namespaces", "/rightsizing", "/capacity");

    private final HttpClient client = HttpClient.newHttpClient();
    private WebServer server;
    private FixedHistory history = new FixedHistory();
    private Thread refreshing;

    private String start(ConsoleSettings settings, Clock clock) {
        Console console = Console.create(history, settings, clock);
        server = WebServer.builder().port(0).host("127.0.0.1").shutdownHook(false).routing(console::routing).build()
                .start();
        if (!settings.equals(ConsoleSettings.defaults())) {
            refreshing = console.warmUp(settings.refresh());
        }
        return "http://127.0.0.1:" + server.port();
    }

    private String start() {
        return start(ConsoleSettings.defaults(), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    @AfterEach
    void stop() {
        if (refreshing != null) {
            refreshing.interrupt();
        }
        if (server != null) {
            server.stop();
        }
    }

    private HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    // ---- Finding 4: parameters that are not UTF-8 text ----

    @Test
    void aParameterThatDecodesToNoCharacterIs400AndAsksNothingOfPrometheus() throws Exception {
        String base = start();
        for (String bad : List.of("%EF%BF%BD", "%FF", "%C0%AF", "%ED%A0%BD", "a%00b", "%1B%5B2J")) {
            for (String page : List.of("/node?name=", "/card?uuid=", "/workload?pod=x&container=y&namespace=",
                    "/workload?namespace=x&container=y&pod=", "/workload?namespace=x&pod=y&container=")) {
                HttpResponse<String> response = get(base + page + bad);
                assertEquals(400, response.statusCode(), page + bad + ": " + response.body());
                assertTrue(response.body().contains("is not valid UTF-8 text"), response.body());
                assertFalse(response.body().contains("check that Prometheus is up"), response.body());
                assertEquals(Console.CONTENT_SECURITY_POLICY,
                        response.headers().firstValue("Content-Security-Policy").orElseThrow());
            }
        }
        assertEquals(0, history.calls.get(), "a refused parameter reached the history");
        // Text that is UTF-8 is read as it is, whatever the script.
        assertEquals(404, get(base + "/node?name=%E8%8A%82%E7%82%B9").statusCode());
        assertTrue(history.scopes.contains(new FleetScope.OnNode("节点")), history.scopes.toString());
    }

    @Test
    void onlyTheOfferedWindowsStartAReadOfAWindow() throws Exception {
        String base = start();
        for (String window : PageKit.WINDOWS) {
            assertEquals(200, get(base + "/workloads?window=" + window).statusCode(), window);
        }
        int calls = history.calls.get();
        // A refused window is never read, so never noted as visited and read again by the refresh.
        for (String window : List.of("3d", "25h", "90d", "1h", "7d%20", "x", "-1d", "0d", "99999999999999999999d",
                "%3Cscript%3Ealert(1)%3C%2Fscript%3E", "%227d%22")) {
            HttpResponse<String> response = get(base + "/workloads?window=" + window);
            assertEquals(400, response.statusCode(), window);
            assertTrue(response.body().contains("is not one the console offers: 24h, 7d, 14d, 30d"), response.body());
        }
        // A control character is refused before the window is even looked at.
        HttpResponse<String> newline = get(base + "/workloads?window=7d%0A24h");
        assertEquals(400, newline.statusCode());
        assertTrue(newline.body().contains("control characters"), newline.body());
        assertEquals(calls, history.calls.get(), "a refused window started a read");
    }

    @Test
    void aTableFilterIsLiteralTextMatchedCaseBlindAndNeverLeaksIntoThePage() throws Exception {
        String base = start();
        // The filter reads every cell's text of a row only when one is given (Table.select): a
        // hostile one is still text, matched literally, and echoed escaped or not at all.
        String markup = "%3Cscript%3Ealert(1)%3C%2Fscript%3E";
        for (String filter : List.of(markup, ".*", "%5Ba-z%5D%2B%24", "%25%25%25", "%5C%5C", "x".repeat(4_000))) {
            HttpResponse<String> response = get(base + "/workloads?workloads.q=" + filter);
            assertEquals(200, response.statusCode(), filter);
            String body = response.body();
            assertTrue(body.contains("No row matches the filter."), filter + ": " + body);
            assertFalse(body.contains("<script>alert(1)"), body);
            assertFalse(body.contains("<svg onload=alert(2)>"), body);
        }
        // The hostile pod's name is matched as the text it is, and its row shown escaped.
        String attribute = get(base + "/workloads?workloads.q=%22%3E%3Csvg%20onload%3Dalert(2)%3E").body();
        assertTrue(attribute.contains("1 of 3 rows match"), attribute);
        assertTrue(attribute.contains(">pod&#34;&gt;&lt;svg onload=alert(2)&gt;</a>")
                || attribute.contains(">pod\"&gt;&lt;svg onload=alert(2)&gt;</a>"), attribute);
        assertFalse(attribute.contains("<svg onload=alert(2)>"), attribute);
        // Plain text matches any cell, whatever its case: a pod in one column, a container in another.
        String upper = get(base + "/workloads?workloads.q=ML-TEAM").body();
        assertTrue(upper.contains("2 of 3 rows match"), upper);
        String container = get(base + "/workloads?workloads.q=jupyter").body();
        assertTrue(container.contains("1 of 3 rows match"), container);
    }

    // ---- Finding 7: HEAD ----

    @Test
    void headAnswersLikeGetWithoutABodyOnEveryPageAndFile() throws Exception {
        String base = start();
        List<String> paths = new ArrayList<>(PAGES);
        paths.add("/workloads?export=workloads.csv");
        paths.add("/assets/console.css");
        for (String path : paths) {
            HttpResponse<String> got = get(base + path);
            HttpResponse<String> head = client.send(HttpRequest.newBuilder(URI.create(base + path))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(got.statusCode(), head.statusCode(), path);
            assertEquals(200, head.statusCode(), path);
            assertEquals("", head.body(), path);
            assertEquals(got.headers().firstValue("Content-Type"), head.headers().firstValue("Content-Type"), path);
            assertTrue(Long.parseLong(head.headers().firstValue("Content-Length").orElse("0")) > 0, path);
        }
        HttpResponse<String> missing = client.send(HttpRequest.newBuilder(URI.create(base + "/assets/nope.css"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(404, missing.statusCode());
    }

    // ---- Finding 1: readiness does not claim a wedged console is ready ----

    @Test
    void aReadWedgedPastTheLimitMakesTheConsoleNotReadyUntilItEnds() throws Exception {
        java.util.concurrent.CountDownLatch wedged = new java.util.concurrent.CountDownLatch(1);
        history.gate = wedged;
        Console console = Console.create(history, ConsoleSettings.defaults().withReadLimit(Duration.ofMillis(300))
                .withRefresh(Duration.ofMinutes(1), Duration.ofMillis(100)), Clock.fixed(NOW, ZoneOffset.UTC));
        long started = System.nanoTime();
        refreshing = console.warmUp(Duration.ofMinutes(1));
        // Past a page's wait (and the ready timeout) the reads are slow, not wedged: ready.
        Thread.sleep(700);
        assertTrue(console.ready(), console.notReadyReason());
        // Past ten of a page's waits, wedged: not ready, and it says why.
        while ((System.nanoTime() - started) / 1e9 < 3.4) {
            Thread.sleep(50);
        }
        assertFalse(console.ready(), "every read is wedged, yet ready");
        assertTrue(console.notReadyReason().contains("been in flight to a fixed test fleet <i> for more than 3.0 s"),
                console.notReadyReason());
        wedged.countDown();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!console.ready() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(console.ready(), console.notReadyReason());
    }

    // ---- Finding 6: no data is never drawn as 0 ----

    @Test
    void aCardWhoseAllocationsAreMissingSaysNoDataNotZero() throws Exception {
        history.alter = readings -> withAllocations(readings, readings.allocations().stream()
                .map(a -> new FleetReadings.Allocation(a.namespace(), a.pod(), a.containerIndex(), a.node(), a.uuid(),
                        Figure.missing(Absence.NOT_REPORTED), a.cores())).toList());
        String page = get(start() + "/card?uuid=GPU-A0").body();
        assertFalse(page.contains("0 B allocated"), page);
        assertTrue(page.contains("allocation of 2 containers: no data"), page);
    }

    // ---- The broken link: a card no longer registered, still held ----

    @Test
    void everyLinkOfEveryPageAnswers() throws Exception {
        history.alter = readings -> {
            List<FleetReadings.Allocation> allocations = new ArrayList<>(readings.allocations());
            // A share on a card whose exporter no longer registers it, on a node with no registered card.
            allocations.add(new FleetReadings.Allocation("ml-team", "orphan", 0, "node-gone", "GPU-GONE",
                    Figure.of(1e9), Figure.of(10)));
            return withAllocations(readings, allocations);
        };
        String base = start();
        HttpResponse<String> gone = get(base + "/card?uuid=GPU-GONE");
        assertEquals(200, gone.statusCode(), gone.body());
        assertTrue(gone.body().contains("is not registered in the metrics now"), gone.body());
        Set<String> seen = new HashSet<>();
        ArrayDeque<String> next = new ArrayDeque<>(PAGES);
        Pattern href = Pattern.compile("href=\"(/[^\"]*)\"");
        while (!next.isEmpty() && seen.size() < 400) {
            String path = next.poll().replace("&amp;", "&");
            if (!seen.add(path)) {
                continue;
            }
            HttpResponse<String> response = get(base + path);
            assertTrue(response.statusCode() < 400, path + " answered " + response.statusCode());
            if (response.headers().firstValue("Content-Type").orElse("").startsWith("text/html")) {
                Matcher links = href.matcher(response.body());
                while (links.find()) {
                    next.add(links.group(1));
                }
            }
        }
        assertTrue(seen.contains("/card?uuid=GPU-GONE"), "the crawl did not reach the card gone: " + seen.size());
        assertTrue(seen.contains("/node?name=node-gone"), "the crawl did not reach the node gone");
    }

    private static FleetReadings withAllocations(FleetReadings r, List<FleetReadings.Allocation> allocations) {
        return new FleetReadings(r.at(), r.registered(), r.hosts(), allocations, r.names(), r.uses(), r.unmanaged(),
                r.quotas(), r.sources(), r.ledgerAges(), r.skips(), r.targetsDown(), r.containersByNode(),
                r.provenance());
    }

    // ---- Banners: the four states of a page's figures ----

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

    private static final String STALE = "old and are being read again; every read so far has succeeded";
    private static final String FAILED = "reading them again from Prometheus failed";
    private static final String NO_DATA = "No data: ";

    private String refreshed(MovingClock clock) throws InterruptedException {
        return refreshed(clock, Duration.ofMillis(200));
    }

    /**
     * A console refreshing every {@code interval}, once its first refresh has read its four reads (the
     * fleet now, a window's use, a week's hours, the day's chart).
     */
    private String refreshed(MovingClock clock, Duration interval) throws InterruptedException {
        String base = start(ConsoleSettings.defaults().withRefresh(interval, Duration.ofMinutes(1)), clock);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (history.calls.get() < 4 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return base;
    }

    @Test
    void freshFiguresCarryNoBanner() throws Exception {
        String page = get(refreshed(new MovingClock()) + "/").body();
        assertTrue(page.contains(", refreshed every "), page);
        assertFalse(page.contains(STALE), page);
        assertFalse(page.contains(FAILED), page);
        assertFalse(page.contains(NO_DATA), page);
    }

    @Test
    void staleFiguresWhoseReadsSucceedDoNotBlamePrometheus() throws Exception {
        MovingClock clock = new MovingClock();
        // No refresh after the first within the test: one at the moved clock would make the figures fresh.
        String base = refreshed(clock, Duration.ofMinutes(2));
        // The figures were read at NOW; the page is asked ten minutes later, every read having succeeded.
        clock.now = NOW.plus(Duration.ofMinutes(10));
        for (String page : List.of("/", "/workloads?window=30d", "/node?name=node-a")) {
            String html = get(base + page).body();
            assertFalse(html.contains(FAILED), page + ": " + html);
            assertFalse(html.contains("Prometheus has failed"), page);
        }
        String html = get(base + "/").body();
        assertTrue(html.contains("These figures are 10m old and are being read again"), html);
    }

    @Test
    void aFailedReadNamesItsQueryAndError() throws Exception {
        MovingClock clock = new MovingClock();
        String base = refreshed(clock);
        history.failure = "Prometheus at http://p:9090/ did not answer within 10.0 s [query card_memory_total]";
        int before = history.calls.get();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (history.calls.get() < before + 5 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        clock.now = NOW.plus(Duration.ofMinutes(10));
        HttpResponse<String> response = get(base + "/");
        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.body().contains("These figures are 10m old: " + FAILED), response.body());
        assertTrue(response.body().contains("did not answer within 10.0 s [query card_memory_total]"), response.body());
        assertFalse(response.body().contains(STALE), response.body());
    }

    @Test
    void aPrometheusWithoutTheExportersSeriesSaysNoData() throws Exception {
        history.noSourcesReported = true;
        history.alter = r -> new FleetReadings(r.at(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(),
                List.of(), List.of(), List.of(), List.of(), List.of(), r.containersByNode(), r.provenance());
        String page = get(start() + "/").body();
        assertTrue(page.contains(NO_DATA + "a fixed test fleet &lt;i&gt; answered every query, but holds none of "
                + "the exporters' series"), page);
        assertFalse(page.contains(FAILED), page);
    }
}
