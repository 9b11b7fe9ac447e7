package io.hamiobserve.demo;

import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;
import io.hamiobserve.edge.Servers;
import io.hamiobserve.exposition.testing.GzipMemberReader;
import io.hamiobserve.role.scheduler.AllocationRole;
import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The allocation endpoint's gzip body is one member made of deflate pieces (each segment's lines
 * compressed once and kept): a real Prometheus stores every series of it, the families of the last
 * pieces as well as the first, and curl's {@code --compressed}, which reads only a body's first
 * gzip member, reads all of it.
 */
class GzipPiecesScrapeTest {
    private static final String JOB = "hami-observe-scheduler";
    private static final String OPENMETRICS = "application/openmetrics-text;version=1.0.0,"
            + "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

    @Test
    void prometheusStoresEverySeriesOfAMultiMemberBody() throws Exception {
        // The demo's cluster and, beside it, more nodes than the exposition writes as one gzip stream
        // (SegmentedExposition.PIECES_THRESHOLD segments): each registers a copy of a demo card.
        AllocationRole role = Fixtures.allocation(false, ledger -> {
            VendorCard card = DemoCluster.standard().cards().getFirst().vendorCard();
            for (int node = 0; node < 80; node++) {
                RegisteredCard registered = card.card();
                ledger.putVendorCards("extra-node-" + node, List.of(new VendorCard(new RegisteredCard(
                        "GPU-extra-" + node, 0, registered.maxShares(), registered.memoryMib(), registered.cores(),
                        registered.type(), registered.numa(), registered.mode(), registered.healthy()),
                        card.backend(), card.units())));
            }
        });
        WebServer server = Servers.serve("127.0.0.1:0", role);
        HttpClient client = HttpClient.newHttpClient();
        try {
            HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + server.port() + "/metrics"))
                    .header("Accept", OPENMETRICS).header("Accept-Encoding", "gzip").build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, response.statusCode());
            assertEquals("gzip", response.headers().firstValue("Content-Encoding").orElse(""));
            List<byte[]> members = GzipMemberReader.members(response.body());
            assertEquals(1, members.size(), "gzip members in the body");
            String exposition;
            try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(response.body()))) {
                exposition = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertTrue(exposition.endsWith("# EOF\n"), "the last piece ends the OpenMetrics body");
            assertEquals(exposition, new String(members.getFirst(), StandardCharsets.UTF_8));

            // curl 7.88's --compressed stops after a body's first gzip member (and exits 23).
            Process curl = new ProcessBuilder("curl", "-sS", "--compressed", "-H", "Accept: " + OPENMETRICS,
                    "http://127.0.0.1:" + server.port() + "/metrics").redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String read = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, curl.waitFor(), "curl --compressed's exit status");
            assertEquals(exposition.length(), read.length(), "what curl --compressed read");
            assertTrue(read.contains("hami_vgpu_memory_allocated_bytes{") && read.endsWith("# EOF\n"), "curl read the end");

            // Families of the first and the last members, and the exporter's own series between them.
            Map<String, Long> expected = new java.util.LinkedHashMap<>();
            for (String family : List.of("hami_gpu_core_allocated_ratio", "hami_node_gpu_overview",
                    "hami_observe_container_info", "hami_observe_ledger_synced", "hami_vgpu_core_allocated_ratio",
                    "hami_vgpu_memory_allocated_bytes")) {
                long lines = exposition.lines().filter(line -> line.startsWith(family + "{")
                        || line.startsWith(family + " ")).count();
                assertTrue(lines > 0, family + " in the body");
                expected.put(family, lines);
            }
            try (LocalPrometheus prometheus = LocalPrometheus.start(List.of(new LocalPrometheus.Job(JOB,
                    Map.of("127.0.0.1:" + server.port(), Map.of()))), Duration.ofSeconds(1), List.of(),
                    Duration.ofSeconds(60))) {
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                Map<String, Long> stored = Map.of();
                while (System.nanoTime() < deadline) {
                    stored = new java.util.LinkedHashMap<>();
                    for (String family : expected.keySet()) {
                        stored.put(family, count(client, prometheus.url(), family));
                    }
                    if (stored.equals(expected)) {
                        break;
                    }
                    Thread.sleep(250);
                }
                assertEquals(expected, stored, "series Prometheus stored of the body of pieces");
            }
        } finally {
            server.stop();
            role.close();
        }
    }

    private static final Pattern VALUE = Pattern.compile("\"value\":\\[[0-9.]+,\"([0-9]+)\"\\]");

    /** The number of series of {@code family} from the job, 0 before the first scrape. */
    private static long count(HttpClient client, URI prometheus, String family) throws Exception {
        String query = "count(" + family + "{job=\"" + JOB + "\"})";
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(prometheus.resolve(
                "/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        Matcher value = VALUE.matcher(response.body());
        return value.find() ? Long.parseLong(value.group(1)) : 0;
    }
}
