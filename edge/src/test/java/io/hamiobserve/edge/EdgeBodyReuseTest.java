package io.hamiobserve.edge;

import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.http.MetricsSource;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The arrays of a body no scrape reads any more go to the next body (a source collected at every
 * scrape, as the node's). Each collection here writes its own number into every one of its
 * 40,000 series (a 1.3 MB body, two arrays), so a body whose arrays were handed on while a scrape
 * still sent it would reach that client with another collection's numbers in it.
 */
class EdgeBodyReuseTest {
    /** Series per collection: 40,000 make a 1.5 MB body in two arrays. */
    private int series = 40_000;
    private static final Pattern SERIES_LINE = Pattern.compile("edge_reuse\\{series=\"(\\d+)\"} (\\d+)\\.0");

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Servers.Served served;

    @AfterEach
    void stop() {
        if (served != null) {
            served.stop();
        }
    }

    /** An uncached source: every scrape that finds no collection running collects anew. */
    private static final class NumberedSource implements MetricsSource {
        final AtomicInteger collections = new AtomicInteger();
        private final int series;

        NumberedSource(int series) {
            this.series = series;
        }

        @Override
        public Optional<Object> stateStamp() {
            return Optional.empty();
        }

        @Override
        public Exposition collect() {
            // Same width for every collection, so each body is as long as the last one.
            long number = 1_000_000 + collections.incrementAndGet();
            GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name("edge_reuse").help("which collection");
            for (int i = 0; i < series; i++) {
                gauge.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .labels(Labels.of("series", String.format("%06d", i))).value(number).build());
            }
            return Exposition.of(MetricSnapshots.of(gauge.build()));
        }

        @Override
        public boolean ready() {
            return true;
        }

        @Override
        public String notReadyReason() {
            return "";
        }
    }

    private void serve(int maxConcurrentScrapes) {
        served = Servers.serve("127.0.0.1:0", new NumberedSource(series),
                EdgeConfig.defaults().withMaxConcurrentScrapes(maxConcurrentScrapes));
    }

    private HttpResponse<byte[]> scrape(String method, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + served.port() + "/metrics"))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** Every series present once, in order, all with one collection's number; returns that number. */
    private long wholeBodyOfOneCollection(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        Matcher line = SERIES_LINE.matcher(text);
        long number = -1;
        int seen = 0;
        while (line.find()) {
            assertEquals(seen, Integer.parseInt(line.group(1)), "series in order, none lost or repeated");
            long value = Long.parseLong(line.group(2));
            if (number < 0) {
                number = value;
            }
            assertEquals(number, value, "series " + seen + " comes from the body's own collection");
            seen++;
        }
        assertEquals(series, seen, "every series, in a body of " + body.length + " bytes");
        assertTrue(text.startsWith("# HELP edge_reuse which collection\n"), text.substring(0, 40));
        return number;
    }

    private static byte[] gunzip(byte[] body) throws IOException {
        return new GZIPInputStream(new ByteArrayInputStream(body)).readAllBytes();
    }

    @Test
    void eachScrapeGetsItsOwnCollectionWhetherPlainGzipOrHeadAndTheLastBodysArraysAreReused() throws Exception {
        serve(4);
        long previous = 0;
        long reusedBefore = 0;
        for (int i = 0; i < 6; i++) {
            HttpResponse<byte[]> plain = scrape("GET");
            assertEquals(200, plain.statusCode());
            assertEquals(String.valueOf(plain.body().length), plain.headers().firstValue("Content-Length").orElseThrow());
            long number = wholeBodyOfOneCollection(plain.body());
            assertTrue(number > previous, "a later collection: " + number + " after " + previous);
            previous = number;
            if (i > 0) {
                assertTrue(served.endpoint().reusedBodyArrays() > reusedBefore,
                        "scrape " + i + " wrote into the arrays of the body before it");
            }
            reusedBefore = served.endpoint().reusedBodyArrays();
        }

        HttpResponse<byte[]> gzipped = scrape("GET", "Accept-Encoding", "gzip");
        assertEquals("gzip", gzipped.headers().firstValue("Content-Encoding").orElseThrow());
        assertEquals(String.valueOf(gzipped.body().length), gzipped.headers().firstValue("Content-Length").orElseThrow());
        assertTrue(wholeBodyOfOneCollection(gunzip(gzipped.body())) > previous);
        // The gzip body is another variant, a tenth as long: once one was sized by the last gzip
        // body's length, the next is written into its arrays.
        assertTrue(wholeBodyOfOneCollection(gunzip(scrape("GET", "Accept-Encoding", "gzip").body())) > previous);
        long reusedAfterSizedGzip = served.endpoint().reusedBodyArrays();
        assertTrue(wholeBodyOfOneCollection(gunzip(scrape("GET", "Accept-Encoding", "gzip").body())) > previous);
        assertTrue(served.endpoint().reusedBodyArrays() > reusedAfterSizedGzip, "gzip bodies reuse arrays too");

        HttpResponse<byte[]> plain = scrape("GET");
        HttpResponse<byte[]> head = scrape("HEAD");
        assertEquals(200, head.statusCode());
        assertEquals(0, head.body().length);
        assertEquals(String.valueOf(plain.body().length), head.headers().firstValue("Content-Length").orElseThrow(),
                "HEAD names the length GET sends");
        long reusedAfterHead = served.endpoint().reusedBodyArrays();
        assertTrue(wholeBodyOfOneCollection(scrape("GET").body()) > wholeBodyOfOneCollection(plain.body()));
        assertTrue(served.endpoint().reusedBodyArrays() > reusedAfterHead, "a HEAD scrape lets its body go");
        assertEquals(0, served.endpoint().inFlight());
    }

    @Test
    void aClientThatDisconnectsMidBodyLetsItsBodyGo() throws Exception {
        // 6 MB: more than the kernel takes into a socket's send buffer (4 MB at most), so the
        // server is still writing when the client goes.
        series = 160_000;
        serve(4);
        wholeBodyOfOneCollection(scrape("GET").body());
        wholeBodyOfOneCollection(scrape("GET").body());
        for (int round = 0; round < 3; round++) {
            try (Socket socket = new Socket()) {
                socket.setReceiveBufferSize(8 * 1024);
                socket.connect(new java.net.InetSocketAddress("127.0.0.1", served.port()));
                socket.setSoLinger(true, 0);
                socket.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertTrue(socket.getInputStream().readNBytes(16 * 1024).length > 0, "the body had begun");
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (served.endpoint().inFlight() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(0, served.endpoint().inFlight(), "the abandoned scrape ended");
            long reusedBefore = served.endpoint().reusedBodyArrays();
            // This scrape's collection replaces the abandoned scrape's; only its arrays are free to take.
            wholeBodyOfOneCollection(scrape("GET").body());
            assertTrue(served.endpoint().reusedBodyArrays() > reusedBefore,
                    "the body of the scrape whose client went away was given back");
        }
    }

    /**
     * Slow readers hold their bodies while fast scrapes collect, render and let bodies go around
     * them: every client, slow or fast, plain or gzip, gets one whole collection.
     */
    @Test
    void concurrentScrapesAndSlowReadersNeverSeeAnotherCollectionsBytes() throws Exception {
        serve(16);
        AtomicLong checked = new AtomicLong();
        long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        List<CompletableFuture<Void>> clients = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            boolean gzip = c % 2 == 1;
            clients.add(CompletableFuture.runAsync(() -> {
                try {
                    while (System.nanoTime() < end) {
                        HttpResponse<byte[]> response = gzip ? scrape("GET", "Accept-Encoding", "gzip") : scrape("GET");
                        assertEquals(200, response.statusCode());
                        wholeBodyOfOneCollection(gzip ? gunzip(response.body()) : response.body());
                        checked.incrementAndGet();
                    }
                } catch (Exception failure) {
                    throw new AssertionError(failure);
                }
            }));
        }
        for (int c = 0; c < 2; c++) {
            clients.add(CompletableFuture.runAsync(() -> {
                try {
                    while (System.nanoTime() < end) {
                        wholeBodyOfOneCollection(slowRead());
                        checked.incrementAndGet();
                    }
                } catch (IOException | InterruptedException failure) {
                    throw new AssertionError(failure);
                }
            }));
        }
        CompletableFuture.allOf(clients.toArray(CompletableFuture[]::new)).get();
        assertTrue(served.endpoint().reusedBodyArrays() > 0, "bodies were reused during the run");
        assertTrue(checked.get() >= 6, "scrapes checked: " + checked.get());
    }

    /** A scrape read 8 KiB at a time with a pause between reads, over HTTP/1.0 so the body ends at the close. */
    private byte[] slowRead() throws IOException, InterruptedException {
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(8 * 1024);
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", served.port()));
            OutputStream out = socket.getOutputStream();
            out.write("GET /metrics HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] piece = new byte[8 * 1024];
            for (int read; (read = in.read(piece)) > 0; ) {
                all.write(piece, 0, read);
                Thread.sleep(2);
            }
            byte[] response = all.toByteArray();
            String head = new String(response, 0, Math.min(response.length, 512), StandardCharsets.US_ASCII);
            assertTrue(head.startsWith("HTTP/1.1 200"), head);
            int bodyStart = head.indexOf("\r\n\r\n") + 4;
            return java.util.Arrays.copyOfRange(response, bodyStart, response.length);
        }
    }
}
