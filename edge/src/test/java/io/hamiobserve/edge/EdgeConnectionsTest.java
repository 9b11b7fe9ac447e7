package io.hamiobserve.edge;

import io.hamiobserve.edge.testing.SampleSource;
import io.hamiobserve.edge.http.ConnectionGuard;
import io.hamiobserve.edge.http.EdgeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
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
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connections as hostile or old clients hold them, over raw sockets: HTTP/1.0, {@code Connection:
 * close}, sockets that send nothing or stall, pipelining, half-closed sockets, and thousands of idle
 * sockets beside one scrape. Timeouts are configured short so real timing stays bounded.
 */
class EdgeConnectionsTest {
    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.1 \\d{3} [^\r]*");
    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)\r\ncontent-length: (\\d+)\r\n");
    private final List<Servers.Served> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(Servers.Served::stop);
    }

    private Servers.Served serve(EdgeConfig edge) {
        Servers.Served served = Servers.serve("127.0.0.1:0", new SampleSource(), edge);
        servers.add(served);
        return served;
    }

    /** What the server sent until it closed the connection, and how long after the request that took. */
    private record Reply(String text, long closedAfterMillis) {
        List<String> statusLines() {
            return STATUS_LINE.matcher(text).results().map(MatchResult::group).toList();
        }
    }

    /** Sends {@code request}, then reads until the server closes (failing if it is still open after {@code bound}). */
    private static Reply exchange(Servers.Served served, String request, Duration bound) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", served.port())) {
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return readUntilClosed(socket, bound);
        }
    }

    private static Reply readUntilClosed(Socket socket, Duration bound) throws IOException {
        long started = System.nanoTime();
        socket.setSoTimeout((int) bound.toMillis());
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int read; (read = in.read(buffer)) >= 0; ) {
                received.write(buffer, 0, read);
            }
        } catch (SocketTimeoutException stillOpen) {
            throw new AssertionError("the connection was still open after " + bound.toMillis() + " ms; received: "
                    + received.toString(StandardCharsets.ISO_8859_1));
        } catch (IOException reset) {
            // A reset is a close too.
        }
        return new Reply(received.toString(StandardCharsets.ISO_8859_1), (System.nanoTime() - started) / 1_000_000);
    }

    private static EdgeConfig longReadTimeout() {
        // Long enough that a prompt close can only come from the protocol, not from a timeout.
        return EdgeConfig.defaults().withReadTimeout(Duration.ofSeconds(30)).withIdleTimeout(Duration.ofSeconds(30));
    }

    @Test
    void http10RequestsAreAnsweredAndTheConnectionClosed() throws Exception {
        Servers.Served served = serve(longReadTimeout());
        for (String request : List.of(
                "GET /healthz HTTP/1.0\r\n\r\n",
                "GET /healthz HTTP/1.0\r\nHost: example\r\n\r\n",
                "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\nUser-Agent: ApacheBench/2.3\r\n\r\n")) {
            Reply reply = exchange(served, request, Duration.ofSeconds(5));
            assertTrue(reply.text().startsWith("HTTP/1.1 200 OK\r\n"), request + " -> " + reply.text());
            assertTrue(reply.text().contains("\r\nConnection: close\r\n"), reply.text());
            assertTrue(reply.text().endsWith("\r\n\r\nok\n"), reply.text());
            assertTrue(reply.closedAfterMillis() < 3000, "closed after the answer: " + reply.closedAfterMillis() + " ms");
        }

        Reply metrics = exchange(served, "GET /metrics HTTP/1.0\r\n\r\n", Duration.ofSeconds(10));
        assertTrue(metrics.text().startsWith("HTTP/1.1 200 OK\r\n"), metrics.text());
        assertTrue(!metrics.text().toLowerCase().contains("transfer-encoding"), "no chunks for a 1.0 client");
        Matcher length = CONTENT_LENGTH.matcher(metrics.text());
        assertTrue(length.find(), metrics.text());
        String body = metrics.text().substring(metrics.text().indexOf("\r\n\r\n") + 4);
        assertEquals(Integer.parseInt(length.group(1)), body.getBytes(StandardCharsets.ISO_8859_1).length);
        assertTrue(body.contains("hami_gpu_memory_allocated_bytes{"), body);

        Reply head = exchange(served, "HEAD /readyz HTTP/1.0\r\n\r\n", Duration.ofSeconds(5));
        assertTrue(head.text().startsWith("HTTP/1.1 200 OK\r\n") && head.text().endsWith("\r\n\r\n"), head.text());
        // HAProxy's default health check: any 2xx or 3xx counts as up.
        Reply check = exchange(served, "OPTIONS / HTTP/1.0\r\n\r\n", Duration.ofSeconds(5));
        assertTrue(check.text().startsWith("HTTP/1.1 204 "), "HAProxy's check finds the server up: " + check.text());
        assertTrue(check.text().contains("\r\nAllow: GET, HEAD, OPTIONS\r\n"), check.text());
        Reply post = exchange(served, "POST /metrics HTTP/1.0\r\n\r\n", Duration.ofSeconds(5));
        assertTrue(post.text().startsWith("HTTP/1.1 405 "), "the same answer a 1.1 client gets: " + post.text());
    }

    @Test
    void connectionCloseClosesTheSocketAfterTheAnswer() throws Exception {
        Servers.Served served = serve(longReadTimeout());
        assertTrue(served.awaitObserving(Duration.ofSeconds(60)), "/observe is served after the start");
        for (String path : List.of("/healthz", "/metrics", "/nowhere", "/observe/metrics")) {
            Reply reply = exchange(served, "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    Duration.ofSeconds(5));
            assertEquals(1, reply.statusLines().size(), reply.text());
            assertTrue(reply.text().contains("\r\nConnection: close\r\n"), reply.text());
            assertTrue(reply.closedAfterMillis() < 3000, path + " closed after " + reply.closedAfterMillis() + " ms");
        }
        // Tokens are matched case-insensitively within a list, as RFC 9110 says.
        Reply listed = exchange(served, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: TE, Close\r\n\r\n",
                Duration.ofSeconds(5));
        assertTrue(listed.text().startsWith("HTTP/1.1 200 "), listed.text());
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderUntilTheClose() throws Exception {
        Servers.Served served = serve(longReadTimeout());
        Reply reply = exchange(served, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                + "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", Duration.ofSeconds(5));
        assertEquals(List.of("HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found", "HTTP/1.1 200 OK"),
                reply.statusLines(), "a request behind Connection: close is not served (RFC 9112 9.6): " + reply.text());
        assertTrue(reply.text().endsWith("ready\n"), reply.text());
        assertTrue(reply.closedAfterMillis() < 3000, "closed after " + reply.closedAfterMillis() + " ms");
    }

    @Test
    void aRefusedBodyEndsTheConnectionSoItIsNeverReadAsARequest() throws Exception {
        Servers.Served served = serve(longReadTimeout());
        Reply smuggled = exchange(served, "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 34\r\n\r\n"
                + "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n", Duration.ofSeconds(5));
        assertEquals(List.of("HTTP/1.1 413 Request Entity Too Large"), smuggled.statusLines(), smuggled.text());
        assertTrue(smuggled.text().contains("\r\nConnection: close\r\n"), smuggled.text());
        Reply waiting = exchange(served, "GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                + "Content-Length: 5\r\n\r\n", Duration.ofSeconds(5));
        assertEquals(List.of("HTTP/1.1 413 Request Entity Too Large"), waiting.statusLines(), waiting.text());
        assertTrue(waiting.closedAfterMillis() < 3000, "closed after " + waiting.closedAfterMillis() + " ms");
    }

    @Test
    void aHalfClosedSocketStillGetsItsAnswer() throws Exception {
        Servers.Served served = serve(longReadTimeout());
        try (Socket socket = new Socket("127.0.0.1", served.port())) {
            socket.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.shutdownOutput();
            Reply reply = readUntilClosed(socket, Duration.ofSeconds(5));
            assertTrue(reply.text().startsWith("HTTP/1.1 200 OK\r\n") && reply.text().endsWith("ok\n"), reply.text());
        }
        try (Socket socket = new Socket("127.0.0.1", served.port())) {
            socket.getOutputStream().write("GET /heal".getBytes(StandardCharsets.US_ASCII));
            socket.shutdownOutput();
            Reply reply = readUntilClosed(socket, Duration.ofSeconds(5));
            assertTrue(reply.text().isEmpty() || reply.text().startsWith("HTTP/1.1 400 "),
                    "a request cut by the client's close is not served: " + reply.text());
        }
    }

    @Test
    void aConnectionThatSendsNothingIsClosedAtTheReadTimeout() throws Exception {
        Servers.Served served = serve(EdgeConfig.defaults().withReadTimeout(Duration.ofMillis(600)));
        try (Socket socket = new Socket("127.0.0.1", served.port())) {
            Reply reply = readUntilClosed(socket, Duration.ofSeconds(5));
            assertEquals("", reply.text());
            assertTrue(reply.closedAfterMillis() >= 400 && reply.closedAfterMillis() < 3000,
                    "closed after " + reply.closedAfterMillis() + " ms");
        }
        assertEquals(1, served.guard().timedOut());
        assertEquals(200, scrape(served, Duration.ofSeconds(5)).statusCode(), "the endpoint still serves");
        assertTrue(closedSeries(served, "read_timeout") >= 1, "counted at /observe/metrics");
    }

    /** The process's count of connections closed for {@code reason}, as /observe/metrics shows it. */
    private static double closedSeries(Servers.Served served, String reason) throws IOException, InterruptedException {
        assertTrue(served.awaitObserving(Duration.ofSeconds(60)), "/observe is served after the start");
        Reply metrics = exchange(served, "GET /observe/metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                Duration.ofSeconds(5));
        Matcher sample = Pattern.compile("(?m)^hami_observe_http_connections_closed_total\\{reason=\"" + reason
                + "\"[^}]*} ([0-9.E]+)").matcher(metrics.text());
        assertTrue(sample.find(), metrics.text());
        return Double.parseDouble(sample.group(1));
    }

    @Test
    void aStalledRequestLineOrTrickledHeadersAreClosedAtTheReadTimeout() throws Exception {
        Servers.Served served = serve(EdgeConfig.defaults().withReadTimeout(Duration.ofMillis(800)));
        Reply stalled = exchange(served, "GET /metr", Duration.ofSeconds(5));
        assertEquals("", stalled.text());
        assertTrue(stalled.closedAfterMillis() < 3000, "closed after " + stalled.closedAfterMillis() + " ms");

        // Slowloris: a header byte every 100 ms keeps the socket busy but never finishes the head.
        try (Socket socket = new Socket("127.0.0.1", served.port())) {
            socket.setSoTimeout(50);
            OutputStream out = socket.getOutputStream();
            out.write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
            long started = System.nanoTime();
            boolean closed = false;
            while (!closed && System.nanoTime() - started < Duration.ofSeconds(5).toNanos()) {
                try {
                    out.write('X');
                    out.flush();
                    closed = socket.getInputStream().read() < 0;
                } catch (SocketTimeoutException stillOpen) {
                    Thread.sleep(50);
                } catch (IOException reset) {
                    closed = true;
                }
            }
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(closed, "a trickling client was still connected after 5 s");
            assertTrue(tookMillis < 3000, "closed after " + tookMillis + " ms");
        }

        // The timeout of a later request on a kept-alive connection runs from that request's first byte.
        try (Socket socket = new Socket("127.0.0.1", served.port())) {
            socket.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.setSoTimeout(5000);
            byte[] first = new byte[4096];
            assertTrue(new String(first, 0, socket.getInputStream().read(first), StandardCharsets.US_ASCII)
                    .startsWith("HTTP/1.1 200 "));
            Thread.sleep(1000);
            socket.getOutputStream().write("GET /heal".getBytes(StandardCharsets.US_ASCII));
            Reply reply = readUntilClosed(socket, Duration.ofSeconds(5));
            assertEquals("", reply.text(), "an idle keep-alive connection outlives the read timeout; a stalled request does not");
            assertTrue(reply.closedAfterMillis() < 3000, "closed after " + reply.closedAfterMillis() + " ms");
        }
        assertEquals(3, served.guard().timedOut());
        assertEquals(0, served.guard().pending());
    }

    @Test
    void thousandsOfIdleSocketsDoNotKeepAScrapeOut() throws Exception {
        // The defaults: a cap of 2,048 connections and a read timeout of 10 s, neither of which
        // helps a scrape arriving while 2,100 sockets that never send a byte are open.
        Servers.Served served = serve(EdgeConfig.defaults());
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 2100; i++) {
                Socket socket = new Socket();
                socket.connect(new InetSocketAddress("127.0.0.1", served.port()), 10_000);
                idle.add(socket);
            }
            long started = System.nanoTime();
            HttpResponse<String> response = scrape(served, Duration.ofSeconds(5));
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertEquals(200, response.statusCode());
            assertTrue(tookMillis < 3000, "the scrape took " + tookMillis + " ms");

            // Once every socket has been accepted, the longest-waiting ones have made room.
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (served.guard().open() + served.guard().evicted() < 2100 && System.nanoTime() < end) {
                Thread.sleep(20);
            }
            int highWater = ConnectionGuard.highWater(2048);
            assertTrue(served.guard().evicted() >= 2100 - highWater, "evicted: " + served.guard().evicted());
            assertTrue(served.guard().open() <= highWater, "open connections: " + served.guard().open());
            assertEquals(0, served.guard().timedOut(), "all within the read timeout");
            assertTrue(closedSeries(served, "evicted") >= 2100 - highWater);
        } finally {
            for (Socket socket : idle) {
                socket.close();
            }
        }
    }

    private static HttpResponse<String> scrape(Servers.Served served, Duration timeout)
            throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + served.port() + "/metrics"))
                .timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
    }
}
