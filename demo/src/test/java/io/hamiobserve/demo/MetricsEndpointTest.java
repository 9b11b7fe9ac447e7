package io.hamiobserve.demo;

import io.hamiobserve.app.testing.Expositions;
import io.hamiobserve.edge.Servers;
import io.hamiobserve.role.scheduler.AllocationRole;
import io.hamiobserve.exposition.testing.Promtool;
import io.hamiobserve.edge.http.MetricsSource;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.ports.SchedulerLedgerSource;
import io.hamiobserve.ports.SkipReporter;
import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The HTTP face of an endpoint: methods, formats, encodings, health and readiness. */
class MetricsEndpointTest {
    private final HttpClient client = HttpClient.newHttpClient();
    private final List<WebServer> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(WebServer::stop);
    }

    private String serve(MetricsSource source) {
        WebServer server = Servers.serve("127.0.0.1:0", source);
        servers.add(server);
        return "http://127.0.0.1:" + server.port();
    }

    private HttpResponse<byte[]> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void getServesPrometheusTextByDefault() throws Exception {
        String base = serve(Fixtures.allocation(false));
        HttpResponse<byte[]> response = send(HttpRequest.newBuilder(URI.create(base + "/metrics")));
        assertEquals(200, response.statusCode());
        assertEquals("text/plain; version=0.0.4; charset=utf-8",
                response.headers().firstValue("content-type").orElseThrow());
        assertEquals("nosniff", response.headers().firstValue("x-content-type-options").orElseThrow());
        String body = new String(response.body(), StandardCharsets.UTF_8);
        assertTrue(body.contains("# TYPE hami_gpu_memory_allocated_bytes gauge"), body);
        Promtool.assertClean(body);
    }

    @Test
    void openMetricsWhenAsked() throws Exception {
        String base = serve(Fixtures.allocation(false));
        HttpResponse<byte[]> response = send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
                .header("Accept", "application/openmetrics-text; version=1.0.0; charset=utf-8,text/plain;q=0.5"));
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("content-type").orElseThrow()
                .startsWith("application/openmetrics-text"));
        String body = new String(response.body(), StandardCharsets.UTF_8);
        assertTrue(body.endsWith("# EOF\n"), "OpenMetrics ends with # EOF");
    }

    @Test
    void gzipWhenAcceptedAndSameContent() throws Exception {
        String base = serve(Fixtures.allocation(false));
        HttpResponse<byte[]> plain = send(HttpRequest.newBuilder(URI.create(base + "/metrics")));
        HttpResponse<byte[]> zipped = send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
                .header("Accept-Encoding", "gzip"));
        assertEquals("gzip", zipped.headers().firstValue("content-encoding").orElseThrow());
        byte[] unzipped = new GZIPInputStream(new ByteArrayInputStream(zipped.body())).readAllBytes();
        assertEquals(Expositions.withoutDurations(new String(plain.body(), StandardCharsets.UTF_8)),
                Expositions.withoutDurations(new String(unzipped, StandardCharsets.UTF_8)));
        assertTrue(zipped.body().length * 4 < plain.body().length, "gzip compresses the exposition well");

        HttpResponse<byte[]> refused = send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
                .header("Accept-Encoding", "gzip;q=0, identity"));
        assertTrue(refused.headers().firstValue("content-encoding").isEmpty(), "q=0 refuses gzip");
    }

    @Test
    void headAnswersHeadersWithoutBody() throws Exception {
        String base = serve(Fixtures.allocation(false));
        HttpResponse<byte[]> get = send(HttpRequest.newBuilder(URI.create(base + "/metrics")));
        HttpResponse<byte[]> head = send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()));
        assertEquals(200, head.statusCode());
        assertEquals(0, head.body().length);
        assertEquals(Integer.toString(get.body().length), head.headers().firstValue("content-length").orElseThrow());
    }

    @Test
    void otherMethodsAreRefused() throws Exception {
        String base = serve(Fixtures.allocation(false));
        for (String path : List.of("/metrics", "/healthz", "/readyz")) {
            for (String method : List.of("POST", "PUT", "DELETE")) {
                HttpResponse<byte[]> response = send(HttpRequest.newBuilder(URI.create(base + path))
                        .method(method, HttpRequest.BodyPublishers.ofString("x")));
                assertEquals(405, response.statusCode(), method + " " + path);
                assertEquals("GET, HEAD, OPTIONS", response.headers().firstValue("allow").orElseThrow());
            }
            HttpResponse<byte[]> options = send(HttpRequest.newBuilder(URI.create(base + path))
                    .method("OPTIONS", HttpRequest.BodyPublishers.noBody()));
            assertEquals(204, options.statusCode(), "OPTIONS " + path);
            assertEquals("GET, HEAD, OPTIONS", options.headers().firstValue("allow").orElseThrow());
            assertEquals(0, options.body().length);
        }
        assertEquals(404, send(HttpRequest.newBuilder(URI.create(base + "/other"))).statusCode());
    }

    @Test
    void readyOnlyOnceTheLedgerHasSynced() throws Exception {
        Ledger[] captured = new Ledger[1];
        SchedulerLedgerSource notYet = new SchedulerLedgerSource() {
            @Override
            public void start(Ledger ledger, SkipReporter skips) {
                captured[0] = ledger;
            }

            @Override
            public void close() {
            }
        };
        AllocationRole role = new AllocationRole(notYet, false, Expositions.BUILD).start();
        String base = serve(role);
        assertEquals(200, send(HttpRequest.newBuilder(URI.create(base + "/healthz"))).statusCode());
        HttpResponse<byte[]> before = send(HttpRequest.newBuilder(URI.create(base + "/readyz")));
        assertEquals(503, before.statusCode());
        assertTrue(new String(before.body(), StandardCharsets.UTF_8).contains("not ready"));
        String metrics = new String(send(HttpRequest.newBuilder(URI.create(base + "/metrics"))).body(),
                StandardCharsets.UTF_8);
        assertTrue(metrics.contains("hami_observe_ledger_synced 0.0"), metrics);

        captured[0].markSynced(Fixtures.NOW.toEpochMilli());
        assertEquals(200, send(HttpRequest.newBuilder(URI.create(base + "/readyz"))).statusCode());
        metrics = new String(send(HttpRequest.newBuilder(URI.create(base + "/metrics"))).body(), StandardCharsets.UTF_8);
        assertTrue(metrics.contains("hami_observe_ledger_synced 1.0"), metrics);
        assertTrue(metrics.contains("hami_observe_ledger_last_sync_timestamp_seconds 1.7959536E9"), metrics);
    }

    @Test
    void unchangedLedgerIsServedFromTheLastRenderingAndChangesAreSeen() throws Exception {
        Ledger[] ledger = new Ledger[1];
        AllocationRole role = Fixtures.allocation(false, loaded -> ledger[0] = loaded);
        String base = serve(role);
        byte[] first = send(HttpRequest.newBuilder(URI.create(base + "/metrics"))).body();
        byte[] second = send(HttpRequest.newBuilder(URI.create(base + "/metrics"))).body();
        assertArrayEquals(first, second, "same state, same bytes (durations included: not recomputed)");

        ledger[0].removeNode("gpu-node-b");
        String third = new String(send(HttpRequest.newBuilder(URI.create(base + "/metrics"))).body(),
                StandardCharsets.UTF_8);
        assertTrue(!third.contains("node=\"gpu-node-b\",zone"), "removed node's cards are gone");
    }
}
