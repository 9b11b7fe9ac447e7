package io.hamiobserve.adapters.prometheus;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.ports.SourceUnavailableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The query backend's configuration on the wire: the documented example files for Thanos and Mimir
 * (docs/backends), parsed as they are, against a recorded HTTP exchange — every query carries the
 * tenant header, the credentials and the parameters; a rotated token is sent from the next query
 * on; the engine is told from its buildinfo; no secret reaches a message or a description.
 */
class QueryBackendTest {
    private static final Path EXAMPLES = Path.of("..", "docs", "backends");
    private static final String TOKEN = "s3cr3t-token-0000";
    private static final String PASSWORD = "pa55word-1111";

    /** One request as the server saw it. */
    record Seen(String method, String path, Map<String, List<String>> headers, Map<String, List<String>> form) {
        String header(String name) {
            return headers.entrySet().stream().filter(entry -> entry.getKey().equalsIgnoreCase(name))
                    .map(entry -> String.join(",", entry.getValue())).findFirst().orElse("");
        }
    }

    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    /**
     * A backend under {@code prefix}: {@code buildinfo} answers {@code buildinfo} (404 when null),
     * every query an empty vector (or {@code status} with an error body), and each request is kept.
     */
    private URI backend(String prefix, String buildinfo, int queryStatus) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    Map.copyOf(exchange.getRequestHeaders()), form(body)));
            String path = exchange.getRequestURI().getPath();
            if (path.equals(prefix + "/api/v1/status/buildinfo")) {
                answer(exchange, buildinfo == null ? 404 : 200, buildinfo == null ? "not found" : buildinfo);
            } else if (path.startsWith(prefix + "/api/v1/query")) {
                answer(exchange, queryStatus, queryStatus == 200
                        ? "{\"status\":\"success\",\"data\":{\"resultType\":\""
                        + (path.endsWith("query_range") ? "matrix" : "vector") + "\",\"result\":[]}}"
                        : "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"unauthorized\"}");
            } else {
                answer(exchange, 404, "not found");
            }
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + prefix);
    }

    /** Answers {@code body} as JSON with {@code status} (the scripted engines of this package's tests). */
    static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private static Map<String, List<String>> form(String body) {
        Map<String, List<String>> form = new LinkedHashMap<>();
        if (body.isEmpty()) {
            return form;
        }
        for (String pair : body.split("&")) {
            int equals = pair.indexOf('=');
            form.computeIfAbsent(URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8),
                    key -> new ArrayList<>()).add(URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
        }
        return form;
    }

    /** The example file copied beside the secret files it names, as a mounted Secret holds them. */
    private static Path example(Path directory, String name) throws IOException {
        Path config = Files.copy(EXAMPLES.resolve(name), directory.resolve(name));
        Files.writeString(directory.resolve("token"), TOKEN + "\n");
        Files.writeString(directory.resolve("password"), PASSWORD + "\n");
        return config;
    }

    private List<Seen> queries() {
        return seen.stream().filter(request -> request.path().contains("/api/v1/query")).toList();
    }

    @Test
    void thanosExampleSendsItsTokenAndParametersWithEveryQuery(@TempDir Path directory) throws Exception {
        URI url = backend("", "{\"status\":\"success\",\"data\":{\"version\":\"0.34.1\",\"revision\":\"abc\","
                + "\"branch\":\"HEAD\",\"buildUser\":\"root\",\"buildDate\":\"20240101\",\"goVersion\":\"go1.21\"}}", 200);
        Path config = example(directory, "thanos.yml");
        PrometheusFleetHistory history = PrometheusFleetHistory.at(BackendConfig.read(url, config),
                Duration.ofSeconds(5));
        history.readings(Instant.now(), new FleetScope.Everything());
        history.trends(new io.hamiobserve.domain.fleet.TrendScope.Cluster(), Instant.now(), Duration.ofHours(1),
                Duration.ofMinutes(1));

        assertFalse(queries().isEmpty());
        for (Seen query : queries()) {
            assertEquals("POST", query.method());
            assertEquals("Bearer " + TOKEN, query.header("Authorization"), query.path());
            assertEquals(List.of("auto"), query.form().get("max_source_resolution"), query.path());
            assertEquals(List.of("true"), query.form().get("partial_response"), query.path());
            assertEquals(List.of("true"), query.form().get("dedup"), query.path());
            assertEquals(1, query.form().get("query").size());
            assertFalse(query.form().containsKey("nocache"), "no VictoriaMetrics parameter for Thanos");
        }
        assertEquals("Bearer " + TOKEN, seen.getFirst().header("Authorization"), "the buildinfo probe is "
                + "authenticated too");
        assertTrue(history.description().startsWith("Thanos Query 0.34.1 at " + url + "/"), history.description());
        assertFalse(history.description().contains(TOKEN));
    }

    @Test
    void aRotatedTokenIsSentFromTheNextQueryOn(@TempDir Path directory) throws Exception {
        URI url = backend("", null, 200);
        Path config = example(directory, "thanos.yml");
        PrometheusFleetHistory history = PrometheusFleetHistory.at(BackendConfig.read(url, config),
                Duration.ofSeconds(5));
        history.readings(Instant.now(), new FleetScope.CardsOnly());
        // The read's questions to the engine (its clusters, which exporters it holds) go beside its
        // queries and are not waited for: they are sent with the token of their time too.
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (history.queriesInFlight() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(queries().stream().allMatch(query -> query.header("Authorization").equals("Bearer " + TOKEN)));
        seen.clear();
        Path token = directory.resolve("token");
        Files.writeString(token, "rotated-token-2222\n");
        // A rotation within the same millisecond and of the same size still shows as a new time.
        Files.setLastModifiedTime(token, FileTime.fromMillis(System.currentTimeMillis() + 2000));
        history.readings(Instant.now(), new FleetScope.CardsOnly());
        assertFalse(queries().isEmpty());
        assertTrue(queries().stream().allMatch(query -> query.header("Authorization").equals(
                "Bearer rotated-token-2222")), queries().getFirst().header("Authorization"));
    }

    @Test
    void mimirExampleSendsTheTenantAndBasicAuthUnderThePrometheusPrefix(@TempDir Path directory) throws Exception {
        URI url = backend("/prometheus", "{\"status\":\"success\",\"data\":{\"application\":\"Grafana Mimir\","
                + "\"version\":\"2.13.0\",\"revision\":\"x\",\"branch\":\"HEAD\",\"goVersion\":\"go1.22\","
                + "\"features\":{\"ruler_config_api\":\"true\"}}}", 200);
        Path config = example(directory, "mimir.yml");
        PrometheusFleetHistory history = PrometheusFleetHistory.at(BackendConfig.read(url, config),
                Duration.ofSeconds(5));
        history.usage(Instant.now(), Duration.ofDays(14), Duration.ofHours(3), new FleetScope.Everything());

        assertFalse(queries().isEmpty());
        String basic = "Basic " + Base64.getEncoder().encodeToString(("hami-observe:" + PASSWORD)
                .getBytes(StandardCharsets.UTF_8));
        for (Seen query : queries()) {
            assertTrue(query.path().startsWith("/prometheus/api/v1/query"), query.path());
            assertEquals("gpu-cluster-a", query.header("X-Scope-OrgID"));
            assertEquals(basic, query.header("Authorization"));
        }
        assertTrue(history.description().startsWith("Grafana Mimir 2.13.0 at " + url + "/"), history.description());
        assertFalse(history.description().contains("X-Scope-OrgID header"), "the tenant is configured");
    }

    @Test
    void victoriaMetricsInstantQueriesSayNocache(@TempDir Path directory) throws Exception {
        URI url = backend("/prometheus", "{\"status\":\"success\",\"data\":{}}", 200);
        PrometheusFleetHistory history = PrometheusFleetHistory.at(BackendConfig.of(url), Duration.ofSeconds(5));
        history.readings(Instant.now(), new FleetScope.CardsOnly());
        history.trends(new io.hamiobserve.domain.fleet.TrendScope.Cluster(), Instant.now(), Duration.ofHours(1),
                Duration.ofMinutes(1));
        for (Seen query : queries()) {
            boolean instant = query.path().endsWith("/api/v1/query");
            assertEquals(instant ? List.of("1") : null, query.form().get("nocache"), query.path());
        }
        assertTrue(seen.stream().anyMatch(request -> request.path().equals("/flags")), "the flags are read at "
                + "VictoriaMetrics's root, beside /prometheus");
        assertTrue(history.description().startsWith("VictoriaMetrics at " + url + "/"), history.description());
        assertTrue(history.description().contains("-search.maxStalenessInterval"), history.description());
    }

    @Test
    void secretsStayOutOfDescriptionsErrorsAndToString(@TempDir Path directory) throws Exception {
        URI url = backend("", null, 401);
        Files.writeString(directory.resolve("inline.yml"), """
                basic_auth:
                  username: reader
                  password: %s
                http_headers:
                  X-Api-Key:
                    secrets: [%s]
                """.formatted(PASSWORD, TOKEN));
        BackendConfig config = BackendConfig.read(url, directory.resolve("inline.yml"));
        PrometheusFleetHistory history = PrometheusFleetHistory.at(config, Duration.ofSeconds(5));
        SourceUnavailableException refused = assertThrows(SourceUnavailableException.class,
                () -> history.readings(Instant.now(), new FleetScope.CardsOnly()));
        assertTrue(queries().stream().allMatch(query -> query.header("X-Api-Key").equals(TOKEN)));
        for (String shown : List.of(refused.getMessage(), history.description(), config.toString())) {
            assertFalse(shown.contains(PASSWORD) || shown.contains(TOKEN), shown);
        }
        assertTrue(config.toString().contains("basic auth as reader <secret>"), config.toString());

        // A secret in a place the file format does not allow is refused without being quoted.
        Files.writeString(directory.resolve("bad.yml"), "basic_auth:\n  username: reader\n  password: ["
                + PASSWORD + "]\n");
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> BackendConfig.read(url, directory.resolve("bad.yml")));
        assertFalse(bad.getMessage().contains(PASSWORD), bad.getMessage());
        assertTrue(bad.getMessage().contains("basic_auth password"), bad.getMessage());
        Files.writeString(directory.resolve("broken.yml"), "basic_auth: {username: reader, password: \""
                + PASSWORD + "\n");
        bad = assertThrows(IllegalArgumentException.class, () -> BackendConfig.read(url, directory.resolve("broken.yml")));
        assertFalse(bad.getMessage().contains(PASSWORD), bad.getMessage());

        // Credentials in the URL: basic auth, never shown.
        BackendConfig inUrl = BackendConfig.of(URI.create("http://reader:" + PASSWORD + "@prometheus:9090"));
        assertEquals(URI.create("http://prometheus:9090/"), inUrl.url());
        assertFalse(inUrl.toString().contains(PASSWORD), inUrl.toString());
    }

    @Test
    void everyExampleParsesAndUnknownKeysAreRefused(@TempDir Path directory) throws IOException {
        URI url = URI.create("http://backend:9090");
        try (var examples = Files.list(EXAMPLES)) {
            List<Path> files = examples.filter(file -> file.toString().endsWith(".yml")).toList();
            assertEquals(4, files.size(), "prometheus, victoriametrics, thanos and mimir: " + files);
            for (Path file : files) {
                BackendConfig.read(url, file);
            }
        }
        BackendConfig prometheus = BackendConfig.read(url, EXAMPLES.resolve("prometheus.yml"));
        assertEquals("prometheus.monitoring.svc", prometheus.tls().orElseThrow().serverName().orElseThrow());
        assertEquals(EXAMPLES.toAbsolutePath().resolve("ca.crt"), prometheus.tls().orElseThrow().caFile().orElseThrow());

        Files.writeString(directory.resolve("oauth.yml"), "oauth2:\n  client_id: x\n");
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> BackendConfig.read(url, directory.resolve("oauth.yml")));
        assertTrue(refused.getMessage().contains("unsupported key oauth2"), refused.getMessage());
        Files.writeString(directory.resolve("both.yml"), "basic_auth: {username: a, password: b}\n"
                + "bearer_token_file: t\n");
        assertThrows(IllegalArgumentException.class, () -> BackendConfig.read(url, directory.resolve("both.yml")));
        Files.writeString(directory.resolve("own.yml"), "params: {query: [up]}\n");
        assertThrows(IllegalArgumentException.class, () -> BackendConfig.read(url, directory.resolve("own.yml")));
        Files.writeString(directory.resolve("header.yml"), "http_headers: {Authorization: {values: [x]}}\n");
        assertThrows(IllegalArgumentException.class, () -> BackendConfig.read(url, directory.resolve("header.yml")));
        assertThrows(IllegalArgumentException.class, () -> BackendConfig.of(URI.create("http://backend:9090/#x")));
        // A query string is the gateway's (?tenant=a): kept apart from the base, sent on every request.
        BackendConfig tenant = BackendConfig.of(URI.create("http://backend:9090/prom?tenant=a"));
        assertEquals(URI.create("http://backend:9090/prom/"), tenant.url());
        assertEquals("tenant=a", tenant.urlQuery());
    }

    @Test
    void theClustersOneEngineHoldsAreNamedBesideIt() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String body = URLDecoder.decode(new String(exchange.getRequestBody().readAllBytes(),
                    StandardCharsets.UTF_8), StandardCharsets.UTF_8);
            String path = exchange.getRequestURI().getPath();
            if (path.endsWith("/buildinfo")) {
                answer(exchange, 200, "{\"status\":\"success\",\"data\":{\"version\":\"2.53.0\",\"goVersion\":\"go1.22\"}}");
            } else if (body.contains("count by (k8s_cluster) (hami_gpu_memory_limit_bytes)")) {
                answer(exchange, 200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
                        + "{\"metric\":{\"k8s_cluster\":\"west\"},\"value\":[1,\"4\"]},"
                        + "{\"metric\":{\"k8s_cluster\":\"east\"},\"value\":[1,\"3\"]}]}}");
            } else {
                answer(exchange, 200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}");
            }
        });
        server.start();
        PrometheusFleetHistory history = PrometheusFleetHistory.at(BackendConfig.of(URI.create("http://127.0.0.1:"
                + server.getAddress().getPort())), Duration.ofSeconds(5), "k8s_cluster");
        history.readings(Instant.now(), new FleetScope.CardsOnly());
        // The clusters are asked beside the fleet's queries; their answer names them from then on.
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!history.description().contains("clusters") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(history.description().endsWith(" · 2 clusters by label k8s_cluster (east, west): figures are "
                + "summed across them, and each node, card and workload is one cluster's"), history.description());
        assertThrows(IllegalArgumentException.class, () -> PrometheusFleetHistory.at(BackendConfig.of(
                URI.create("http://backend:9090")), Duration.ofSeconds(1), "a-b"));
    }

    @Test
    void enginesAreToldFromTheirBuildinfo() {
        BackendConfig plain = BackendConfig.of(URI.create("http://backend:9090"));
        tools.jackson.databind.json.JsonMapper json = tools.jackson.databind.json.JsonMapper.builder().build();
        java.util.function.Supplier<java.util.Optional<Map<String, String>>> noFlags = java.util.Optional::empty;
        assertEquals(Engine.Kind.PROMETHEUS, Engine.identify(json.readTree("{\"version\":\"2.42.0\","
                + "\"revision\":\"r\",\"goVersion\":\"go1.19\"}"), false, noFlags, plain).kind());
        assertEquals(Engine.Kind.VICTORIAMETRICS, Engine.identify(json.readTree("{}"), true, noFlags, plain).kind());
        assertEquals(Engine.Kind.VICTORIAMETRICS, Engine.identify(json.readTree("{\"version\":\"2.24.0\"}"), false,
                noFlags, plain).kind());
        Engine thanos = Engine.identify(json.readTree("{\"version\":\"0.34.1\",\"goVersion\":\"go1.21\"}"), false,
                noFlags, plain);
        assertEquals(Engine.Kind.THANOS, thanos.kind());
        assertTrue(thanos.notes().stream().anyMatch(note -> note.contains("max_source_resolution=auto")));
        Engine mimir = Engine.identify(json.readTree("{\"application\":\"Grafana Mimir\",\"version\":\"2.13.0\","
                + "\"goVersion\":\"go1.22\"}"), false, noFlags, plain);
        assertEquals(Engine.Kind.MIMIR, mimir.kind());
        assertTrue(mimir.notes().getFirst().contains("X-Scope-OrgID"));

        Engine tuned = Engine.identify(json.readTree("{}"), true, () -> java.util.Optional.of(Engine.parseFlags(
                "-httpListenAddr=\":8428\"\n-search.maxStalenessInterval=\"5m\"\n-search.latencyOffset=\"0s\"\n")),
                plain);
        assertEquals(2, tuned.notes().size(), "only the nocache adaptation and the queries at once: " + tuned.notes());
        Engine defaults = Engine.identify(json.readTree("{}"), true, () -> java.util.Optional.of(Map.of()), plain);
        assertEquals(4, defaults.notes().size(), defaults.notes().toString());
        // VictoriaMetrics runs -search.maxConcurrentRequests at once (4 unless set) and answers 503 to a
        // query that queued past -search.maxQueueDuration: the console sends no more than it runs.
        assertEquals(Engine.VICTORIAMETRICS_DEFAULT_CONCURRENCY, defaults.queriesAtOnce());
        assertTrue(defaults.notes().contains("at most 4 queries at once (-search.maxConcurrentRequests's default; "
                + "set it to send more)"), defaults.notes().toString());
        Engine wider = Engine.identify(json.readTree("{}"), true, () -> java.util.Optional.of(Engine.parseFlags(
                "-search.maxConcurrentRequests=\"12\"\n")), plain);
        assertEquals(12, wider.queriesAtOnce());
        assertTrue(wider.notes().contains("at most 12 queries at once (its -search.maxConcurrentRequests)"),
                wider.notes().toString());
        for (String odd : List.of("0", "-3", "many", "99999999999")) {
            assertEquals(Engine.VICTORIAMETRICS_DEFAULT_CONCURRENCY, Engine.identify(json.readTree("{}"), true,
                    () -> java.util.Optional.of(Map.of(Engine.MAX_CONCURRENT, odd)), plain).queriesAtOnce(), odd);
        }
        assertEquals(PrometheusApi.MAX_IN_FLIGHT, Engine.identify(json.readTree("{}"), true,
                () -> java.util.Optional.of(Map.of(Engine.MAX_CONCURRENT, "200")), plain).queriesAtOnce());
        assertEquals(PrometheusApi.MAX_IN_FLIGHT, thanos.queriesAtOnce(), "an engine that queues takes the console's own bound");

        assertEquals(URI.create("http://vm:8428/"), Engine.root(URI.create("http://vm:8428/prometheus/")));
        assertEquals(URI.create("http://vmselect:8481/"), Engine.root(URI.create("http://vmselect:8481/select/0/prometheus/")));
        assertEquals(URI.create("http://gw/vm/"), Engine.root(URI.create("http://gw/vm/select/12:3/prometheus/")));
        assertEquals(URI.create("http://vm:8428/"), Engine.root(URI.create("http://vm:8428/")));
    }
}
