package io.hamiobserve.edge.http;

import io.hamiobserve.edge.Servers;
import io.hamiobserve.edge.testing.SampleSource;
import io.hamiobserve.edge.http.EdgeStartup;
import io.hamiobserve.edge.http.EdgeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The start-up checks of the edge: each mistake is one line and no server is left running; the
 * minimum limits still serve a Prometheus scrape.
 */
class EdgeStartupTest {
    @TempDir
    Path dir;
    private final List<Servers.Served> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(Servers.Served::stop);
    }

    private static String failure(EdgeConfig edge, String... binds) {
        EdgeStartup.Failure failure = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThrows(
                EdgeStartup.Failure.class, () -> EdgeStartup.check(edge, List.of(binds))));
        assertTrue(!failure.getMessage().isBlank() && !failure.getMessage().contains("\n"), failure.getMessage());
        return failure.getMessage();
    }

    @Test
    void flagValuesThatWouldMakeTheEndpointUselessAreRefused() {
        EdgeConfig defaults = EdgeConfig.defaults();
        assertEquals("--web.max-header-bytes 10 is below 1024, the least that serves a Prometheus scrape request "
                + "with basic auth", failure(defaults.withHeaderLimits(10, 64), "127.0.0.1:0"));
        assertTrue(failure(defaults.withHeaderLimits(8192, 3), "127.0.0.1:0").startsWith("--web.max-headers 3 is below "));
        assertTrue(failure(defaults.withHeaderLimits(1 << 30, 64), "127.0.0.1:0").startsWith("--web.max-header-bytes "
                + (1 << 30) + " is above "));
        assertTrue(failure(defaults.withMaxConnections(2), "127.0.0.1:0").startsWith("--web.max-connections 2 is below 8"));
        assertTrue(failure(defaults.withMaxConcurrentScrapes(5000), "127.0.0.1:0")
                .startsWith("--web.max-requests 5000 is above 2048"));
        assertTrue(failure(defaults.withReadTimeout(Duration.ofMillis(10)), "127.0.0.1:0")
                .startsWith("--web.read-timeout 10ms is below 1000ms"));
        assertTrue(failure(defaults.withReadTimeout(Duration.ofDays(365_000)), "127.0.0.1:0")
                .startsWith("--web.read-timeout "), "a duration too large for nanoseconds is refused, not overflowed");
        assertTrue(failure(defaults.withIdleTimeout(Duration.ofMillis(1)), "127.0.0.1:0").startsWith("--web.idle-timeout"));
        assertTrue(failure(defaults.withScrapeTimeout(Duration.ofMillis(5)), "127.0.0.1:0")
                .startsWith("--web.scrape-timeout"));
        assertTrue(failure(defaults.withShutdownDrain(Duration.ofHours(2)), "127.0.0.1:0")
                .startsWith("--web.shutdown-timeout"));
        EdgeStartup.check(defaults, List.of("127.0.0.1:0"));
    }

    @Test
    void theLeastLimitsStillServeAPrometheusScrapeAndAProbe() throws Exception {
        EdgeConfig least = EdgeConfig.defaults().withHeaderLimits(EdgeStartup.MIN_HEADER_BYTES,
                EdgeStartup.MIN_HEADER_COUNT);
        EdgeStartup.Checked checked = EdgeStartup.check(least, List.of("127.0.0.1:0"));
        servers.addAll(Servers.serveAll(checked, List.of(new SampleSource())));
        int port = servers.getFirst().port();
        assertTrue(exchange(port, EdgeStartup.REFERENCE_SCRAPE).startsWith("HTTP/1.1 200 "));
        String proxied = EdgeStartup.REFERENCE_SCRAPE.replace("\r\n\r\n", "\r\n" + "X-Forwarded-For: 10.0.0.1\r\n"
                .repeat(EdgeStartup.MIN_HEADER_COUNT - 7) + "\r\n");
        assertTrue(exchange(port, proxied).startsWith("HTTP/1.1 200 "), "a proxy's headers fit too");
        assertTrue(exchange(port, "GET /readyz HTTP/1.1\r\nHost: 10.1.2.3:9395\r\nUser-Agent: kube-probe/1.33\r\n"
                + "Accept: */*\r\nConnection: close\r\n\r\n").startsWith("HTTP/1.1 200 "));
    }

    @Test
    void aPortInUseOrAnAddressThatIsNotOursStopsTheStart() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String bind = "127.0.0.1:" + taken.getLocalPort();
            assertEquals("cannot listen on " + bind + ": Address already in use",
                    failure(EdgeConfig.defaults(), "127.0.0.1:0", bind));
        }
        assertEquals("cannot listen on no-such-host.invalid:9395: the host no-such-host.invalid does not resolve",
                failure(EdgeConfig.defaults(), "no-such-host.invalid:9395"));
        assertTrue(failure(EdgeConfig.defaults(), "192.0.2.1:0").startsWith("cannot listen on 192.0.2.1:0: "),
                "an address of no local interface (TEST-NET-1)");
        assertEquals("bind address 9395 has no :PORT", failure(EdgeConfig.defaults(), "9395"));
        try (ServerSocket free = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = free.getLocalPort();
            free.close();
            assertEquals("cannot listen on 127.0.0.1:" + port + " twice: give each endpoint its own address",
                    failure(EdgeConfig.defaults(), "127.0.0.1:" + port, "127.0.0.1:" + port));
        }
    }

    @Test
    void whenOneEndpointCannotListenNoneIsLeftRunning() throws Exception {
        EdgeStartup.Checked checked = EdgeStartup.check(EdgeConfig.defaults(), List.of("127.0.0.1:0", "127.0.0.1:0"));
        int first;
        try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            first = probe.getLocalPort();
        }
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            // Taken after the check, as by a process that starts in between: the server itself must notice.
            EdgeStartup.Checked raced = new EdgeStartup.Checked(checked.edge(),
                    List.of("127.0.0.1:" + first, "127.0.0.1:" + taken.getLocalPort()));
            EdgeStartup.Failure failure = assertThrows(EdgeStartup.Failure.class, () -> Servers.serveAll(raced,
                    List.of(new SampleSource(), new SampleSource())));
            assertEquals("cannot listen on 127.0.0.1:" + taken.getLocalPort(), failure.getMessage());
        }
        // The first server listened, then was stopped again: its port is free once more.
        try (ServerSocket again = new ServerSocket()) {
            again.setReuseAddress(true);
            again.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), first));
            assertEquals(first, again.getLocalPort(), "the first server was stopped again");
        }
    }

    @Test
    void unreadableWebConfigsStopTheStartWithoutReadingThem() throws Exception {
        assertEquals("web config " + dir.resolve("none.yml") + " does not exist",
                failure(EdgeConfig.defaults().withWebConfigFile(dir.resolve("none.yml")), "127.0.0.1:0"));
        assertEquals("web config " + dir + " is not a regular file",
                failure(EdgeConfig.defaults().withWebConfigFile(dir), "127.0.0.1:0"));
        assertEquals("web config /dev/zero is not a regular file",
                failure(EdgeConfig.defaults().withWebConfigFile(Path.of("/dev/zero")), "127.0.0.1:0"));
        Path fifo = dir.resolve("never-ends.yml");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0);
        assertEquals("web config " + fifo + " is not a regular file", failure(EdgeConfig.defaults()
                .withWebConfigFile(fifo), "127.0.0.1:0"), "a FIFO no one writes would block the open");
        Path growing = dir.resolve("growing.yml");
        Files.writeString(growing, "basic_auth_users:\n" + "  # padding\n".repeat(10_000));
        assertTrue(failure(EdgeConfig.defaults().withWebConfigFile(growing), "127.0.0.1:0")
                .endsWith(" is larger than 65536 bytes"));
        Path unknown = dir.resolve("unknown.yml");
        Files.writeString(unknown, "tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n");
        assertTrue(failure(EdgeConfig.defaults().withWebConfigFile(unknown), "127.0.0.1:0")
                .contains("unsupported tls_server_config key min_version"));
    }

    private static String exchange(int port, String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] head = socket.getInputStream().readNBytes(32);
            return new String(head, StandardCharsets.US_ASCII);
        }
    }
}
