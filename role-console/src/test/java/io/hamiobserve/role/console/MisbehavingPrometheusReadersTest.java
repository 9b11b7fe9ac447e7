package io.hamiobserve.role.console;

import io.hamiobserve.adapters.prometheus.PrometheusFleetHistory;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.app.testing.CommandLines;
import io.hamiobserve.console.ConsoleSettings;
import io.hamiobserve.testkit.FakePrometheus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static io.hamiobserve.app.testing.CommandLines.assertRefused;
import static io.hamiobserve.app.testing.CommandLines.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The readers of Prometheus — the console and {@code rightsize} — over a Prometheus that
 * misbehaves each way (a fake one, testkit's {@link FakePrometheus}): a bounded wait, a message
 * that names the query, a non-zero exit with one line, pages that answer again once it mends.
 */
class MisbehavingPrometheusReadersTest {
    private final List<AutoCloseable> open = new ArrayList<>();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable each : open) {
            each.close();
        }
    }

    private FakePrometheus fake(FakePrometheus.Mode mode) throws IOException {
        FakePrometheus fake = FakePrometheus.start(mode);
        open.add(fake);
        return fake;
    }

    private static void assertFailsWithOneLine(CommandLines.Outcome outcome, String said) {
        assertEquals(1, outcome.exit(), outcome.toString());
        assertEquals(1, outcome.err().lines().count(), outcome.err());
        assertTrue(outcome.err().startsWith("hami-observe: rightsize: "), outcome.err());
        assertTrue(outcome.err().contains(said), said + " <- " + outcome.err());
    }

    @Test
    void rightsizeExitsNonZeroWithOneLineForEachMisbehaviour() throws Exception {
        record Case(FakePrometheus.Mode mode, String says) {
        }
        List<Case> cases = List.of(
                new Case(FakePrometheus.Mode.STALLED_BODY, "did not send its whole answer within 1.0 s"),
                new Case(FakePrometheus.Mode.SILENT, "did not answer within 1.0 s"),
                new Case(FakePrometheus.html(200), "not its JSON"),
                new Case(FakePrometheus.status(503), "HTTP 503"),
                new Case(FakePrometheus.error(422, "execution", "query timed out"), "execution: query timed out"),
                new Case(FakePrometheus.redirect("http://elsewhere.example/"), "redirects are not followed"),
                new Case(FakePrometheus.json(200, FakePrometheus.EMPTY_VECTOR), "holds none of the exporters' series"));
        for (Case each : cases) {
            FakePrometheus fake = fake(each.mode());
            long started = System.nanoTime();
            CommandLines.Outcome outcome = run("rightsize", "--prometheus", fake.url().toString(),
                    "--prometheus-timeout", "1s");
            double seconds = (System.nanoTime() - started) / 1e9;
            assertFailsWithOneLine(outcome, each.says());
            assertTrue(seconds < 8, each.says() + " took " + seconds + " s");
        }
        assertFailsWithOneLine(run("rightsize", "--prometheus", FakePrometheus.refusing().toString()),
                "unreachable (connection refused)");
    }

    @Test
    void invalidRoutePrefixesAndUrlsAreRefusedWithOneLine() {
        for (String prefix : List.of("/gpu/../x", "/gpu//x", "/g pu", "gpu", "/./x", "/gpu/..")) {
            assertRefused(run("console", "--prometheus", "http://p:9090", "--console.route-prefix", prefix),
                    "--console.route-prefix");
        }
        assertRefused(run("console", "--prometheus", "http://p:9090/#x"), "#fragment");
    }

    private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private ConsoleServing.Served serve(FakePrometheus fake, Duration timeout) {
        ConsoleServing.Served served = ConsoleServing.serve(EdgeConfig.defaults(), "127.0.0.1:0",
                ConsoleSettings.defaults().withReadLimit(timeout.multipliedBy(3)),
                PrometheusFleetHistory.at(fake.url(), timeout));
        open.add(served.server()::stop);
        return served;
    }

    @Test
    void aStalledPrometheusGivesAPageThatSaysSoAndTheConsoleRecoversWhenItMends() throws Exception {
        FakePrometheus fake = fake(FakePrometheus.Mode.STALLED_BODY);
        ConsoleServing.Served served = serve(fake, Duration.ofSeconds(1));
        int port = served.server().port();
        long started = System.nanoTime();
        HttpResponse<String> page = get(port, "/nodes");
        assertTrue((System.nanoTime() - started) / 1e9 < 10, "the page took " + (System.nanoTime() - started) / 1e9);
        assertEquals(503, page.statusCode(), page.body());
        // Prometheus's deadline names the query; the page's own bound (three timeouts) answers first
        // when the background refresh holds most of the 16 slots meanwhile.
        assertTrue(page.body().contains("did not send its whole answer within 1.0 s") && page.body().contains("[query ")
                || page.body().contains("have not arrived after 3.0 s"), page.body());
        assertEquals(200, get(port, "/healthz").statusCode());
        fake.mode(FakePrometheus.Mode.EMPTY);
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        int status = 0;
        while (status != 200 && System.nanoTime() < deadline) {
            status = get(port, "/nodes").statusCode();
        }
        assertEquals(200, status, "the console did not answer again once Prometheus mended");
        assertEquals(200, get(port, "/readyz").statusCode());
    }

    @Test
    void eachMisbehaviourKeepsTheLastGoodFiguresWithTheQueryAndTheErrorAndGoesAwayWhenItMends() throws Exception {
        FakePrometheus.Mode healthy = FakePrometheus.Mode.EMPTY;
        FakePrometheus fake = fake(healthy);
        ConsoleServing.Served served = ConsoleServing.serve(EdgeConfig.defaults(), "127.0.0.1:0",
                ConsoleSettings.defaults().withRefresh(Duration.ofMillis(200), Duration.ofSeconds(30))
                        .withReadLimit(Duration.ofSeconds(3)), PrometheusFleetHistory.at(fake.url(), Duration.ofSeconds(1)));
        open.add(served.server()::stop);
        int port = served.server().port();
        awaitPage(port, "/", page -> !page.contains("reading them again from Prometheus failed"));
        record Case(FakePrometheus.Mode mode, String says) {
        }
        for (Case each : List.of(
                new Case(FakePrometheus.Mode.STALLED_BODY, "did not send its whole answer within 1.0 s"),
                new Case(FakePrometheus.Mode.SILENT, "did not answer within 1.0 s"),
                new Case(FakePrometheus.html(200), "not its JSON"),
                new Case(FakePrometheus.status(503), "HTTP 503"),
                new Case(FakePrometheus.error(422, "execution", "query timed out"), "execution: query timed out"),
                new Case(FakePrometheus.redirect("http://elsewhere.example/"), "redirects are not followed"),
                new Case(FakePrometheus.json(200, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\","
                        + "\"result\":[]}}"), "returned a matrix, not a vector"))) {
            fake.mode(each.mode());
            // A read begun under the previous misbehaviour may still end in its failure after the mend:
            // wait for this misbehaviour's own.
            String page = awaitPage(port, "/", body -> body.contains("reading them again from Prometheus failed")
                    && body.contains(each.says()));
            // The kept figures are served (200), saying how old they are, which query failed and why.
            assertTrue(page.contains(each.says()), each.says() + " <- " + page);
            assertTrue(page.contains("[query "), page);
            fake.mode(healthy);
            awaitPage(port, "/", body -> !body.contains("reading them again from Prometheus failed"));
        }
    }

    /** The page at {@code path} once it answers 200 and {@code until} holds (within 20 s). */
    private String awaitPage(int port, String path, java.util.function.Predicate<String> until) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        HttpResponse<String> last = null;
        while (System.nanoTime() < deadline) {
            last = get(port, path);
            if (last.statusCode() == 200 && until.test(last.body())) {
                return last.body();
            }
            Thread.sleep(100);
        }
        throw new AssertionError("not reached within 20 s: " + (last == null ? "no answer"
                : last.statusCode() + " " + last.body()));
    }

    @Test
    void aParameterThatIsNotUtf8NeitherQueriesPrometheusNorFlipsItsHealth() throws Exception {
        // A healthy Prometheus holding nothing (an empty matrix to a range query: the charts' reads
        // succeed too, so the source's health is 1 whichever of the refresh's reads ends last).
        FakePrometheus fake = fake(FakePrometheus.Mode.EMPTY);
        ConsoleServing.Served served = serve(fake, Duration.ofSeconds(5));
        int port = served.server().port();
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (get(port, "/readyz").statusCode() != 200 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        Pattern healthy = Pattern.compile("hami_observe_scrape_source_success\\{[^}]*source=\"prometheus\"[^}]*} 1");
        assertTrue(healthy.matcher(get(port, "/metrics").body()).find(), get(port, "/metrics").body());
        int asked = fake.received().size();
        for (String bad : List.of("%EF%BF%BD", "%FF", "%C0%AF", "%ED%A0%BD")) {
            assertEquals(400, get(port, "/node?name=" + bad).statusCode());
            assertEquals(400, get(port, "/workload?namespace=a&pod=b&container=" + bad).statusCode());
        }
        // The console's own background reads may go on meanwhile; none may carry a refused page's
        // parameters (a replacement character, or the workload's pod "b", form-encoded).
        List<String> since = fake.received().subList(asked, fake.received().size());
        for (String request : since) {
            assertFalse(request.contains("%EF%BF%BD") || request.contains("pod%3D%22b%22"),
                    "a refused parameter reached Prometheus: " + request);
        }
        assertTrue(healthy.matcher(get(port, "/metrics").body()).find(), get(port, "/metrics").body());
    }
}
