package io.hamiobserve.adapters.prometheus;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which engine answers the Prometheus API, told from {@code /api/v1/status/buildinfo}, and what the
 * console does about it. The queries themselves are written to give the same figures on every
 * engine (explicit lookbacks in subqueries, no rate extrapolation in a figure: docs/console.md,
 * "Backends and clusters"); what a query cannot do is an adaptation here or a note to the operator.
 *
 * <ul>
 *   <li>Prometheus: {@code data} with a {@code version} and a {@code goVersion}.</li>
 *   <li>VictoriaMetrics (single node or vmselect): an empty {@code data}, or a Prometheus-like
 *       version without build details, and its {@code X-Server-Hostname} header. Its "now" is
 *       {@code -search.latencyOffset} (30 s) ago unless a query says {@code nocache=1}, which the
 *       console's instant queries do; {@code /flags} lists the flags set, read for the notes.</li>
 *   <li>Thanos Query: a {@code 0.x} version. Downsampled data and partial answers follow the
 *       configured {@code params}.</li>
 *   <li>Grafana Mimir: {@code application: "Grafana Mimir"}; a tenant header is needed.</li>
 *   <li>Anything else (Cortex answers no buildinfo): treated as Prometheus.</li>
 * </ul>
 *
 * @param name              the engine, in words
 * @param version           its version, when it says one
 * @param instantParameters query parameters added to every instant query
 * @param notes             what the console adapts and what the operator should set, one phrase each
 * @param queriesAtOnce     the most queries the console sends at once: what the engine runs at once
 *                          without queueing (VictoriaMetrics answers 503 to a query that queued past
 *                          its {@code -search.maxQueueDuration})
 */
