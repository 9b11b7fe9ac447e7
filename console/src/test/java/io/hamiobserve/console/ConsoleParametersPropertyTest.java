package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.WorkloadRef;
import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Random parameters — PromQL syntax, HTML, CSV formulas, unicode that normalises to something
 * else, long and repeated values — to every page and export: the answer is never a 5xx, always
 * carries the strict CSP, is well-formed HTML, CSV or JSON with nothing of the input reflected
 * unescaped, and the scope read (what the query to Prometheus narrows to) is the parameter exactly
 * as sent. The seed is fixed (the run is repeatable); {@code -Dconsole.property.seed=N} tries another.
 */
class ConsoleParametersPropertyTest {
    private static final int RUNS = 400;
    private static final List<String> PATHS = List.of("/", "/nodes", "/node", "/cards", "/card", "/workloads",
            "/workload", "/namespaces", "/rightsizing", "/capacity");
    private static final List<String> NAMES = List.of("name", "uuid", "namespace", "pod", "container", "window",
            "range", "export", "nodes.q", "cards.q", "workloads.q", "workloads.sort", "workloads.dir", "workloads.page",
            "workloads.size", "memory", "cores", "cards", "x\"<y>");
    private static final List<String> EXPORTS = List.of("nodes.csv", "nodes.json", "cards.csv", "cards.json",
            "workloads.csv", "workloads.json", "idle.csv", "shares.csv", "namespaces.csv", "rightsizing.csv",
            "capacity.json", "health.csv", "x.csv", "=1.csv");
    private static final List<String> PIECES = List.of(
            // PromQL syntax: a value must stay one string inside its matcher.
            "\"}", "\"} or vector(1) #", "\\", "\\\"", "{job=~\".+\"}", "[5m]", "`", "'",
            // HTML, to be escaped wherever it lands.
            "<x-evil>", "\"><x-evil onload=1>", "</script><x-evil>", "&amp;", "&#x3c;",
            // CSV formulas.
            "=1+1", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "=HYPERLINK(\"http://e\")",
            // Unicode that normalises or folds to something else.
            "ｎｏｄｅ-ａ", "e\u0301", "\uFB01", "\u212A", "\u00C5", "A\u030A", "\u0130", "\u202Etxt", "🙂", "节点",
            // Plain values the fleet has.
            "node-a", "GPU-A1", "GPU-A0", "ml-team", "llm-inference", "server", "7d", "30d", "24h", "2", "-1",
            "99999999999999999999", " ");

    private final HttpClient client = HttpClient.newHttpClient();
    private final FixedHistory history = new FixedHistory();
    private WebServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private static String value(Random random) {
        StringBuilder value = new StringBuilder();
        int pieces = 1 + random.nextInt(3);
        for (int i = 0; i < pieces; i++) {
            value.append(PIECES.get(random.nextInt(PIECES.size())));
        }
        if (random.nextInt(20) == 0) {
            value.append("a".repeat(1000 + random.nextInt(1000)));
        }
        return value.toString();
    }

    @Test
    void randomParametersToEveryPageAndExport() throws Exception {
        long seed = Long.getLong("console.property.seed", 20261130L);
        Random random = new Random(seed);
        Console console = Console.create(history, ConsoleSettings.defaults().withFresh(java.time.Duration.ZERO),
                Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC));
        server = WebServer.builder().port(0).host("127.0.0.1").shutdownHook(false).routing(console::routing).build()
                .start();
        String base = "http://127.0.0.1:" + server.port();
        JsonMapper json = JsonMapper.builder().build();
        Pattern formulaCell = Pattern.compile("(^|,)\"?[=+@\\-](?![0-9.]+(,|$))", Pattern.MULTILINE);
        for (int run = 0; run < RUNS; run++) {
            String path = PATHS.get(random.nextInt(PATHS.size()));
            List<String[]> parameters = new ArrayList<>();
            int count = random.nextInt(5);
            for (int i = 0; i < count; i++) {
                String name = NAMES.get(random.nextInt(NAMES.size()));
                String value = name.equals("export") && random.nextBoolean()
                        ? EXPORTS.get(random.nextInt(EXPORTS.size())) : value(random);
                parameters.add(new String[] {name, value});
                if (random.nextInt(8) == 0) {
                    parameters.add(new String[] {name, value(random)}); // repeated: the first one counts
                }
            }
            StringBuilder query = new StringBuilder();
            for (String[] parameter : parameters) {
                query.append(query.isEmpty() ? "?" : "&").append(URLEncoder.encode(parameter[0], StandardCharsets.UTF_8))
                        .append('=').append(URLEncoder.encode(parameter[1], StandardCharsets.UTF_8));
            }
            String url = base + path + query;
            String where = "seed " + seed + ", run " + run + ": " + path + query;
            history.scopes.clear();
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
                    HttpResponse.BodyHandlers.ofString());
            int status = response.statusCode();
            if (status == 414) {
                // The server's own bound on the request line (the edge's --web.max-request-line-bytes in
                // production): refused before the console is reached, nothing read.
                assertTrue(url.length() > 2048, where);
                assertTrue(history.scopes.isEmpty(), where);
                continue;
            }
            assertTrue(Set.of(200, 400, 404).contains(status), where + " answered " + status + ": " + response.body());
            assertEquals(Console.CONTENT_SECURITY_POLICY,
                    response.headers().firstValue("Content-Security-Policy").orElse(""), where);
            String type = response.headers().firstValue("Content-Type").orElse("");
            String body = response.body();
            if (type.startsWith("text/html")) {
                assertTrue(body.startsWith("<!DOCTYPE html>") && body.stripTrailing().endsWith("</html>"), where);
                assertFalse(body.contains("<x-evil"), where + ": unescaped reflection");
            } else if (type.startsWith("text/csv")) {
                assertEquals(0, body.chars().filter(c -> c == '"').count() % 2, where + ": unbalanced quotes");
                assertFalse(formulaCell.matcher(body).find(), where + ": a formula cell: " + body);
            } else if (type.startsWith("application/json")) {
                json.readTree(body);
            } else {
                fail(where + ": " + type);
            }
            if (status != 400) {
                Map<String, String> first = new LinkedHashMap<>();
                parameters.forEach(parameter -> first.putIfAbsent(parameter[0], parameter[1]));
                FleetScope expected = switch (path) {
                    case "/node" -> new FleetScope.OnNode(first.getOrDefault("name", ""));
                    case "/card" -> new FleetScope.OnCard(first.getOrDefault("uuid", ""));
                    case "/workload" -> new FleetScope.OfWorkload(new WorkloadRef(first.getOrDefault("namespace", ""),
                            first.getOrDefault("pod", ""), first.getOrDefault("container", "")));
                    default -> null;
                };
                if (expected != null) {
                    assertTrue(history.scopes.contains(expected), where + ": read " + history.scopes
                            + ", expected " + expected);
                }
            }
        }
    }
}
