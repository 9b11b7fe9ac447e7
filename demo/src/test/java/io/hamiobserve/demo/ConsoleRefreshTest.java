package io.hamiobserve.demo;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;
import io.hamiobserve.adapters.prometheus.PrometheusFleetHistory;
import io.hamiobserve.edge.Servers;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.console.Console;
import io.hamiobserve.console.ConsoleSettings;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.role.console.ConsoleRole;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console as deployed — its fleet-wide figures read in the background before it is ready and
 * kept between refreshes — shows the same pages as a console that keeps nothing and sends every
 * query of a page when it is asked, over a real Prometheus holding the demo's week (NVIDIA and
 * Ascend nodes, the brief's pod).
 */
class ConsoleRefreshTest {
    private static final List<String> PAGES = List.of("/", "/nodes", "/cards", "/workloads", "/namespaces",
            "/rightsizing", "/capacity", "/workloads?export=workloads.csv", "/rightsizing?export=rightsizing.json",
            "/namespaces?export=namespaces.json");

    private final HttpClient client = HttpClient.newHttpClient();

    private record Served(Servers.Served server, Console console) {
    }

    private static Served serve(FleetHistory history, ConsoleSettings settings, Instant at) {
        ConsoleRole role = new ConsoleRole(BuildInfo.current());
        Console console = Console.create(role.observe(history), settings, Clock.fixed(at, ZoneOffset.UTC));
        role.readyWhen(console::ready, console::notReadyReason);
        return new Served(Servers.serve("127.0.0.1:0", role, EdgeConfig.defaults(), console::routing), console);
    }

    private HttpResponse<String> get(Servers.Served server, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static final java.util.regex.Pattern LONG_DECIMAL = java.util.regex.Pattern.compile("\\d+\\.\\d+");

    /**
     * Decimals to nine significant digits: Prometheus sums a vector's series in no fixed order, so
     * two evaluations of the same average can differ in the last bits of a double (a chart's data).
     */
    private static String digits(String body) {
        return LONG_DECIMAL.matcher(body).replaceAll(match -> new java.math.BigDecimal(match.group())
                .round(new java.math.MathContext(9)).stripTrailingZeros().toPlainString());
    }

    private static final java.util.regex.Pattern READ_APART = java.util.regex.Pattern.compile(
            "<dt id=\"q-(containers_per_node|container_memory_allocated|exporter_[a-z_]+)\">.*?</dd>\n",
            java.util.regex.Pattern.DOTALL);

    /**
     * A page without the queries the two consoles send differently for the same figures: a page of
     * cards, asked, counts its containers per node by the count query ({@code containers_per_node});
     * from the refresh, from every container's allocations ({@code container_memory_allocated}). And
     * the vendors' exporters' queries name every vendor until the engine has said which vendors'
     * metrics it holds, then those only: the refresh read first, the page asked later.
     */
    private static String sameCount(String body) {
        return READ_APART.matcher(body).replaceAll("");
    }

    @Test
    void pagesServedFromTheBackgroundRefreshEqualPagesReadWhenAsked() throws Exception {
        Instant now = Instant.now();
        DemoHistory history = new DemoHistory(DemoCluster.standard(), now);
        long step = DemoHistory.STEP.toSeconds();
        Instant end = Instant.ofEpochSecond(Math.floorDiv(now.getEpochSecond() - 1, step) * step);
        List<Path> files = List.of(Files.createTempFile("demo-history", ".om"),
                Files.createTempFile("demo-history", ".om"));
        try {
            history.writeOpenMetrics(files, end, "127.0.0.1:1", Map.of(DemoCluster.NODE_A, "127.0.0.1:2",
                    DemoCluster.NODE_B, "127.0.0.1:3"));
            try (LocalPrometheus prometheus = LocalPrometheus.start(List.of(), Duration.ofMinutes(1), files,
                    Duration.ofSeconds(60))) {
                FleetHistory source = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(30));
                Served refreshed = serve(source, ConsoleSettings.defaults(), end);
                Served asked = serve(source, ConsoleSettings.defaults().withFresh(Duration.ZERO), end);
                try {
                    assertEquals(200, get(refreshed.server(), "/readyz").statusCode(), "nothing to wait for yet");
                    refreshed.console().warmUp();
                    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                    while (get(refreshed.server(), "/readyz").statusCode() != 200 && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    assertEquals(200, get(refreshed.server(), "/readyz").statusCode());
                    for (String page : PAGES) {
                        HttpResponse<String> kept = get(refreshed.server(), page);
                        HttpResponse<String> read = get(asked.server(), page);
                        assertEquals(200, kept.statusCode(), page + ": " + kept.body());
                        assertEquals(200, read.statusCode(), page + ": " + read.body());
                        if (!page.contains("export")) {
                            assertTrue(kept.body().contains("as of <time>" + end + "</time>, refreshed every 1m"),
                                    page);
                        }
                        assertEquals(sameCount(digits(read.body())), sameCount(digits(kept.body().replaceAll(
                                ", refreshed every 1m(, its summaries over a window every 1h)?", ""))), page);
                    }
                    // The brief's pod's recommendation (2560 MiB), from the kept 14-day summary.
                    String advice = get(refreshed.server(), "/rightsizing?export=rightsizing.json").body();
                    assertTrue(java.util.regex.Pattern.compile("\"memory_recommended\" : 2560(\\.0)?,")
                            .matcher(advice).find(), advice);
                } finally {
                    refreshed.server().stop();
                    asked.server().stop();
                }
            }
        } finally {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }
}