record Engine(Kind kind, String name, Optional<String> version, Map<String, String> instantParameters,
              List<String> notes, int queriesAtOnce) {
    /** The engines told apart. */
    enum Kind {
        PROMETHEUS, VICTORIAMETRICS, THANOS, MIMIR, UNKNOWN
    }

    /** Before the first answer: queries as for Prometheus. */
    static final Engine UNKNOWN = new Engine(Kind.UNKNOWN, "Prometheus-compatible engine", Optional.empty(), Map.of(),
            List.of());

    /** The largest buildinfo or flags answer read (VictoriaMetrics' /flags is a few kilobytes). */
    private static final int MAX_ANSWER = 256 * 1024;
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** The VictoriaMetrics flags whose defaults make its figures differ from Prometheus's. */
    static final String LATENCY_OFFSET = "search.latencyOffset";
    static final String MAX_STALENESS = "search.maxStalenessInterval";

    /** VictoriaMetrics' {@code -search.maxConcurrentRequests} unless set (its default in 1.79). */
    static final int VICTORIAMETRICS_DEFAULT_CONCURRENCY = 4;
    static final String MAX_CONCURRENT = "search.maxConcurrentRequests";

    Engine {
        instantParameters = Map.copyOf(instantParameters);
        notes = List.copyOf(notes);
        queriesAtOnce = Math.clamp(queriesAtOnce, 1, PrometheusApi.MAX_IN_FLIGHT);
    }

    /** An engine that queues what it cannot run at once (Prometheus's {@code --query.max-concurrency}). */
    Engine(Kind kind, String name, Optional<String> version, Map<String, String> instantParameters,
           List<String> notes) {
        this(kind, name, version, instantParameters, notes, PrometheusApi.MAX_IN_FLIGHT);
    }

    /** One line for a page's header and the log: the engine, its version, where, what is adapted or missing. */
    String summary(URI base) {
        return name + version.map(v -> " " + v).orElse("") + " at " + base + (notes.isEmpty() ? ""
                : " (" + String.join("; ", notes) + ")");
    }

    /**
     * Asks the backend which engine it is; any failure (unreachable, no buildinfo, not JSON) is an
     * empty answer, and the queries go on as for Prometheus.
     */
    static Optional<Engine> detect(QueryBackend backend, HttpClient client, Duration timeout) {
        Optional<Answer> buildinfo = get(backend, client, withQuery(backend, backend.base().resolve("api/v1/status/buildinfo")),
                timeout);
        if (buildinfo.isEmpty()) {
            return Optional.empty();
        }
        if (buildinfo.get().status() == 404) {
            return Optional.of(new Engine(Kind.UNKNOWN, "Prometheus-compatible engine without buildinfo",
                    Optional.empty(), Map.of(), List.of()));
        }
        JsonNode data;
        try {
            data = JSON.readTree(buildinfo.get().body()).path("data");
        } catch (JacksonException notJson) {
            return Optional.empty();
        }
        if (buildinfo.get().status() != 200) {
            return Optional.empty();
        }
        return Optional.of(identify(data, buildinfo.get().victoriaMetricsHeader(),
                () -> flags(backend, client, timeout), backend.config()));
    }

    /** The engine a buildinfo {@code data} object (and the VictoriaMetrics header) describe. */
    static Engine identify(JsonNode data, boolean victoriaMetricsHeader,
                           java.util.function.Supplier<Optional<Map<String, String>>> flags, BackendConfig config) {
        String version = data.path("version").asString("");
        String application = data.path("application").asString("");
        boolean buildDetails = data.has("goVersion") || data.has("revision");
        if (application.toLowerCase(java.util.Locale.ROOT).contains("mimir")) {
            List<String> notes = new ArrayList<>();
            if (config.headers().keySet().stream().noneMatch(header -> header.equalsIgnoreCase("X-Scope-OrgID"))) {
                notes.add("no X-Scope-OrgID header configured: Mimir answers only with a tenant");
            }
            return new Engine(Kind.MIMIR, "Grafana Mimir", optional(version), Map.of(), notes);
        }
        if (victoriaMetricsHeader || (!buildDetails && application.isEmpty())) {
            return victoriaMetrics(flags.get());
        }
        if (version.startsWith("0.")) {
            List<String> notes = new ArrayList<>();
            if (!config.params().containsKey("max_source_resolution")) {
                notes.add("raw data only: set params max_source_resolution=auto to read downsampled blocks");
            }
            if (!config.params().containsKey("partial_response")) {
                notes.add("partial_response as Thanos Query's default");
            }
            return new Engine(Kind.THANOS, "Thanos Query", optional(version), Map.of(), notes);
        }
        return new Engine(Kind.PROMETHEUS, "Prometheus", optional(version), Map.of(), List.of());
    }

    /**
     * VictoriaMetrics: "now" read with {@code nocache=1} (else it is {@code -search.latencyOffset}
     * ago), and the flags that change figures the console does not compute itself (the Grafana
     * dashboard's, vmalert's rules) named when they are left at their defaults.
     */
    private static Engine victoriaMetrics(Optional<Map<String, String>> flags) {
        List<String> notes = new ArrayList<>();
        notes.add("instant queries with nocache=1, so \"now\" is not -" + LATENCY_OFFSET + " ago");
        if (flags.isEmpty()) {
            notes.add("its /flags are not readable here: set -" + MAX_STALENESS + "=5m");
        } else if (!flags.get().containsKey(MAX_STALENESS)) {
            notes.add("-" + MAX_STALENESS + " is not set: set it to 5m for Prometheus's lookback in dashboards "
                    + "and rules");
        }
        if (flags.isPresent() && !flags.get().containsKey(LATENCY_OFFSET)) {
            notes.add("-" + LATENCY_OFFSET + " is 30s: a trend's last 30 s at steps up to 1 min are held back");
        }
        // It runs -search.maxConcurrentRequests queries at once and answers 503 to one that waits
        // longer than -search.maxQueueDuration (10 s): the console sends no more than it runs.
        OptionalInt set = flags.map(found -> found.get(MAX_CONCURRENT)).map(Engine::positive)
                .orElse(OptionalInt.empty());
        int atOnce = Math.clamp(set.orElse(VICTORIAMETRICS_DEFAULT_CONCURRENCY), 1, PrometheusApi.MAX_IN_FLIGHT);
        notes.add("at most " + atOnce + " queries at once ("
                + (set.isPresent() ? "its -" + MAX_CONCURRENT : "-" + MAX_CONCURRENT + "'s default; set it to send more")
                + ")");
        return new Engine(Kind.VICTORIAMETRICS, "VictoriaMetrics", Optional.empty(), Map.of("nocache", "1"), notes,
                atOnce);
    }

    private static OptionalInt positive(String value) {
        try {
            int parsed = Integer.parseInt(value.strip());
            return parsed > 0 ? OptionalInt.of(parsed) : OptionalInt.empty();
        } catch (NumberFormatException notANumber) {
            return OptionalInt.empty();
        }
    }

    private static final Pattern FLAG = Pattern.compile("^-([A-Za-z0-9_.-]+)=\"?(.*?)\"?$");
    private static final Pattern CLUSTER_PATH = Pattern.compile("^(.*/)select/[^/]+/prometheus/?$");
    private static final Pattern SINGLE_PATH = Pattern.compile("^(.*/)prometheus/?$");

    /** VictoriaMetrics's root for a base URL: the path without {@code /prometheus} or {@code /select/N/prometheus}. */
    static URI root(URI base) {
        String path = base.getRawPath() == null || base.getRawPath().isEmpty() ? "/" : base.getRawPath();
        Matcher cluster = CLUSTER_PATH.matcher(path);
        Matcher single = SINGLE_PATH.matcher(path);
        String rootPath = cluster.matches() ? cluster.group(1) : single.matches() ? single.group(1) : path;
        return base.resolve(rootPath.endsWith("/") ? rootPath : rootPath + "/");
    }

    /** The flags set on the command line ({@code /flags} lists them as {@code -name="value"}). */
    private static Optional<Map<String, String>> flags(QueryBackend backend, HttpClient client, Duration timeout) {
        Optional<Answer> answer = get(backend, client, withQuery(backend, root(backend.base()).resolve("flags")), timeout);
        if (answer.isEmpty() || answer.get().status() != 200) {
            return Optional.empty();
        }
        return Optional.of(parseFlags(answer.get().body()));
    }

    static Map<String, String> parseFlags(String text) {
        Map<String, String> flags = new LinkedHashMap<>();
        text.lines().map(String::strip).forEach(line -> {
            Matcher flag = FLAG.matcher(line);
            if (flag.matches()) {
                flags.put(flag.group(1), flag.group(2));
            }
        });
        return flags;
    }

    /** The URL with the backend URL's own query string (a gateway's tenant), as every query carries it. */
    private static URI withQuery(QueryBackend backend, URI url) {
        return backend.urlQuery().isEmpty() ? url : URI.create(url + "?" + backend.urlQuery());
    }

    /** An answer to one of the exchanges outside the queries: its status and its first {@link #MAX_ANSWER} bytes. */
    record Answer(int status, String body, boolean victoriaMetricsHeader) {
    }

    /**
     * A GET outside the queries (buildinfo, flags, the rules), with the backend's credentials,
     * headers and TLS, within {@code timeout}, its body bounded; empty where none came back.
     */
    static Optional<Answer> get(QueryBackend backend, HttpClient client, URI url, Duration timeout) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(timeout).GET()
                    .header("Accept", "application/json");
            backend.decorate(request);
            HttpResponse<InputStream> response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            // The request's timeout covers the headers only: a body that stalls is closed at the deadline.
            java.util.concurrent.ScheduledFuture<?> alarm = PrometheusApi.closeAfter(response.body(), timeout);
            try (InputStream in = response.body()) {
                byte[] bytes = in.readNBytes(MAX_ANSWER);
                return Optional.of(new Answer(response.statusCode(), new String(bytes, StandardCharsets.UTF_8),
                        response.headers().firstValue("X-Server-Hostname").isPresent()));
            } finally {
                alarm.cancel(false);
            }
        } catch (IOException | IllegalArgumentException unanswered) {
            return Optional.empty();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static Optional<String> optional(String text) {
        return text.isBlank() ? Optional.empty() : Optional.of(text.strip());
    }
}
