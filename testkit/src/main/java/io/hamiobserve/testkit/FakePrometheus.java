package io.hamiobserve.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Prometheus that misbehaves on purpose, on a raw socket (so it can stall mid-body or send what
 * no HTTP library would): each request gets the answer of the {@link Mode} set now, which a test
 * may change between requests. Every mode a reader of Prometheus must treat as normal input is
 * one constant or factory here: {@link #refusing()} (nothing listens), {@link Mode#SILENT},
 * {@link Mode#STALLED_BODY}, {@link #html}, {@link #status}, {@link #error}, {@link #huge},
 * {@link #redirect} and any JSON answer ({@link #json}).
 */
public final class FakePrometheus implements AutoCloseable {
    /** An empty vector, the answer of a Prometheus that scrapes nothing. */
    public static final String EMPTY_VECTOR = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}";

    /** How one request is answered. */
    @FunctionalInterface
    public interface Mode {
        /** Headers sent, then silence until the connection is closed by the client or the test. */
        Mode STALLED_BODY = (request, out) -> {
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
                    + "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            silence();
        };
        /**
         * The connection is closed as the request arrives, before any byte of an answer: what a
         * client that reuses a kept-alive connection meets when the server closed it just then.
         */
        Mode CLOSED = (request, out) -> {
            throw new IOException("closed without an answer");
        };
        /** The connection is accepted and nothing is ever answered. */
        Mode SILENT = (request, out) -> silence();
        /** A healthy Prometheus that holds nothing: an empty vector, or an empty matrix for a range query. */
        Mode EMPTY = (request, out) -> json(200, request.contains("/api/v1/query_range")
                ? "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}"
                : EMPTY_VECTOR).answer(request, out);

        void answer(String request, OutputStream out) throws IOException;
    }

    private final ServerSocket server;
    private volatile Mode mode;
    private final AtomicInteger requests = new AtomicInteger();
    private final List<String> bodies = new CopyOnWriteArrayList<>();
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    private FakePrometheus(Mode mode) throws IOException {
        this.mode = mode;
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("fake-prometheus").start(this::accept);
    }

    /** A fake Prometheus answering every request with {@code mode}. */
    public static FakePrometheus start(Mode mode) throws IOException {
        return new FakePrometheus(mode);
    }

    /** An address where nothing listens (connections are refused). */
    public static URI refusing() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    public void mode(Mode next) {
        this.mode = next;
    }

    /** Requests received so far. */
    public int requests() {
        return requests.get();
    }

    /** The bodies (form posts) of the requests received so far, and their request lines first. */
    public List<String> received() {
        return List.copyOf(bodies);
    }

    /** {@code body} as JSON with {@code status}. */
    public static Mode json(int status, String body) {
        return plain(status, "application/json", body);
    }

    /** A login page where JSON was expected. */
    public static Mode html(int status) {
        return plain(status, "text/html", "<html><body>Please log in</body></html>");
    }

    /** An HTTP status with a short text body (a proxy's 502, a 404 for a wrong path). */
    public static Mode status(int status) {
        return plain(status, "text/plain", "status " + status + "\n");
    }

    /** Prometheus's own error answer. */
    public static Mode error(int status, String type, String message) {
        return json(status, "{\"status\":\"error\",\"errorType\":\"" + type + "\",\"error\":\"" + message + "\"}");
    }

    /**
     * An engine too busy to run the query: VictoriaMetrics' 503 once a query waited past its
     * {@code -search.maxQueueDuration} (a line of text, not JSON), or a gateway's 429 with
     * {@code Retry-After} seconds (none when empty).
     */
    public static Mode overloaded(int status, String retryAfter) {
        return (request, out) -> {
            byte[] bytes = ("remoteAddr: \"127.0.0.1:41234\"; requestURI: /api/v1/query; cannot handle more than 4 "
                    + "concurrent search requests during 10s; possible solutions: increase -search.maxQueueDuration\n")
                    .getBytes(StandardCharsets.UTF_8);
            out.write(("HTTP/1.1 " + status + " X\r\nContent-Type: text/plain\r\n"
                    + (retryAfter.isEmpty() ? "" : "Retry-After: " + retryAfter + "\r\n")
                    + "Content-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
        };
    }

    /** A redirect to {@code location}. */
    public static Mode redirect(String location) {
        return (request, out) -> {
            out.write(("HTTP/1.1 302 Found\r\nLocation: " + location + "\r\nContent-Length: 0\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
        };
    }

    /**
     * A well-formed vector of {@code bytes} bytes or so, streamed: as many series as it takes, each
     * with a label set like a container's.
     */
    public static Mode huge(long bytes) {
        return (request, out) -> {
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            chunk(out, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[");
            StringBuilder batch = new StringBuilder();
            long sent = 0;
            for (long i = 0; sent < bytes; i++) {
                batch.append(i == 0 ? "" : ",").append("{\"metric\":{\"namespace\":\"team-").append(i % 97)
                        .append("\",\"pod\":\"pod-").append(i).append("\",\"container\":\"main\",\"node\":\"node-")
                        .append(i % 1000).append("\",\"device_uuid\":\"GPU-").append(i).append("\"},\"value\":[1,\"")
                        .append(i).append("\"]}");
                if (batch.length() > 1 << 16) {
                    sent += batch.length();
                    chunk(out, batch.toString());
                    batch.setLength(0);
                }
            }
            chunk(out, batch + "]}}");
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        };
    }

    private static Mode plain(int status, String contentType, String body) {
        return (request, out) -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            out.write(("HTTP/1.1 " + status + " X\r\nContent-Type: " + contentType + "\r\nContent-Length: "
                    + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
        };
    }

    private static void chunk(OutputStream out, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    private static void silence() throws IOException {
        try {
            Thread.sleep(60_000);
        } catch (InterruptedException stopped) {
            Thread.currentThread().interrupt();
            throw new IOException("stopped");
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                open.add(client);
                Thread.ofVirtual().start(() -> serve(client));
            } catch (IOException closed) {
                return;
            }
        }
    }

    /** Answers every request of one connection (HTTP/1.1 keeps it open) until the client leaves. */
    private void serve(Socket client) {
        try (client) {
            InputStream in = client.getInputStream();
            while (true) {
                StringBuilder head = new StringBuilder();
                while (!head.toString().endsWith("\r\n\r\n")) {
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    head.append((char) b);
                }
                int length = head.toString().lines()
                        .filter(line -> line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:"))
                        .map(line -> Integer.parseInt(line.substring(15).trim())).findFirst().orElse(0);
                byte[] body = in.readNBytes(length);
                requests.incrementAndGet();
                String request = head.toString().lines().findFirst().orElse("") + "\n"
                        + new String(body, StandardCharsets.UTF_8);
                bodies.add(request);
                mode.answer(request, client.getOutputStream());
            }
        } catch (IOException | RuntimeException gone) {
            // The client left, or the test is over.
        } finally {
            open.remove(client);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : open) {
            socket.close();
        }
    }
}
