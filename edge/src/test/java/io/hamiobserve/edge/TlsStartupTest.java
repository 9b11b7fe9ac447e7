package io.hamiobserve.edge;

import io.hamiobserve.edge.testing.SampleSource;
import io.hamiobserve.edge.http.EdgeStartup;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.http.TlsFiles;
import io.hamiobserve.edge.http.WebConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TLS files checked at start-up (a key that is not the certificate's, missing or unusable files, an
 * expired certificate), the certificate's expiry as a series, a renewed certificate served without
 * a restart, and handshakes that never complete.
 */
class TlsStartupTest {
    @TempDir
    static Path dir;
    private static TestCertificates.Identity server;
    private static TestCertificates.Identity other;
    private static TestCertificates.Identity expired;
    private final List<Servers.Served> servers = new ArrayList<>();

    @BeforeAll
    static void identities() throws Exception {
        server = TestCertificates.make(dir, "server", null, 30);
        other = TestCertificates.make(dir, "other", null, 30);
        expired = TestCertificates.make(dir, "expired", "-10d", 2);
    }

    @AfterEach
    void stop() {
        servers.forEach(Servers.Served::stop);
    }

    private static EdgeConfig edge(String webConfig) throws IOException {
        Path file = Files.createTempFile(dir, "web", ".yml");
        Files.writeString(file, webConfig);
        return EdgeConfig.defaults().withWebConfigFile(file);
    }

    private static String tlsConfig(String cert, String key) {
        return "tls_server_config:\n  cert_file: " + cert + "\n  key_file: " + key + "\n";
    }

    private static String failure(EdgeConfig edge) {
        EdgeStartup.Failure failure = assertThrows(EdgeStartup.Failure.class,
                () -> EdgeStartup.check(edge, List.of("127.0.0.1:0")));
        assertTrue(!failure.getMessage().contains("\n"), "one line: " + failure.getMessage());
        return failure.getMessage();
    }

    @Test
    void unusableTlsFilesStopTheStartWithOneLine() throws Exception {
        String mismatch = failure(edge(tlsConfig("server.crt", "other.key")));
        assertTrue(mismatch.contains("the private key in key_file " + dir.resolve("other.key")
                + " does not belong to the certificate in cert_file " + dir.resolve("server.crt")), mismatch);

        assertTrue(failure(edge(tlsConfig("none.crt", "server.key")))
                .equals("cert_file " + dir.resolve("none.crt") + " does not exist"));
        assertTrue(failure(edge(tlsConfig(".", "server.key"))).endsWith(" is not a regular file"));
        assertTrue(failure(edge(tlsConfig("/dev/zero", "server.key"))).endsWith(" is not a regular file"));
        String notACertificate = failure(edge(tlsConfig("server.key", "server.key")));
        assertTrue(notACertificate.startsWith("no usable PEM certificate in cert_file"), notACertificate);
        String notAKey = failure(edge(tlsConfig("server.crt", "server.crt")));
        assertTrue(notAKey.startsWith("no usable PEM private key in key_file"), notAKey);
        String badCa = failure(edge(tlsConfig("server.crt", "server.key")
                + "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: missing-ca.crt\n"));
        assertTrue(badCa.startsWith("client_ca_file ") && badCa.endsWith(" does not exist"), badCa);

        // The same checks guard a server started without the start-up check.
        WebConfig mismatched = WebConfig.read(edge(tlsConfig("server.crt", "other.key")).webConfigFile().orElseThrow());
        assertThrows(IllegalArgumentException.class, () -> Servers.serve("127.0.0.1:0", new SampleSource(),
                EdgeConfig.defaults().withWeb(java.util.Optional.of(mismatched))));
    }

    @Test
    void anExpiredCertificateIsServedWithAWarningAndItsExpiryIsASeries() throws Exception {
        List<String> warnings = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                warnings.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger(EdgeStartup.class.getName());
        log.addHandler(capture);
        EdgeStartup.Checked checked;
        try {
            checked = EdgeStartup.check(edge(tlsConfig("expired.crt", "expired.key")), List.of("127.0.0.1:0"));
        } finally {
            log.removeHandler(capture);
        }
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.getFirst().contains("in cert_file " + dir.resolve("expired.crt") + " expired at "),
                warnings.getFirst());

