import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * Starts an exporter process, times launch to its first answered scrape, and stops it with SIGTERM.
 * Run with a JDK's source launcher (no build needed; the image build's first stage has only a JDK):
 *
 * <pre>
 *   java images/StartupProbe.java [--runs N] [--ready REGEX] [--train N] [--port N] [--dir DIR]
 *                                 [--scrape-after-ready MS]
 *                                 [--label TEXT] [--timeout SECONDS] [--exit-limit SECONDS]
 *                                 -- COMMAND [ARGS...]
 * </pre>
 *
 * The port is read from what the process prints ({@code ... view on :PORT/metrics}, or the demo's
 * {@code curl http://localhost:PORT/metrics} lines); {@code --port} overrides it (a container's
 * published port). Scrapes are asked as Prometheus asks (OpenMetrics, gzip), every 5 ms from launch;
 * one counts as answered when {@code /metrics} returns 200 and, with
 * {@code --ready}, its body matches the expression: the scheduler's first answer holds the ledger only
 * once {@code hami_observe_ledger_synced 1}. {@code --train N} then makes N rounds of the requests a
 * deployed exporter gets (Prometheus's gzip OpenMetrics and text scrapes, kubelet's probes, the JVM
 * figures) on every printed port: the workload of the AOT cache's training run.
 * {@code --scrape-after-ready MS} first asks {@code /readyz} as kubelet does until it answers 200, waits MS
 * and times the first {@code /metrics} scrape, as Prometheus's first scrape after a start would find
 * the exporter (the timed scrapes from launch follow). Prints one line:
 * the best and median of the runs, the series count, and the slowest exit after SIGTERM; exits 1
 * when a run gets no answer, or the process is still running {@code --exit-limit} (10) seconds after
 * SIGTERM. A training run's exit also writes what it recorded, which takes longer on a busy machine.
 */
public final class StartupProbe {
    private static final Pattern PORT = Pattern.compile("view on :(\\d+)/metrics|curl http://localhost:(\\d+)/metrics");
    private static final Duration POLL = Duration.ofMillis(5);
    private static final String PROMETHEUS_ACCEPT = "application/openmetrics-text;version=1.0.0,"
            + "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private int runs = 3;
    private Pattern ready;
    private int train;
    private Duration scrapeAfterReady;
    private int fixedPort;
    private Path dir;
    private String label = "";
    private Duration timeout = Duration.ofSeconds(60);
    private Duration exitLimit = Duration.ofSeconds(10);
    private List<String> command = List.of();

    public static void main(String[] args) throws Exception {
        StartupProbe probe = new StartupProbe();
        try {
            probe.parse(args);
        } catch (IllegalArgumentException bad) {
            System.err.println("StartupProbe: " + bad.getMessage());
            System.exit(2);
        }
        System.exit(probe.run());
    }

    private void parse(String[] args) {
        int i = 0;
        for (; i < args.length && !args[i].equals("--"); i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(value);
                case "--ready" -> ready = Pattern.compile(value, Pattern.MULTILINE);
                case "--train" -> train = Integer.parseInt(value);
                case "--scrape-after-ready" -> scrapeAfterReady = Duration.ofMillis(Long.parseLong(value));
                case "--port" -> fixedPort = Integer.parseInt(value);
                case "--dir" -> dir = Path.of(value);
                case "--label" -> label = value;
                case "--timeout" -> timeout = Duration.ofSeconds(Long.parseLong(value));
                case "--exit-limit" -> exitLimit = Duration.ofSeconds(Long.parseLong(value));
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
            i++;
        }
        if (i >= args.length - 1) {
            throw new IllegalArgumentException("no command after --");
        }
        command = List.of(Arrays.copyOfRange(args, i + 1, args.length));
    }

    private int run() throws Exception {
        warmUp();
        long[] answered = new long[runs];
        long[] readyAt = new long[runs];
        long[] readyScrape = new long[runs];
        long[] probeReady = new long[runs];
        long[] laterScrape = new long[runs];
        long slowestExit = 0;
        int series = 0;
        for (int r = 0; r < runs; r++) {
            Start start = startOnce();
            if (start.failure != null) {
                System.err.printf("StartupProbe: %s: %s; its output:%n%s%n", label, start.failure, start.output());
                return 1;
            }
            answered[r] = start.firstAnswerMs;
            readyAt[r] = start.readyMs;
            readyScrape[r] = start.readyScrapeMs;
            probeReady[r] = start.probeReadyMs;
            laterScrape[r] = start.laterScrapeMs;
            series = start.series;
            slowestExit = Math.max(slowestExit, start.exitMs);
        }
        Arrays.sort(answered);
        Arrays.sort(readyAt);
        Arrays.sort(readyScrape);
        Arrays.sort(probeReady);
        Arrays.sort(laterScrape);
        String laterPart = scrapeAfterReady == null ? ""
                : String.format("; /readyz 200 after %d ms best, %d ms median, and the first /metrics %d ms later "
                        + "took %d ms best, %d ms median", probeReady[0], probeReady[(runs - 1) / 2],
                        scrapeAfterReady.toMillis(), laterScrape[0], laterScrape[(runs - 1) / 2]);
        String readyPart = ready == null ? ""
                : String.format("; matching %s after %d ms best, %d ms median (that scrape took %d ms best, %d ms "
                        + "median)", ready.pattern(), readyAt[0], readyAt[(runs - 1) / 2], readyScrape[0],
                        readyScrape[(runs - 1) / 2]);
        System.out.printf("  %-44s first /metrics after %4d ms best, %4d ms median of %d (%d series)%s; "
                + "exit after SIGTERM within %d ms%n", label, answered[0], answered[(runs - 1) / 2], runs, series,
                readyPart + laterPart, slowestExit);
        return 0;
    }

    /** The client's own first request loads its classes; done before any process is timed. */
    private void warmUp() {
        try {
            http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:9/")).timeout(Duration.ofMillis(200)).build(),
                    HttpResponse.BodyHandlers.discarding());
        } catch (IOException | InterruptedException expected) {
            // Nothing listens on the discard port: only the client's warm-up mattered.
        }
    }

    private final class Start {
        final List<String> lines = new CopyOnWriteArrayList<>();
        final List<Integer> ports = new CopyOnWriteArrayList<>();
        long firstAnswerMs = -1;
        long readyMs = -1;
        long readyScrapeMs;
        long probeReadyMs = -1;
        long laterScrapeMs;
        long exitMs;
        int series;
        String failure;

        String output() {
            return String.join("\n", lines);
        }
    }

    private Start startOnce() throws Exception {
        Start start = new Start();
        ProcessBuilder builder = new ProcessBuilder(command);
        if (dir != null) {
            builder.directory(dir.toFile());
        }
        long launched = System.nanoTime();
        Process process = builder.start();
        // Separate readers: a log line on stderr may land in the middle of the port line on stdout.
        Thread reader = Thread.ofPlatform().daemon().start(() -> readOutput(process.getInputStream(), start, true));
        Thread errors = Thread.ofPlatform().daemon().start(() -> readOutput(process.getErrorStream(), start, false));
        long deadline = launched + timeout.toNanos();
        try {
            if (scrapeAfterReady != null && !awaitReadyThenScrape(process, start, launched, deadline)) {
                return start;
            }
            while (start.readyMs < 0) {
                if (System.nanoTime() > deadline) {
                    start.failure = "no answered /metrics within " + timeout.toSeconds() + " s";
                    return start;
                }
                if (!process.isAlive()) {
                    reader.join(1000);
                    errors.join(1000);
                    start.failure = "the process exited with " + process.exitValue() + " before answering";
                    return start;
                }
                int port = fixedPort > 0 ? fixedPort : start.ports.isEmpty() ? 0 : start.ports.getFirst();
                long asked = System.nanoTime();
                String body = port == 0 ? null : scrape(port);
                long now = System.nanoTime();
                if (body != null) {
                    if (start.firstAnswerMs < 0) {
                        start.firstAnswerMs = (now - launched) / 1_000_000;
                    }
                    if (ready == null || ready.matcher(body).find()) {
                        start.readyMs = (now - launched) / 1_000_000;
                        start.readyScrapeMs = (now - asked) / 1_000_000;
                        start.series = (int) body.lines().filter(line -> !line.isEmpty() && !line.startsWith("#")).count();
                        break;
                    }
                }
                Thread.sleep(POLL);
            }
            for (int round = 0; round < train; round++) {
                for (int port : fixedPort > 0 ? List.of(fixedPort) : start.ports) {
                    exercise(port);
                }
            }
        } finally {
            long stopping = System.nanoTime();
            process.destroy(); // SIGTERM
            if (!process.waitFor(exitLimit.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor();
                if (start.failure == null) {
                    start.failure = "still running " + exitLimit.toSeconds() + " s after SIGTERM";
                }
            }
            start.exitMs = (System.nanoTime() - stopping) / 1_000_000;
            reader.join(1000);
            errors.join(1000);
        }
        return start;
    }

    /**
     * Kubelet's way, then Prometheus's: asks {@code /readyz} every 5 ms until it answers 200, waits
     * {@code --scrape-after-ready}, and times the first {@code /metrics} scrape. False (with the
     * failure set) when the process ends or the timeout passes first.
     */
    private boolean awaitReadyThenScrape(Process process, Start start, long launched, long deadline)
            throws InterruptedException {
        while (true) {
            if (System.nanoTime() > deadline) {
                start.failure = "/readyz did not answer 200 within " + timeout.toSeconds() + " s";
                return false;
            }
            if (!process.isAlive()) {
                start.failure = "the process exited with " + process.exitValue() + " before it was ready";
                return false;
            }
            int port = fixedPort > 0 ? fixedPort : start.ports.isEmpty() ? 0 : start.ports.getFirst();
            if (port != 0 && readyz(port)) {
                start.probeReadyMs = (System.nanoTime() - launched) / 1_000_000;
                break;
            }
            Thread.sleep(POLL);
        }
        Thread.sleep(scrapeAfterReady);
        int port = fixedPort > 0 ? fixedPort : start.ports.getFirst();
        long asked = System.nanoTime();
        if (scrape(port) == null) {
            start.failure = "the first /metrics after /readyz was not answered with 200";
            return false;
        }
        start.laterScrapeMs = (System.nanoTime() - asked) / 1_000_000;
        return true;
    }

    private boolean readyz(int port) throws InterruptedException {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException notYet) {
            return false;
        }
    }

    private static void readOutput(java.io.InputStream stream, Start start, boolean ports) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                start.lines.add(line);
                Matcher port = PORT.matcher(line);
                if (ports && port.find()) {
                    start.ports.add(Integer.parseInt(port.group(1) != null ? port.group(1) : port.group(2)));
                }
            }
        } catch (IOException closed) {
            // The process ended.
        }
    }

    /**
     * The body of a 200 answer to /metrics, asked the way Prometheus asks (OpenMetrics first, gzip),
     * or null while nothing (or not yet 200) answers.
     */
    private String scrape(int port) throws InterruptedException {
        try {
            HttpResponse<byte[]> response = http.send(prometheusScrape(port).timeout(timeout).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (response.statusCode() != 200) {
                return null;
            }
            byte[] body = response.body();
            if (response.headers().firstValue("Content-Encoding").orElse("").equals("gzip")) {
                try (GZIPInputStream unzipped = new GZIPInputStream(new ByteArrayInputStream(body))) {
                    body = unzipped.readAllBytes();
                }
            }
            return new String(body, StandardCharsets.UTF_8);
        } catch (ConnectException notYet) {
            return null;
        } catch (IOException failed) {
            return null;
        }
    }

    private static HttpRequest.Builder prometheusScrape(int port) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .header("Accept", PROMETHEUS_ACCEPT).header("Accept-Encoding", "gzip");
    }

    /** One round of what a deployed exporter is asked: scrapes in both formats, probes, JVM figures. */
    private void exercise(int port) throws InterruptedException {
        String base = "http://127.0.0.1:" + port;
        List<HttpRequest> requests = new ArrayList<>();
        requests.add(prometheusScrape(port).build());
        requests.add(HttpRequest.newBuilder(URI.create(base + "/metrics")).build());
        for (String path : List.of("/healthz", "/readyz", "/observe/metrics")) {
            requests.add(HttpRequest.newBuilder(URI.create(base + path)).build());
        }
        for (HttpRequest request : requests) {
            try {
                http.send(request, HttpResponse.BodyHandlers.discarding());
            } catch (IOException failed) {
                // A training request that fails only trains less; the timed answer was checked above.
            }
        }
    }
}
