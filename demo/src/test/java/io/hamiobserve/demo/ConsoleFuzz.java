package io.hamiobserve.demo;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;
import io.hamiobserve.adapters.prometheus.PrometheusFleetHistory;
import io.hamiobserve.edge.Servers;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.console.Console;
import io.hamiobserve.console.ConsoleSettings;
import io.hamiobserve.role.console.ConsoleRole;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Random requests against the demo's console, with its Prometheus healthy (the demo's week of
 * history in a real Prometheus, read by the real console behind the real edge): paths, parameters
 * and bytes a visitor could send — PromQL, HTML and script carrying a marker, CSV formulas, bytes
 * that are not UTF-8, control characters, long and repeated values, HEAD as well as GET. Counts
 * every answer by status and fails on any 5xx, any reflection of the marker unescaped, and any
 * request not answered within {@link #HANG} (a hang).
 *
 * <p>{@code bin/fuzz console --count 100000} runs it long (docs/console.md has the figures);
 * {@code ConsoleFuzzTest} runs a fixed-seed thousand in the suite.
 */
public final class ConsoleFuzz {
    static final long DEFAULT_SEED = 20_261_204L;
    /** An answer slower than this is a hang. */
    static final Duration HANG = Duration.ofSeconds(30);
    private static final int CLIENTS = 8;
    private static final String MARKER = "<x-fuzz";

    private static final List<String> PATHS = List.of("/", "/nodes", "/node", "/cards", "/card", "/workloads",
            "/workload", "/namespaces", "/rightsizing", "/capacity", "/assets/console.css", "/assets/console.js",
            "/assets/../../etc/passwd", "/assets/%2e%2e%2fx", "/nope", "//", "/node/", "/%FF", "/card%00");
    private static final List<String> NAMES = List.of("name", "uuid", "namespace", "pod", "container", "window",
            "range", "export", "nodes.q", "cards.q", "cards.sort", "cards.dir", "cards.page", "workloads.q",
            "workloads.sort", "workloads.dir", "workloads.page", "workloads.size", "memory", "cores", "cards", "x");
    /** Raw (already encoded) pieces: what no well-behaved client sends, too. */
    private static final List<String> RAW = List.of("%FF", "%C0%AF", "%ED%A0%BD", "%EF%BF%BD", "%00", "%1B%5B2J",
            "%0D%0ASet-Cookie:x", "%", "%%", "%G0", "+", "&&", "=", ";");
    private static final List<String> TEXT = List.of("\"}", "\"} or vector(1) #", "\\", "{job=~\".+\"}", "[5m]",
            MARKER + ">", "\"><" + MARKER.substring(1) + " onload=1>", "</script>" + MARKER + ">", "=1+1",
            "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "ｎｏｄｅ", "e\u0301", "\u212A", "\u202E", "🙂", "节点",
            "gpu-node-a", "gpu-node-b", "ml-team", "llm-inference-7d9f8c6b5-x2k4q", "server", "24h", "7d", "14d", "30d", "3d",
            "1w", "2", "-1", "0", "99999999999999999999", "workloads.csv", "cards.json", "nodes.csv", "=x.csv",
            "memory_total", "asc", "desc", " ");

    private ConsoleFuzz() {
    }

    /** What a run found. */
    record Outcome(long requests, Map<Integer, Long> byStatus, long serverErrors, long reflections, long hangs,
                   double seconds, long slowestMillis) {
        String summary(long seed) {
            return String.format("console: %,d requests, seed %d, %.1f s (%,.0f/s), by status %s, slowest %,d ms; "
                            + "%d answered 5xx, %d reflected the marker unescaped, %d hung (no answer within %d s)",
                    requests, seed, seconds, requests / seconds, byStatus, slowestMillis, serverErrors, reflections,
                    hangs, HANG.toSeconds());
        }
    }

    /** Starts the demo's Prometheus and console, sends {@code count} random requests, stops both. */
    static Outcome run(long seed, long count) throws Exception {
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
                ConsoleRole role = new ConsoleRole(BuildInfo.current());
                Console console = Console.create(role.observe(PrometheusFleetHistory.at(prometheus.url(),
                        Duration.ofSeconds(10))), ConsoleSettings.defaults(), Clock.systemUTC());
                role.readyWhen(console::ready, console::notReadyReason);
                Servers.Served server = Servers.serve("127.0.0.1:0", role, EdgeConfig.defaults(), console::routing);
                try {
                    console.warmUp();
                    return requests("http://127.0.0.1:" + server.port(), seed, count);
                } finally {
                    server.stop();
                }
            }
        } finally {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }

    private static String piece(Random random) {
        if (random.nextInt(6) == 0) {
            return RAW.get(random.nextInt(RAW.size()));
        }
        String text = TEXT.get(random.nextInt(TEXT.size()));
        if (random.nextInt(200) == 0) {
            text += "a".repeat(random.nextInt(3000));
        }
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    /** A random request target: a path, then zero to five parameters. */
    static String target(Random random) {
        StringBuilder target = new StringBuilder(PATHS.get(random.nextInt(PATHS.size())));
        int parameters = random.nextInt(6);
        for (int i = 0; i < parameters; i++) {
            target.append(i == 0 ? '?' : '&').append(random.nextInt(10) == 0 ? piece(random)
                    : NAMES.get(random.nextInt(NAMES.size()))).append('=');
            // Narrowed pages with a name nothing has cost Prometheus a read each: most values are known ones.
            int pieces = random.nextInt(4) == 0 ? 1 + random.nextInt(3) : 1;
            for (int p = 0; p < pieces; p++) {
                target.append(piece(random));
            }
        }
        return target.toString();
    }

    private static Outcome requests(String base, long seed, long count) throws InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        Map<Integer, LongAdder> byStatus = new ConcurrentHashMap<>();
        LongAdder serverErrors = new LongAdder();
        LongAdder reflections = new LongAdder();
        LongAdder hangs = new LongAdder();
        AtomicLong slowest = new AtomicLong();
        AtomicLong next = new AtomicLong();
        List<String> firstProblems = java.util.Collections.synchronizedList(new ArrayList<>());
        long started = System.nanoTime();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            clients.add(Thread.ofVirtual().start(() -> {
                long i;
                while ((i = next.getAndIncrement()) < count) {
                    Random random = new Random(seed * 1_000_003L + i);
                    String target = target(random);
                    boolean head = random.nextInt(10) == 0;
                    long begun = System.nanoTime();
                    try {
                        HttpRequest request = HttpRequest.newBuilder(URI.create(base + target)).timeout(HANG)
                                .method(head ? "HEAD" : "GET", HttpRequest.BodyPublishers.noBody()).build();
                        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                        int status = response.statusCode();
                        byStatus.computeIfAbsent(status, key -> new LongAdder()).increment();
                        if (status >= 500) {
                            serverErrors.increment();
                            note(firstProblems, status + " " + target + ": " + response.body());
                        }
                        if (response.body().contains(MARKER)) {
                            reflections.increment();
                            note(firstProblems, "reflected " + target);
                        }
                    } catch (HttpTimeoutException hung) {
                        hangs.increment();
                        note(firstProblems, "hung " + target);
                    } catch (IllegalArgumentException notAUri) {
                        // A target java.net.URI refuses ("%", "%G0"): sent as it is on a socket of its own.
                        int status = raw(base, target, head);
                        byStatus.computeIfAbsent(status, key -> new LongAdder()).increment();
                        if (status >= 500 || status < 0) {
                            (status < 0 ? hangs : serverErrors).increment();
                            note(firstProblems, status + " (raw) " + target);
                        }
                    } catch (java.io.IOException | InterruptedException broken) {
                        hangs.increment();
                        note(firstProblems, "no answer " + target + ": " + broken);
                    }
                    slowest.accumulateAndGet((System.nanoTime() - begun) / 1_000_000, Math::max);
                }
            }));
        }
        for (Thread each : clients) {
            each.join();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        Map<Integer, Long> statuses = new TreeMap<>();
        byStatus.forEach((status, n) -> statuses.put(status, n.sum()));
        firstProblems.forEach(System.out::println);
        return new Outcome(count, statuses, serverErrors.sum(), reflections.sum(), hangs.sum(), seconds,
                slowest.get());
    }

    /** The status of {@code target} sent byte for byte; -1 when no status line came within {@link #HANG}. */
    private static int raw(String base, String target, boolean head) {
        URI server = URI.create(base);
        try (java.net.Socket socket = new java.net.Socket(server.getHost(), server.getPort())) {
            socket.setSoTimeout((int) HANG.toMillis());
            socket.getOutputStream().write(((head ? "HEAD " : "GET ") + target + " HTTP/1.1\r\nHost: "
                    + server.getAuthority() + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    StandardCharsets.ISO_8859_1)).readLine();
            return line == null || line.length() < 12 ? 0 : Integer.parseInt(line.substring(9, 12));
        } catch (java.io.IOException | NumberFormatException broken) {
            return -1;
        }
    }

    private static void note(List<String> problems, String problem) {
        if (problems.size() < 20) {
            problems.add(problem.length() > 300 ? problem.substring(0, 300) + " ..." : problem);
        }
    }

    public static void main(String[] args) throws Exception {
        long count = Long.getLong("fuzz.count", 100_000L);
        long seed = Long.getLong("fuzz.seed", DEFAULT_SEED);
        Outcome outcome = run(seed, count);
        System.out.println(outcome.summary(seed));
        if (outcome.serverErrors() + outcome.reflections() + outcome.hangs() > 0) {
            System.exit(1);
        }
    }
}
