package io.hamiobserve.edge;

import io.hamiobserve.edge.testing.SampleSource;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.http.MetricsSource;
import io.hamiobserve.edge.testing.EdgeTestSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The limits of the HTTP edge: concurrency, deadlines, methods, bodies, headers, slow clients. */
class EdgeLimitsTest {
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Servers.Served> servers = new ArrayList<>();
    private final List<EdgeTestSource> sources = new ArrayList<>();

    @AfterEach
    void stop() {
        sources.forEach(EdgeTestSource::release);
        servers.forEach(Servers.Served::stop);
    }

    private Servers.Served serve(MetricsSource source, EdgeConfig edge) {
        Servers.Served served = Servers.serve("127.0.0.1:0", source, edge);
        servers.add(served);
        if (source instanceof EdgeTestSource test) {
            sources.add(test);
        }
        return served;
    }

    private URI uri(Servers.Served served, String path) {
        return URI.create("http://127.0.0.1:" + served.port() + path);
    }

    private HttpResponse<String> get(URI uri, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void scrapesBeyondTheLimitAreRefusedAtOnceWith503() throws Exception {
        EdgeTestSource source = EdgeTestSource.uncached().hold();
        Servers.Served served = serve(source, EdgeConfig.defaults().withMaxConcurrentScrapes(2));
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            held.add(client.sendAsync(HttpRequest.newBuilder(uri(served, "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        EdgeTestSource.awaitInFlight(served, 2);

        long started = System.nanoTime();
        HttpResponse<String> refused = get(uri(served, "/metrics"));
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        assertEquals(503, refused.statusCode());
        assertTrue(refused.body().contains("limit of 2 concurrent scrapes"), refused.body());
        assertTrue(tookMillis < 1000, "refused fast, took " + tookMillis + " ms");
        assertEquals(200, get(uri(served, "/healthz")).statusCode(), "probes do not count against the limit");
        assertEquals(200, get(uri(served, "/readyz")).statusCode());

        source.release();
        for (CompletableFuture<HttpResponse<String>> response : held) {
            assertEquals(200, response.get().statusCode());
        }
        assertEquals(200, get(uri(served, "/metrics")).statusCode(), "slots are given back");
    }

    @Test
    void aScrapeThatMissesItsDeadlineAnswers503() throws Exception {
        EdgeTestSource source = EdgeTestSource.uncached().hold();
        Servers.Served served = serve(source, EdgeConfig.defaults().withScrapeTimeout(Duration.ofMillis(300)));
        long started = System.nanoTime();
        HttpResponse<String> late = get(uri(served, "/metrics"));
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        assertEquals(503, late.statusCode());
        assertTrue(late.body().contains("scrape deadline of 300 ms"), late.body());
        assertTrue(tookMillis >= 300 && tookMillis < 2000, "answered at the deadline, took " + tookMillis + " ms");
        assertEquals(0, served.endpoint().inFlight(), "the scrape is not in flight any more");
    }

    @Test
    void prometheusScrapeTimeoutHeaderShortensTheDeadline() throws Exception {
        EdgeTestSource source = EdgeTestSource.uncached().hold();
        Servers.Served served = serve(source, EdgeConfig.defaults().withScrapeTimeout(Duration.ofSeconds(8)));
        long started = System.nanoTime();
        HttpResponse<String> late = get(uri(served, "/metrics"), "X-Prometheus-Scrape-Timeout-Seconds", "1");
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        assertEquals(503, late.statusCode());
        assertTrue(late.body().contains("scrape deadline of 500 ms"), "1 s minus the 0.5 s margin: " + late.body());
        assertTrue(tookMillis < 2500, "took " + tookMillis + " ms");

        assertEquals(Duration.ofSeconds(8), EdgeConfig.defaults().deadline(Optional.of("10")),
                "a longer header never extends the configured deadline");
        assertEquals(Duration.ofSeconds(8), EdgeConfig.defaults().deadline(Optional.of("ten")),
                "a malformed header is ignored");
        assertEquals(Duration.ofMillis(100), EdgeConfig.defaults().deadline(Optional.of("0.2")));
    }

    @Test
    void onlyGetAndHeadAndNoBodies() throws Exception {
        Servers.Served served = serve(new SampleSource(), EdgeConfig.defaults());
        for (String path : List.of("/metrics", "/healthz", "/other")) {
            for (String method : List.of("POST", "PUT", "DELETE", "PATCH")) {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri(served, path))
                        .method(method, HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(405, response.statusCode(), method + " " + path);
                assertEquals("GET, HEAD, OPTIONS", response.headers().firstValue("allow").orElseThrow());
                assertEquals("nosniff", response.headers().firstValue("x-content-type-options").orElseThrow());
            }
        }
        HttpResponse<String> withBody = client.send(HttpRequest.newBuilder(uri(served, "/metrics"))
                .method("GET", HttpRequest.BodyPublishers.ofString("x=1")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(413, withBody.statusCode());
        // A 1 MiB body is refused from its declared length, before it is read. Only its first bytes
        // are sent: a client still writing when the server closes may see a reset instead of the answer.
        String hugeBody = rawExchange(served, "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: " + (1 << 20)
                + "\r\n\r\n" + "x".repeat(2048));
        assertTrue(hugeBody.startsWith("HTTP/1.1 413 "), hugeBody);
    }

    @Test
    void everyAnswerCarriesNosniff() throws Exception {
        Servers.Served served = serve(new SampleSource(), EdgeConfig.defaults());
        for (String path : List.of("/metrics", "/healthz", "/readyz", "/other")) {
            HttpResponse<String> response = get(uri(served, path));
            assertEquals("nosniff", response.headers().firstValue("x-content-type-options").orElse(""), path);
        }
    }

    @Test
    void tooManyOrTooLargeHeadersAreRefused() throws Exception {
        Servers.Served served = serve(new SampleSource(), EdgeConfig.defaults().withHeaderLimits(4096, 20));
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            many.add("X-Filler-" + i);
            many.add("v");
        }
        assertEquals(431, get(uri(served, "/metrics"), many.toArray(String[]::new)).statusCode());

        String status = rawExchange(served, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(8000)
                + "\r\n\r\n");
        assertTrue(status.startsWith("HTTP/1.1 4"), "a header block over the limit is refused: " + status);
        String longLine = rawExchange(served, "GET /metrics?" + "a".repeat(5000) + " HTTP/1.1\r\nHost: x\r\n\r\n");
        assertTrue(longLine.startsWith("HTTP/1.1 4"), "a request line over the limit is refused: " + longLine);
        assertEquals(200, get(uri(served, "/metrics")).statusCode(), "the endpoint still serves");
    }

    /** Sends raw bytes, returns the status line (or an empty string when the server just closed). */
    private static String rawExchange(Servers.Served served, String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", served.port())) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            String response = new String(socket.getInputStream().readNBytes(64), StandardCharsets.ISO_8859_1);
            int end = response.indexOf("\r\n");
            return end < 0 ? response : response.substring(0, end);
        }
    }

    @Test
    void aClientThatStallsMidRequestIsDisconnected() throws Exception {
        Servers.Served served = serve(new SampleSource(),
                EdgeConfig.defaults().withReadTimeout(Duration.ofMillis(500)));
        try (Socket socket = new Socket("127.0.0.1", served.port())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            long started = System.nanoTime();
            InputStream in = socket.getInputStream();
            try {
                byte[] answer = in.readAllBytes();
                String text = new String(answer, StandardCharsets.ISO_8859_1);
                assertTrue(text.isEmpty() || text.startsWith("HTTP/1.1 4"), "closed or refused: " + text);
            } catch (SocketTimeoutException stillOpen) {
                throw new AssertionError("the server kept a stalled request open for 5 s");
            } catch (IOException reset) {
                // A reset is also a disconnect.
            }
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(tookMillis < 4000, "disconnected after " + tookMillis + " ms");
        }
        assertEquals(200, get(uri(served, "/metrics")).statusCode());
        assertEquals(0, served.guard().pending(), "the stalled connection is forgotten");
    }

    @Test
    void idleKeepAliveConnectionsAreClosed() throws Exception {
        Servers.Served served = serve(new SampleSource(),
                EdgeConfig.defaults().withIdleTimeout(Duration.ofSeconds(1)));
        try (Socket socket = new Socket("127.0.0.1", served.port())) {
            socket.setSoTimeout(8000);
            socket.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[4096];
            int read = in.read(buffer);
            assertTrue(read > 0 && new String(buffer, 0, read, StandardCharsets.ISO_8859_1).startsWith("HTTP/1.1 200"));
            long started = System.nanoTime();
            int next;
            try {
                next = in.read(buffer);
            } catch (SocketTimeoutException stillOpen) {
                throw new AssertionError("an idle connection stayed open for 8 s");
            } catch (IOException reset) {
                next = -1;
            }
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertEquals(-1, next, "closed, not answered");
            assertTrue(tookMillis < 5000, "closed after " + tookMillis + " ms");
        }
    }
}
