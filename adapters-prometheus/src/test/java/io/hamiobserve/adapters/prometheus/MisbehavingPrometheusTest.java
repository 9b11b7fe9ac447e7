package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.ports.SourceUnavailableException;
import io.hamiobserve.testkit.FakePrometheus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Prometheus misbehaving, each way a reader must treat as normal input (docs/http-edge.md, "a
 * misbehaving upstream"): every case a bounded wait, a bounded memory and a message naming the
 * query; no thread left reading once the deadline has passed.
 */
class MisbehavingPrometheusTest {
    private final List<FakePrometheus> fakes = new ArrayList<>();

    @AfterEach
    void close() throws IOException {
        for (FakePrometheus fake : fakes) {
            fake.close();
        }
    }

    private FakePrometheus fake(FakePrometheus.Mode mode) throws IOException {
        FakePrometheus fake = FakePrometheus.start(mode);
        fakes.add(fake);
        return fake;
    }

    private static SourceUnavailableException failure(PrometheusFleetHistory history) {
        return assertThrows(SourceUnavailableException.class, () -> history.readings(Instant.now(), FleetScope.EVERYTHING));
    }

    private static void noQueryLeftInFlight(PrometheusFleetHistory history) throws InterruptedException {
        noQueryLeftInFlight(history, Duration.ofSeconds(2));
    }

    /** Within {@code bound} (the queries' timeout, or a little more), no query is left in flight. */
    private static void noQueryLeftInFlight(PrometheusFleetHistory history, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (history.queriesInFlight() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(0, history.queriesInFlight(), "queries still in flight after their deadline");
    }

    @Test
    void aBodyThatStallsAfterTheHeadersEndsAtTheDeadline() throws Exception {
        PrometheusFleetHistory history = PrometheusFleetHistory.at(fake(FakePrometheus.Mode.STALLED_BODY).url(),
                Duration.ofSeconds(1));
        long started = System.nanoTime();
        SourceUnavailableException failure = failure(history);
        double seconds = (System.nanoTime() - started) / 1e9;
        assertTrue(failure.getMessage().contains("did not send its whole answer within 1.0 s"), failure.getMessage());
        assertTrue(failure.getMessage().contains("[query "), failure.getMessage());
        // 27 queries, 16 at a time: two rounds of one second, never the 25 s and more it took.
        assertTrue(seconds < 5, "gave up after " + seconds + " s");
        noQueryLeftInFlight(history);
    }

    @Test
    void aRangeQueryWhoseBodyStallsEndsAtTheDeadlineToo() throws Exception {
        PrometheusFleetHistory history = PrometheusFleetHistory.at(fake(FakePrometheus.Mode.STALLED_BODY).url(),
                Duration.ofMillis(800));
        SourceUnavailableException failure = assertThrows(SourceUnavailableException.class, () -> history.trends(
                new TrendScope.Cluster(), Instant.now(), Duration.ofHours(1), Duration.ofMinutes(1)));
        assertTrue(failure.getMessage().contains("did not send its whole answer"), failure.getMessage());
        noQueryLeftInFlight(history);
    }

    @Test
    void aConnectionThatNeverAnswersEndsAtTheDeadline() throws Exception {
        PrometheusFleetHistory history = PrometheusFleetHistory.at(fake(FakePrometheus.Mode.SILENT).url(),
                Duration.ofMillis(800));
        assertTrue(failure(history).getMessage().contains("did not answer within 0.8 s"));
        noQueryLeftInFlight(history);
    }

    @Test
    void largeAnswersTogetherAreBoundedByOneBudget() throws Exception {
        // Each answer alone fits the budget; the page's queries together do not.
        PrometheusFleetHistory history = PrometheusFleetHistory.at(fake(FakePrometheus.huge(3 << 20)).url(),
                Duration.ofSeconds(20), 8L << 20);
        SourceUnavailableException failure = failure(history);
        assertTrue(failure.getMessage().contains("passed 8 MiB together"), failure.getMessage());
        // The batch's other queries end too: within their own deadline at the latest.
        noQueryLeftInFlight(history, Duration.ofSeconds(22));
    }

    @Test
    void aHugeAnswerIsRefusedWhileItStreams() throws Exception {
        FakePrometheus fake = fake(FakePrometheus.huge(300L << 20));
        long started = System.nanoTime();
        SourceUnavailableException failure = failure(PrometheusFleetHistory.at(fake.url(), Duration.ofSeconds(20),
                16L << 20));
        assertTrue(failure.getMessage().contains("passed 16 MiB together"), failure.getMessage());
        assertTrue((System.nanoTime() - started) / 1e9 < 15, "a 300 MB answer was read to its end");
    }

    /**
     * The queries being answered at once, and the most there were: with the queries themselves at
     * that most, so that a bound broken says which queries broke it. Every change and every look is
     * under one lock: a concurrent set's size and iteration may still show a query that another
     * thread has just counted out, which made this count one more than the engine was asked at
     * once (a CI run on a loaded machine: "17 queries at once", all 16 slots' answers and the next
     * ones crossing).
     */
    private static final class InFlight {
        private final Set<String> now = new java.util.HashSet<>();
        private int count;
        private int most;
        private List<String> atMost = List.of();

        /** The request counted in; its key to {@link #answered}. */
        synchronized String arrived(String request) {
            String query = request.lines().skip(1).findFirst().orElse(request);
            String key = query + " #" + ++count;
            now.add(key);
            if (now.size() > most) {
                most = now.size();
                atMost = List.copyOf(now);
            }
            return key;
        }

        synchronized void answered(String key) {
            now.remove(key);
        }

        synchronized int most() {
            return most;
        }

        synchronized String atMost() {
            return most + " queries at once: " + String.join("\n", atMost);
        }
    }

    /**
     * Answers a query after {@code millis} as a healthy, empty Prometheus, counting the queries
     * being answered at once ({@code inFlight}).
     */
    private static void answerSlowly(String request, java.io.OutputStream out, InFlight inFlight, long millis)
            throws IOException {
        String key = inFlight.arrived(request);
        try {
            Thread.sleep(millis);
        } catch (InterruptedException stopped) {
            Thread.currentThread().interrupt();
        }
        inFlight.answered(key);
        FakePrometheus.Mode.EMPTY.answer(request, out);
    }

    /**
     * An engine that says what it is through {@code engine} (its buildinfo and flags) and answers
     * every query slowly ({@link #answerSlowly}).
     */
    private static FakePrometheus.Mode slowEngine(FakePrometheus.Mode engine, InFlight inFlight, long millis) {
        return (request, out) -> {
            if (request.contains("/api/v1/status/buildinfo") || request.contains("/flags")) {
                engine.answer(request, out);
            } else {
                answerSlowly(request, out, inFlight, millis);
            }
        };
    }

    @Test
    void noMoreThanSixteenQueriesAreInFlightAtOnce() throws Exception {
        InFlight inFlight = new InFlight();
        // Prometheus, which queues what it cannot run at once: the console's own bound holds.
        FakePrometheus.Mode slow = slowEngine(FakePrometheus.json(200, "{\"status\":\"success\",\"data\":"
                + "{\"version\":\"2.42.0\",\"goVersion\":\"go1.19\"}}"), inFlight, 150);
        PrometheusFleetHistory history = PrometheusFleetHistory.at(fake(slow).url(), Duration.ofSeconds(10));
        List<Thread> pages = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            pages.add(Thread.ofVirtual().start(() -> {
                try {
                    history.readings(Instant.now(), FleetScope.EVERYTHING);
                } catch (SourceUnavailableException unexpected) {
                    throw new AssertionError(unexpected);
                }
            }));
        }
        for (Thread page : pages) {
            page.join();
        }
        assertTrue(inFlight.most() <= PrometheusApi.MAX_IN_FLIGHT, inFlight.atMost());
        assertTrue(inFlight.most() >= 8, "the queries did not run together: " + inFlight.atMost());
    }

    @Test
    void anEngineThatSaysItIsOverloadedIsAskedAgainAfterAPause() throws Exception {
        // VictoriaMetrics' 503 (text) for the first queries, then answers: every query is answered.
        AtomicInteger busy = new AtomicInteger(5);
        AtomicInteger queries = new AtomicInteger();
        FakePrometheus.Mode busyAtFirst = (request, out) -> {
            boolean query = request.contains("/api/v1/query");
            if (query) {
                queries.incrementAndGet();
            }
            (query && busy.getAndDecrement() > 0 ? FakePrometheus.overloaded(503, "") : FakePrometheus.Mode.EMPTY)
                    .answer(request, out);
        };
        PrometheusFleetHistory history = PrometheusFleetHistory.at(fake(busyAtFirst).url(), Duration.ofSeconds(10));
        // Read whole: the five queries answered 503 were sent again (one failed query fails a read).
        history.readings(Instant.now(), FleetScope.EVERYTHING);
        assertTrue(busy.get() < 0, "the engine was not asked past its overloaded answers");
        assertTrue(queries.get() > 5, "five overloaded answers and the queries answered: " + queries.get());

        // A gateway's 429 with Retry-After: asked again no sooner than it says.
        List<Long> arrivals = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicInteger limited = new AtomicInteger(1);
        FakePrometheus.Mode rateLimited = (request, out) -> {
            if (request.contains("/api/v1/query")) {
                arrivals.add(System.nanoTime());
            }
            (limited.getAndDecrement() > 0 ? FakePrometheus.overloaded(429, "1") : FakePrometheus.Mode.EMPTY)
                    .answer(request, out);
        };
        PrometheusApi api = new PrometheusApi(fake(rateLimited).url(), Duration.ofSeconds(10));
        PrometheusApi.await(api.instant(new PromQl.Template("one", "vector(1)").plain(), Instant.now()));
        assertEquals(2, arrivals.size());
        assertTrue(arrivals.get(1) - arrivals.get(0) >= Duration.ofMillis(950).toNanos(),
                "asked again after " + (arrivals.get(1) - arrivals.get(0)) / 1_000_000 + " ms, not the 1 s it said");
    }

    @Test
    void aConnectionClosedBeforeAnyAnswerIsSentOnceMoreAndTwiceFails() throws Exception {
        // The first three queries' connections are closed as they arrive (a kept-alive connection the
        // engine closed just as it was reused): each is sent once more, and the whole read succeeds.
        // Only a query's first arrival is closed: the read's queries run at once, and a query sent
        // again could arrive before the third query did (counting arrivals closed it twice, and the
        // read failed as it should for that query: once in this project's CI).
        AtomicInteger closing = new AtomicInteger(3);
        Set<String> arrived = ConcurrentHashMap.newKeySet();
        FakePrometheus.Mode closesAtFirst = (request, out) ->
                (request.contains("/api/v1/query") && arrived.add(request) && closing.getAndDecrement() > 0
                        ? FakePrometheus.Mode.CLOSED : FakePrometheus.Mode.EMPTY).answer(request, out);
        FakePrometheus flaky = fake(closesAtFirst);
        PrometheusFleetHistory history = PrometheusFleetHistory.at(flaky.url(), Duration.ofSeconds(10));
        history.readings(Instant.now(), FleetScope.EVERYTHING);
        assertTrue(closing.get() < 0, "the engine was not asked past its closed connections");

        // An engine that closes every connection: each query is sent twice, no more, and the read
        // fails saying the engine is unreachable.
        FakePrometheus closed = fake(FakePrometheus.Mode.CLOSED);
        PrometheusApi api = new PrometheusApi(closed.url(), Duration.ofSeconds(5));
        java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> api.instant(new PromQl.Template("one", "vector(1)").plain(), Instant.now()).get());
        assertTrue(String.valueOf(failed.getCause().getMessage()).contains("unreachable"), failed.getCause().getMessage());
        assertEquals(2, closed.requests(), "sent once more, not again and again");
    }

    @Test
    void anEngineThatStaysOverloadedFailsWithinTheDeadlineSayingWhatItSaid() throws Exception {
        FakePrometheus fake = fake(FakePrometheus.overloaded(503, ""));
        PrometheusFleetHistory history = PrometheusFleetHistory.at(fake.url(), Duration.ofSeconds(3));
        long started = System.nanoTime();
        String message = failure(history).getMessage();
        assertTrue(System.nanoTime() - started < Duration.ofSeconds(8).toNanos(), "past the deadline");
        assertTrue(message.contains("answered HTTP 503, overloaded, "), message);
        assertTrue(message.contains("(it said: remoteAddr: \"127.0.0.1:41234\"; requestURI: /api/v1/query; cannot "
                + "handle more than 4 concurrent search requests during 10s;"), message);
        List<String> asked = fake.received();
        assertTrue(asked.size() > new java.util.HashSet<>(asked).size(), "no query was asked again");
        noQueryLeftInFlight(history, Duration.ofSeconds(4));
        // Prometheus's own 503 (a JSON error: its query timed out) is not sent again.
        FakePrometheus timedOut = fake(FakePrometheus.error(503, "timeout", "query timed out in expression evaluation"));
        String refused = failure(PrometheusFleetHistory.at(timedOut.url(), Duration.ofSeconds(3))).getMessage();
        assertTrue(refused.contains("refused the query (HTTP 503, timeout: query timed out"), refused);
    }

    @Test
    void noMoreQueriesAreInFlightThanVictoriaMetricsRunsAtOnce() throws Exception {
        InFlight inFlight = new InFlight();
        FakePrometheus.Mode victoriaMetrics = slowEngine((request, out) -> {
            if (request.contains("/flags")) {
                FakePrometheus.status(404).answer(request, out);
                return;
            }
            byte[] body = "{\"status\":\"success\",\"data\":{\"version\":\"2.24.0\"}}".getBytes(
                    java.nio.charset.StandardCharsets.UTF_8);
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Server-Hostname: vm\r\n"
                    + "Content-Length: " + body.length + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
        }, inFlight, 100);
        PrometheusFleetHistory history = PrometheusFleetHistory.at(fake(victoriaMetrics).url(), Duration.ofSeconds(30));
        history.readings(Instant.now(), FleetScope.EVERYTHING);
        assertEquals(Engine.Kind.VICTORIAMETRICS, history.engine().kind());
        assertTrue(inFlight.most() <= Engine.VICTORIAMETRICS_DEFAULT_CONCURRENCY, inFlight.atMost());
        assertTrue(inFlight.most() >= 2, "the queries did not run together: " + inFlight.atMost());
    }

    @Test
    void aRedirectIsRefusedNotFollowed() throws Exception {
        FakePrometheus elsewhere = fake(FakePrometheus.json(200, FakePrometheus.EMPTY_VECTOR));
        FakePrometheus fake = fake(FakePrometheus.redirect(elsewhere.url() + "/api/v1/query"));
        SourceUnavailableException failure = failure(PrometheusFleetHistory.at(
                URI.create("http://viewer:secret@127.0.0.1:" + fake.url().getPort()), Duration.ofSeconds(5)));
        assertTrue(failure.getMessage().contains("HTTP 302 redirecting to " + elsewhere.url()), failure.getMessage());
        assertEquals(0, elsewhere.requests(), "the credentials followed the redirect");
    }

    @Test
    void eachWrongAnswerIsAClearMessage() throws Exception {
        record Case(FakePrometheus.Mode mode, String says) {
        }
        List<Case> cases = List.of(
                new Case(FakePrometheus.html(200), "HTTP 200 with something that is not its JSON"),
                new Case(FakePrometheus.status(502), "HTTP 502 with something that is not its JSON"),
                new Case(FakePrometheus.status(404), "HTTP 404 with something that is not its JSON"),
                new Case(FakePrometheus.json(200, "{\"status\":\"succ"), "not its JSON"),
                new Case(FakePrometheus.json(200, "\u0000\u0001garbage"), "not its JSON"),
                new Case(FakePrometheus.error(400, "bad_data", "parse error"), "refused the query (HTTP 400, bad_data: parse error)"),
                new Case(FakePrometheus.error(503, "unavailable", "overloaded"), "refused the query (HTTP 503, unavailable: overloaded)"),
                new Case(FakePrometheus.json(200, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}"),
                        "returned a matrix, not a vector"));
        for (Case each : cases) {
            FakePrometheus fake = fake(each.mode());
            String message = failure(PrometheusFleetHistory.at(fake.url(), Duration.ofSeconds(5))).getMessage();
            assertTrue(message.contains(each.says()), each.says() + " <- " + message);
            assertTrue(message.contains("[query "), message);
        }
    }

    @Test
    void aRefusedConnectionSaysSo() throws Exception {
        String message = failure(PrometheusFleetHistory.at(FakePrometheus.refusing(), Duration.ofSeconds(2))).getMessage();
        assertTrue(message.contains("unreachable (connection refused)"), message);
    }

    @Test
    void warningsAndOddValuesAreAnswersNotZeros() throws Exception {
        String vector = "{\"status\":\"success\",\"warnings\":[\"partial response\"],\"data\":{\"resultType\":\"vector\","
                + "\"result\":[{\"metric\":{\"node\":\"n1\",\"device_uuid\":\"GPU-a\",\"device_index\":\"0\"},\"value\":[1,\"NaN\"]},"
                + "{\"metric\":{\"node\":\"n1\",\"device_uuid\":\"GPU-b\",\"device_index\":\"1\"},\"value\":[1,\"+Inf\"]},"
                + "{\"metric\":{\"node\":\"n1\",\"device_uuid\":\"GPU-c\",\"device_index\":\"2\"},\"value\":[1,\"-0\"]}]}}";
        FleetReadings readings = PrometheusFleetHistory.at(fake(FakePrometheus.json(200, vector)).url(),
                Duration.ofSeconds(5)).readings(Instant.now(), FleetScope.CARDS_ONLY);
        var byUuid = new java.util.HashMap<String, FleetReadings.Registered>();
        readings.registered().forEach(card -> byUuid.put(card.uuid(), card));
        assertFalse(byUuid.get("GPU-a").memoryTotal().isKnown(), "NaN became a figure");
        assertFalse(byUuid.get("GPU-b").memoryTotal().isKnown(), "+Inf became a figure");
        assertEquals(0.0, Math.abs(byUuid.get("GPU-c").memoryTotal().orElseThrow()));
    }

    @Test
    void theUrlsPathAndQueryStringAreKept() throws Exception {
        FakePrometheus fake = fake(FakePrometheus.json(200, FakePrometheus.EMPTY_VECTOR));
        PrometheusFleetHistory history = PrometheusFleetHistory.at(URI.create(fake.url() + "/prom?tenant=a"),
                Duration.ofSeconds(5));
        history.readings(Instant.now(), FleetScope.CARDS_ONLY);
        // The queries, and the engine's buildinfo and rules asked beside them, keep the path and the tenant.
        history.rulesAsked().get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(fake.received().stream().filter(request -> request.startsWith("POST ")).allMatch(request ->
                request.startsWith("POST /prom/api/v1/query?tenant=a HTTP/1.1")), fake.received().getFirst());
        assertTrue(fake.received().stream().allMatch(request -> request.startsWith("POST /prom/api/v1/query?tenant=a ")
                || request.startsWith("GET /prom/api/v1/status/buildinfo?tenant=a ")
                || request.startsWith("GET /prom/flags?tenant=a ")
                || (request.startsWith("GET /prom/api/v1/rules?type=record&") && request.contains("&tenant=a "))),
                fake.received().toString());
        assertTrue(fake.received().stream().anyMatch(request -> request.startsWith("GET /prom/api/v1/rules?")),
                fake.received().toString());
        // Named by its base, whatever engine the fake's buildinfo made it out to be.
        assertTrue(history.description().contains(" at " + fake.url() + "/prom/"), history.description());
        assertThrows(IllegalArgumentException.class, () -> PrometheusFleetHistory.at(
                URI.create(fake.url() + "/#x"), Duration.ofSeconds(1)));
        assertTrue(fake.received().stream().filter(request -> request.startsWith("POST ")).allMatch(request ->
                request.contains("query=")));
    }
}