        servers.addAll(Servers.serveAll(checked, List.of(new SampleSource())));
        assertTrue(servers.getFirst().awaitObserving(Duration.ofSeconds(60)), "/observe is served after the start");
        Exchange metrics = https(servers.getFirst().port(), "GET /observe/metrics HTTP/1.1\r\nHost: x\r\n"
                + "Connection: close\r\n\r\n");
        assertTrue(metrics.text().startsWith("HTTP/1.1 200 "), metrics.text());
        long notAfter = expired.certificate().getNotAfter().toInstant().getEpochSecond();
        assertEquals(notAfter, expirySeries(metrics.text(), dir.resolve("expired.crt")), metrics.text());
    }

    @Test
    void aRenewedCertificateIsServedWithoutARestart() throws Exception {
        Path cert = dir.resolve("rotating.crt");
        Path key = dir.resolve("rotating.key");
        Files.copy(server.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(server.key(), key, StandardCopyOption.REPLACE_EXISTING);
        EdgeStartup.Checked checked = EdgeStartup.check(edge(tlsConfig("rotating.crt", "rotating.key")),
                List.of("127.0.0.1:0"));
        Servers.Served served = Servers.serve("127.0.0.1:0", new SampleSource(), checked.edge());
        servers.add(served);
        WebConfig.Tls settings = checked.edge().web().orElseThrow().tls().orElseThrow();
        try (TlsReload reload = new TlsReload(TlsFiles.read(settings), List.of(served.server()), Duration.ofMillis(100))) {
            assertEquals(server.certificate(), https(served.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n"
                    + "Connection: close\r\n\r\n").presented());

            // A half-written renewal (a key that is not the new certificate's) is not used.
            Files.copy(other.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
            Thread.sleep(500);
            assertEquals(server.certificate(), https(served.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n"
                    + "Connection: close\r\n\r\n").presented(), "the previous certificate is still served");

            Files.copy(other.key(), key, StandardCopyOption.REPLACE_EXISTING);
            X509Certificate presented = null;
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (System.nanoTime() < end && !other.certificate().equals(presented)) {
                Thread.sleep(100);
                presented = https(served.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        .presented();
            }
            assertEquals(other.certificate(), presented, "the renewed certificate is served");
            assertTrue(served.awaitObserving(Duration.ofSeconds(60)), "/observe is served after the start");
            Exchange metrics = https(served.port(), "GET /observe/metrics HTTP/1.1\r\nHost: x\r\n"
                    + "Connection: close\r\n\r\n");
            assertEquals(other.certificate().getNotAfter().toInstant().getEpochSecond(), expirySeries(metrics.text(), cert));
        }
    }

    @Test
    void aHandshakeThatNeverCompletesIsClosedAtTheReadTimeout() throws Exception {
        WebConfig web = WebConfig.read(edge(tlsConfig("server.crt", "server.key")).webConfigFile().orElseThrow());
        Servers.Served served = Servers.serve("127.0.0.1:0", new SampleSource(), EdgeConfig.defaults()
                .withReadTimeout(Duration.ofMillis(700)).withWeb(java.util.Optional.of(web)));
        servers.add(served);
        // Nothing at all, then the first bytes of a ClientHello record and no more.
        for (byte[] sent : new byte[][] {{}, {0x16, 0x03, 0x01, 0x02, 0x00, 0x01}}) {
            try (Socket socket = new Socket("127.0.0.1", served.port())) {
                socket.getOutputStream().write(sent);
                long started = System.nanoTime();
                socket.setSoTimeout(5000);
                try {
                    while (socket.getInputStream().read() >= 0) {
                        // An alert, then the close.
                    }
                } catch (SocketTimeoutException stillOpen) {
                    throw new AssertionError("an unfinished handshake held the connection for 5 s");
                } catch (IOException reset) {
                    // Closed.
                }
                long tookMillis = (System.nanoTime() - started) / 1_000_000;
                assertTrue(tookMillis < 3000, "closed after " + tookMillis + " ms");
            }
        }
        assertEquals(2, served.guard().timedOut());
        assertTrue(https(served.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").text()
                .startsWith("HTTP/1.1 200 "), "a complete handshake is still served");
    }

    /** An answer over TLS, and the certificate the server presented. */
    private record Exchange(String text, X509Certificate presented) {
    }

    /** Sends a request over TLS trusting any certificate (expired ones included) and reads until the close. */
    private static Exchange https(int port, String request) throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.startHandshake();
            X509Certificate presented = (X509Certificate) socket.getSession().getPeerCertificates()[0];
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            try {
                in.transferTo(received);
            } catch (IOException closed) {
                // The close may come as a reset once the answer is read.
            }
            return new Exchange(received.toString(StandardCharsets.UTF_8), presented);
        }
    }

    private static long expirySeries(String metrics, Path certFile) {
        Matcher sample = Pattern.compile("(?m)^hami_observe_tls_certificate_expiry_timestamp_seconds\\{[^}]*cert_file=\""
                + Pattern.quote(certFile.toString()) + "\"[^}]*} ([0-9.E]+)").matcher(metrics);
        assertTrue(sample.find(), "the expiry series of " + certFile + " in:\n" + metrics);
        return (long) Double.parseDouble(sample.group(1));
    }
}
