package io.hamiobserve.adapters.prometheus;

import com.sun.net.httpserver.HttpServer;
import io.hamiobserve.domain.fleet.TrendSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which steps a group's records serve, from the engine's answer about its runs, and the line read
 * from the records there and the raw series elsewhere — against an engine that answers what the
 * test writes (on the steps asked, off them, twice, with nonsense) and records what it was asked.
 */
class RecordedStepsTest {
    /** Ten steps of a minute. */
    private static final TrendSet.Grid GRID = new TrendSet.Grid(1_800_000_000L, 60, 10);
    private static final PromQl.Query RAW = new PromQl.Template("raw_line", "sum(raw_metric)").plain();
    private static final PromQl.Query RECORDED = new PromQl.Template("raw_line", "sum(recorded_metric)").plain();

    private HttpServer server;
    private final Map<String, String> answers = new HashMap<>();
    /** Each range query asked: its expression, start and end. */
    private final List<String[]> asked = new CopyOnWriteArrayList<>();
    private PrometheusApi api;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            Map<String, String> form = new HashMap<>();
            for (String pair : new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8).split("&")) {
                String[] kv = pair.split("=", 2);
                form.put(URLDecoder.decode(kv[0], StandardCharsets.UTF_8),
                        kv.length > 1 ? URLDecoder.decode(kv[1], StandardCharsets.UTF_8) : "");
            }
            String query = form.getOrDefault("query", "");
            asked.add(new String[]{query, form.get("start"), form.get("end")});
            String result = answers.entrySet().stream().filter(answer -> query.contains(answer.getKey()))
                    .map(Map.Entry::getValue).findFirst().orElse("[]");
            byte[] body = ("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":" + result + "}}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        api = new PrometheusApi(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"),
                Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    /** A series of {@code points}, each {@code [time, "value"]} as written. */
    private static String series(String labels, String... points) {
        return "{\"metric\":{" + labels + "},\"values\":[" + String.join(",", points) + "]}";
    }

    private static String point(double time, String value) {
        return "[" + time + ",\"" + value + "\"]";
    }

    private RecordedSteps served() throws Exception {
        return PrometheusApi.await(RecordedSteps.asked(api, RecordingRules.Group.FUNNEL, GRID));
    }

    @Test
    void aStepIsServedOnlyWhereARunIsCountedOnItAndNonsenseServesNone() throws Exception {
        long first = GRID.first();
        // Runs counted at steps 5 to 9 by one engine, step 7 by another (each cluster's Prometheus);
        // before them a zero, a negative count and a NaN, and around the grid a time before its
        // first step, after its last and one of 1e400 seconds (infinite once read): none serves.
        answers.put("console_rules:evaluated", "[" + series("\"group\":\"funnel\"",
                point(first + 300, "1"), point(first + 360, "2"), point(first + 420, "3"), point(first + 480, "2"),
                point(first + 540, "1"), point(first + 60, "0"), point(first + 120, "-4"), point(first + 180, "NaN"),
                point(first - 60, "5"), point(first + 600, "5")) + ","
                + series("\"group\":\"funnel\",\"cluster\":\"b\"", point(first + 420, "1"), "[1e400,\"1\"]") + "]");
        RecordedSteps served = served();
        assertFalse(served.all());
        assertFalse(served.none());
        // Read: the records over steps 5 to 9, the raw series over 0 to 4, each step from its own.
        answers.put("recorded_metric", "[" + series("", pointsFrom(0, 9, "1")) + "]");
        answers.put("raw_metric", "[" + series("", pointsFrom(0, 9, "2")) + "]");
        asked.clear();
        List<PrometheusApi.Series> line = PrometheusApi.await(served.read(api, RAW, RECORDED));
        assertEquals(1, line.size());
        double[] values = new double[GRID.steps()];
        java.util.Arrays.fill(values, Double.NaN);
        for (double[] each : line.getFirst().points()) {
            values[(int) ((each[0] - first) / 60)] = each[1];
        }
        assertEquals("[2.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0]", java.util.Arrays.toString(values));
        assertEquals(2, asked.size(), "one read from the records, one raw");
        for (String[] query : asked) {
            boolean raw = query[0].contains("raw_metric");
            // The raw read spans the steps the records miss (0 to 4), the records' those they serve (5 to 9).
            assertEquals(Long.toString(first + (raw ? 0 : 300)), query[1], query[0]);
            assertEquals(Long.toString(first + (raw ? 240 : 540)), query[2], query[0]);
        }
        assertEquals("(sum(recorded_metric)) or (sum(raw_metric))", served.provenance(RAW, RECORDED).expression());
    }

    @Test
    void noRunReadsTheRawSeriesAloneAndEveryStepServedTheRecordsAlone() throws Exception {
        answers.put("raw_metric", "[" + series("", pointsFrom(0, 9, "2")) + "]");
        answers.put("recorded_metric", "[" + series("", pointsFrom(0, 9, "1")) + "]");
        RecordedSteps none = served();
        assertTrue(none.none());
        asked.clear();
        assertEquals(10, PrometheusApi.await(none.read(api, RAW, RECORDED)).getFirst().points().size());
        assertEquals(1, asked.size());
        assertTrue(asked.getFirst()[0].contains("raw_metric"));
        assertEquals("sum(raw_metric)", none.provenance(RAW, RECORDED).expression());

        answers.put("console_rules:evaluated", "[" + series("\"group\":\"funnel\"", pointsFrom(0, 9, "1")) + "]");
        RecordedSteps all = served();
        assertTrue(all.all());
        asked.clear();
        List<double[]> points = PrometheusApi.await(all.read(api, RAW, RECORDED)).getFirst().points();
        assertTrue(points.stream().allMatch(each -> each[1] == 1.0));
        assertEquals(1, asked.size());
        assertTrue(asked.getFirst()[0].contains("recorded_metric"));
        assertEquals("sum(recorded_metric)", all.provenance(RAW, RECORDED).expression());
    }

    /** A point at every step from {@code from} to {@code to}. */
    private static String pointsFrom(int from, int to, String value) {
        StringBuilder points = new StringBuilder();
        for (int i = from; i <= to; i++) {
            points.append(i > from ? "," : "").append(point(GRID.at(i), value));
        }
        return points.toString();
    }
}
