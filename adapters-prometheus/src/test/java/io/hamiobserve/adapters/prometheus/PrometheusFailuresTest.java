package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.ports.SourceUnavailableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Prometheus down, slow, or answering nonsense: each is a clear error, never a hang or a partial answer. */
class PrometheusFailuresTest {
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable each : open) {
            each.close();
        }
    }

    /**
     * A one-answer HTTP server on a raw socket: every request gets {@code status} and {@code body};
     * the request head last seen is kept (to check headers).
     */
    private URI answering(int status, String body, AtomicReference<String> requestHead) throws IOException {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        open.add(server);
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try (Socket client = server.accept()) {
                    java.io.InputStream in = client.getInputStream();
                    StringBuilder head = new StringBuilder();
                    while (!head.toString().endsWith("\r\n\r\n")) {
                        int b = in.read();
                        if (b < 0) {
                            break;
                        }
                        head.append((char) b);
                    }
                    requestHead.set(head.toString());
                    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                    OutputStream out = client.getOutputStream();
                    out.write(("HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\nContent-Length: "
                            + bytes.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(bytes);
                    out.flush();
                } catch (IOException closed) {
                    // The test is over, or the client left.
                }
            }
        });
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    private URI answering(int status, String body) throws IOException {
        return answering(status, body, new AtomicReference<>());
    }

    private static String message(PrometheusFleetHistory history) {
        SourceUnavailableException failure = assertThrows(SourceUnavailableException.class,
                () -> history.readings(Instant.now(), io.hamiobserve.domain.fleet.FleetScope.EVERYTHING));
        return failure.getMessage();
    }

    @Test
    void anUnreachablePrometheusSaysSo() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        String message = message(PrometheusFleetHistory.at(URI.create("http://127.0.0.1:" + port), Duration.ofSeconds(2)));
        assertTrue(message.contains("unreachable"), message);
        assertTrue(message.contains("[query "), message);
    }

    @Test
    void aPrometheusThatDoesNotAnswerTimesOutInsteadOfHanging() throws IOException {
        ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        List<Socket> accepted = new ArrayList<>();
        Thread acceptor = Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    accepted.add(silent.accept());
                }
            } catch (IOException closed) {
                // The test is over.
            }
        });
        open.add(silent);
        open.add(acceptor::interrupt);
        long started = System.nanoTime();
        String message = message(PrometheusFleetHistory.at(URI.create("http://127.0.0.1:" + silent.getLocalPort()),
                Duration.ofMillis(800)));
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        assertTrue(message.contains("did not answer within 0.8 s"), message);
        assertTrue(seconds < 10, "gave up after " + seconds + " s");
    }

    @Test
    void anAnswerThatIsNotPrometheusJsonIsRefusedWithWhatCameBack() throws IOException {
        String message = message(PrometheusFleetHistory.at(answering(200, "<html>login</html>"), Duration.ofSeconds(5)));
        assertTrue(message.contains("not its JSON"), message);
        assertTrue(message.contains("HTTP 200"), message);
    }

    @Test
    void prometheussOwnErrorIsPassedOn() throws IOException {
        URI url = answering(422, "{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"query timed out\"}");
        String message = message(PrometheusFleetHistory.at(url, Duration.ofSeconds(5)));
        assertTrue(message.contains("refused the query (HTTP 422, execution: query timed out)"), message);
        SourceUnavailableException trend = assertThrows(SourceUnavailableException.class,
                () -> PrometheusFleetHistory.at(url, Duration.ofSeconds(5)).trends(new TrendScope.Cluster(),
                        Instant.now(), Duration.ofHours(1), Duration.ofMinutes(1)));
        assertTrue(trend.getMessage().contains("execution: query timed out"), trend.getMessage());
    }

    @Test
    void onlyHttpUrlsWithAHostAreAccepted() {
        assertThrows(IllegalArgumentException.class,
                () -> PrometheusFleetHistory.at(URI.create("file:///etc/passwd"), Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class,
                () -> PrometheusFleetHistory.at(URI.create("prometheus:9090"), Duration.ofSeconds(1)));
    }

    @Test
    void credentialsInTheUrlAreSentAsBasicAuthAndNotShown() throws Exception {
        AtomicReference<String> head = new AtomicReference<>();
        URI url = answering(200, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}", head);
        PrometheusFleetHistory history = PrometheusFleetHistory.at(
                URI.create("http://viewer:s%40cret@127.0.0.1:" + url.getPort()), Duration.ofSeconds(5));
        history.readings(Instant.now(), io.hamiobserve.domain.fleet.FleetScope.EVERYTHING);
        String expected = "Basic " + java.util.Base64.getEncoder().encodeToString(
                "viewer:s@cret".getBytes(StandardCharsets.UTF_8));
        assertTrue(head.get().toLowerCase(java.util.Locale.ROOT).contains("authorization: " + expected.toLowerCase(
                java.util.Locale.ROOT)), head.get());
        assertTrue(!history.description().contains("cret"), history.description());
    }
}
