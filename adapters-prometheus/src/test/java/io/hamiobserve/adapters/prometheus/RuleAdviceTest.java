package io.hamiobserve.adapters.prometheus;

import com.sun.net.httpserver.HttpServer;
import io.hamiobserve.domain.fleet.FleetScope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whether the engine runs the console's recording rules, told on every page where it does not: from
 * a real Prometheus's rules API (it loads the rule file: nothing to tell), and from engines that
 * answer what the test writes — no rules API and no runs, runs written by a vmalert elsewhere, a
 * rule file of fewer groups with one failing on a hostile error, and answers that are not the
 * rules API's at all.
 */
class RuleAdviceTest {
    private HttpServer server;
    /** The rules API's answer (status, body); null: 404. */
    private volatile String[] rulesAnswer;
    /** The markers' count over the last two hours, as the engine answers it; null: no series. */
    private volatile String runs;
    /** Each rules API request's query string. */
    private final List<String> rulesAsked = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void theGroupsAreTheRuleFilesGroups() {
        Matcher name = Pattern.compile("(?m)^  - name: (\\S+)$").matcher(RecordingRules.file());
        List<String> named = name.results().map(found -> found.group(1)).toList();
        assertEquals(named, RuleAdvice.GROUPS);
    }

    @Test
    void aPrometheusThatLoadsTheRuleFileGetsNoAdvice() throws Exception {
        try (LocalPrometheus prometheus = LocalPrometheus.start(List.of(), Duration.ofSeconds(60), List.of(),
                Duration.ofSeconds(60))) {
            PrometheusApi api = new PrometheusApi(prometheus.url(), Duration.ofSeconds(10));
            Optional<String> answer = api.rules().join();
            assertTrue(answer.isPresent(), "Prometheus answers its rules API");
            Map<String, String> listed = RuleAdvice.listed(answer.get()).orElseThrow();
            assertEquals(RuleAdvice.GROUPS.stream().sorted().toList(), List.copyOf(listed.keySet()));
            assertTrue(listed.values().stream().allMatch(String::isEmpty), listed.toString());
            // Its groups have not run yet (they run from now on): the list says they are loaded.
            assertEquals(Optional.empty(), RuleAdvice.advice(Optional.of(listed), Optional.of(false)));

            PrometheusFleetHistory history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(10));
            history.readings(Instant.now(), FleetScope.EVERYTHING);
            history.rulesAsked().get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertFalse(history.description().contains("recording rules"), history.description());
        }
    }

    @Test
    void anEngineWithoutTheRulesOrTheirRunsIsToldToLoadThem() throws Exception {
        serve();
        PrometheusFleetHistory history = history();
        history.readings(Instant.now(), FleetScope.EVERYTHING);
        String told = told(history);
        assertTrue(told.startsWith("Prometheus 2.53.0 at "), told);
        assertTrue(told.contains(" · recording rules: none ran here in the last 2h; every window and chart is "
                + "computed from the raw series, at their cost (load alerts/hami-observe-console.rules.yml"), told);
        assertTrue(told.endsWith("docs/console.md, Recording rules)"), told);
        assertFalse(rulesAsked.isEmpty(), "the rules API was asked");
        assertTrue(rulesAsked.getFirst().startsWith("type=record&rule_group[]=hami-observe-console-hourly&"),
                rulesAsked.getFirst());
    }

    @Test
    void runsWrittenElsewhereNeedNoAdvice() throws Exception {
        // VictoriaMetrics: no rules API here; a vmalert beside it writes the markers.
        runs = "12";
        serve();
        PrometheusFleetHistory history = history();
        history.readings(Instant.now(), FleetScope.EVERYTHING);
        history.rulesAsked().get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertFalse(history.description().contains("recording rules"), history.description());
        assertFalse(rulesAsked.isEmpty(), "the rules API was asked");
        // The same where the engine lists rules, none of them the console's.
        rulesAnswer = new String[]{"200", "{\"status\":\"success\",\"data\":{\"groups\":[{\"name\":\"other\","
                + "\"rules\":[{\"health\":\"err\",\"lastError\":\"x\"}]}]}}"};
        assertEquals(Optional.empty(), RuleAdvice.advice(RuleAdvice.listed(rulesAnswer[1]), Optional.of(true)));
    }

    @Test
    void missingAndFailingGroupsAreNamedAndTheEnginesErrorIsOneBoundedLine() throws Exception {
        String hostile = "<script>alert(1)</script>\n\u0000" + "x".repeat(1000);
        rulesAnswer = new String[]{"200", "{\"status\":\"success\",\"data\":{\"groups\":["
                + group("hami-observe-console-hourly", "ok", "")
                + "," + group("hami-observe-console-funnel", "err", hostile.replace("\n", "\\n").replace("\u0000", "\\u0000"))
                + "," + group("hami-observe-console-showback", "ok", "")
                + "," + group("hami-observe-console-showback", "err", "")
                + "," + group("unrelated", "err", "ignored")
                + "]}}"};
        runs = "12";
        serve();
        PrometheusFleetHistory history = history();
        history.readings(Instant.now(), FleetScope.EVERYTHING);
        String told = told(history);
        assertTrue(told.contains("recording rules: groups hami-observe-console-owners, hami-observe-console-card-lines "
                + "not loaded (an earlier rule file?); group hami-observe-console-funnel failing: <script>alert(1)"
                + "</script> xxx"), told);
        assertTrue(told.contains("; group hami-observe-console-showback failing: an error the engine did not say; "
                + "what they record is computed from the raw series (load the current "
                + "alerts/hami-observe-console.rules.yml)"), told);
        assertFalse(told.contains("\n") || told.contains("\u0000") || told.contains("ignored"), told);
        String error = told.substring(told.indexOf("failing: ") + "failing: ".length(), told.indexOf("…") + 1);
        assertEquals(RuleAdvice.LONGEST_ERROR + 1, error.codePointCount(0, error.length()), error);
    }

    @Test
    void whatIsNotTheRulesApisAnswerLeavesItToTheRuns() {
        for (String body : List.of("", "not json", "[]", "{\"status\":\"error\",\"data\":{\"groups\":[]}}",
                "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}",
                "{\"status\":\"success\",\"data\":{\"groups\":{}}}", "{\"status\":1,\"data\":{\"groups\":[]}}")) {
            assertEquals(Optional.empty(), RuleAdvice.listed(body), body);
        }
        assertEquals(Optional.of(Map.of()), RuleAdvice.listed("{\"status\":\"success\",\"data\":{\"groups\":["
                + "{\"name\":7,\"rules\":\"x\"},{\"rules\":[]},\"x\",{\"name\":[\"hami-observe-console-funnel\"]}]}}"));
        assertTrue(RuleAdvice.advice(Optional.empty(), Optional.of(false)).isPresent());
        assertEquals(Optional.empty(), RuleAdvice.advice(Optional.empty(), Optional.empty()),
                "nothing is said where neither answer came");
        assertEquals(Optional.empty(), RuleAdvice.advice(Optional.of(Map.of()), Optional.of(true)));
    }

    @Test
    void mutatedAnswersNeverEscapeAndAdviceStaysOneLine() {
        String real = "{\"status\":\"success\",\"data\":{\"groups\":[" + group("hami-observe-console-funnel", "err",
                "bad \\\"query\\\"") + "," + group("hami-observe-console-hourly", "ok", "") + "]}}";
        Random random = new Random(31);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder body = new StringBuilder(real);
            for (int edits = random.nextInt(4); edits >= 0 && !body.isEmpty(); edits--) {
                int at = random.nextInt(body.length());
                switch (random.nextInt(4)) {
                    case 0 -> body.deleteCharAt(at);
                    case 1 -> body.insert(at, "{}[]\",:\\\n\u0000é\uD83D\uDE00".charAt(random.nextInt(12)));
                    case 2 -> body.setLength(at);
                    default -> body.insert(at, "\"x\"".repeat(random.nextInt(3)));
                }
            }
            Optional<String> advice = RuleAdvice.advice(RuleAdvice.listed(body.toString()), Optional.of(random.nextBoolean()));
            advice.ifPresent(text -> assertTrue(text.lines().count() == 1 && text.chars().noneMatch(Character::isISOControl),
                    body + " → " + text));
        }
    }

    private static String group(String name, String health, String lastError) {
        return "{\"name\":\"" + name + "\",\"file\":\"rules.yml\",\"rules\":[{\"name\":\"r\",\"type\":\"recording\","
                + "\"health\":\"" + health + "\"" + (lastError.isEmpty() ? "" : ",\"lastError\":\"" + lastError + "\"")
                + "}]}";
    }

    private PrometheusFleetHistory history() {
        return PrometheusFleetHistory.at(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"),
                Duration.ofSeconds(5));
    }

    /** The description once the rules' question asked by the last read has been answered. */
    private static String told(PrometheusFleetHistory history) throws Exception {
        history.rulesAsked().get(10, java.util.concurrent.TimeUnit.SECONDS);
        return history.description();
    }

    /** An engine that says it is Prometheus 2.53, answers the rules API and the markers' count as set, and nothing else. */
    private void serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String path = exchange.getRequestURI().getPath();
            if (path.endsWith("/buildinfo")) {
                QueryBackendTest.answer(exchange, 200, "{\"status\":\"success\",\"data\":{\"version\":\"2.53.0\",\"goVersion\":\"go1.22\"}}");
            } else if (path.endsWith("/api/v1/rules")) {
                rulesAsked.add(exchange.getRequestURI().getQuery());
                String[] rules = rulesAnswer;
                if (rules == null) {
                    QueryBackendTest.answer(exchange, 404, "404 page not found");
                } else {
                    QueryBackendTest.answer(exchange, Integer.parseInt(rules[0]), rules[1]);
                }
            } else if (java.net.URLDecoder.decode(body, StandardCharsets.UTF_8).contains(RuleAdvice.RAN.expression())
                    && runs != null) {
                QueryBackendTest.answer(exchange, 200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
                        + "{\"metric\":{},\"value\":[1,\"" + runs + "\"]}]}}");
            } else {
                QueryBackendTest.answer(exchange, 200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}");
            }
        });
        server.start();
    }
}
