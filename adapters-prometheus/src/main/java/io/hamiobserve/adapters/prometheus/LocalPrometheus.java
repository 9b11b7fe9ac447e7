package io.hamiobserve.adapters.prometheus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Prometheus server run by this process, for the demo and the tests: a fresh data directory,
 * optionally filled with history first ({@code promtool tsdb create-blocks-from openmetrics}), a
 * free loopback port, a scrape configuration for the given targets. {@link #close()} stops it and
 * removes the directory.
 */
public final class LocalPrometheus implements AutoCloseable {
    private final Process process;
    private final Path directory;
    private final URI url;

    /**
     * A scrape job.
     *
     * @param targets {@code host:port} → extra target labels (e.g. {@code node} for a node's endpoint)
     */
    public record Job(String name, Map<String, Map<String, String>> targets) {
    }

    private LocalPrometheus(Process process, Path directory, URI url) {
        this.process = process;
        this.directory = directory;
        this.url = url;
    }

    /** The {@code prometheus} and {@code promtool} binaries on the PATH, when both are there. */
    public static Optional<Path> binary() {
        Optional<Path> prometheus = onPath("prometheus");
        return prometheus.isPresent() && onPath("promtool").isPresent() ? prometheus : Optional.empty();
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        return Stream.of(path.split(java.io.File.pathSeparator)).map(dir -> Path.of(dir, name))
                .filter(Files::isExecutable).findFirst();
    }

    /**
     * Starts Prometheus scraping {@code jobs} every {@code interval}, with the samples of
     * {@code history} (OpenMetrics files with timestamps, each loaded by its own promtool run, in
     * parallel) already in its storage.
     * Returns once Prometheus answers {@code /-/ready}.
     *
     * @throws IOException when a binary is missing, the history cannot be loaded, or Prometheus
     *                     does not become ready within {@code startTimeout} (its log is in the message)
     */
    public static LocalPrometheus start(List<Job> jobs, Duration interval, List<Path> history,
                                        Duration startTimeout) throws IOException {
        Path prometheus = binary().orElseThrow(() -> new IOException(
                "prometheus and promtool are not on the PATH (Debian package: prometheus)"));
        Path promtool = prometheus.resolveSibling("promtool");
        Path directory = Files.createTempDirectory("hami-observe-prometheus");
        try {
            Path data = Files.createDirectory(directory.resolve("data"));
            backfill(promtool, history, data, directory);
            Path config = directory.resolve("prometheus.yml");
            Files.writeString(config, config(jobs, interval));
            int port = freePort();
            Path log = directory.resolve("prometheus.log");
            Process process = new ProcessBuilder(prometheus.toString(), "--config.file=" + config,
                    "--storage.tsdb.path=" + data, "--web.listen-address=127.0.0.1:" + port,
                    "--storage.tsdb.retention.time=60d", "--log.level=warn")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            LocalPrometheus started = new LocalPrometheus(process, directory, URI.create("http://127.0.0.1:" + port));
            started.awaitReady(startTimeout, log);
            return started;
        } catch (IOException | RuntimeException failed) {
            deleteTree(directory);
            throw failed;
        }
    }

    /** Where Prometheus answers. */
    public URI url() {
        return url;
    }

    /**
     * Loads more history into the running Prometheus: promtool writes the blocks beside its
     * storage, then each finished block is moved in whole. Prometheus picks new blocks up when it
     * next reloads its storage, within about a minute (measured: 57 s with Prometheus 2.42).
     */
    public void addHistory(List<Path> history) throws IOException {
        Path staging = Files.createTempDirectory(directory, "staging");
        backfill(binary().orElseThrow(() -> new IOException("promtool is not on the PATH")).resolveSibling("promtool"),
                history, staging, directory);
        try (Stream<Path> blocks = Files.list(staging)) {
            for (Path block : blocks.toList()) {
                Files.move(block, directory.resolve("data").resolve(block.getFileName()),
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            }
        }
        deleteTree(staging);
    }

    /**
     * Loads timestamped samples into {@code data}, one promtool run per file, all at once. Blocks
     * may be up to 32 days long: promtool then reads each file once instead of once per two hours.
     */
    private static void backfill(Path promtool, List<Path> history, Path data, Path directory) throws IOException {
        List<Process> runs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int i = 0; i < history.size(); i++) {
                Path log = directory.resolve("promtool-" + i + ".log");
                logs.add(log);
                runs.add(new ProcessBuilder(promtool.toString(), "tsdb", "create-blocks-from", "openmetrics",
                        "--max-block-duration=768h", history.get(i).toString(), data.toString())
                        .redirectErrorStream(true).redirectOutput(log.toFile()).start());
            }
            for (int i = 0; i < runs.size(); i++) {
                Process run = runs.get(i);
                if (!run.waitFor(10, TimeUnit.MINUTES)) {
                    throw new IOException("promtool did not finish loading " + history.get(i) + " within 10 minutes");
                }
                if (run.exitValue() != 0) {
                    throw new IOException("promtool could not load " + history.get(i) + " (exit " + run.exitValue()
                            + "): " + tail(logs.get(i)));
                }
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while loading the history", interrupted);
        } finally {
            runs.forEach(Process::destroyForcibly);
        }
    }

    private static String config(List<Job> jobs, Duration interval) {
        // honor_labels keeps the exporters' own node/namespace/pod labels, as the project's
        // ServiceMonitors do; a target's labels fill in node on the usage endpoints' series.
        String seconds = Math.max(1, interval.toSeconds()) + "s";
        StringBuilder yaml = new StringBuilder("global:\n  scrape_interval: " + seconds
                + "\n  scrape_timeout: " + seconds + "\nscrape_configs:\n");
        for (Job job : jobs) {
            yaml.append("  - job_name: ").append(quote(job.name())).append("\n    honor_labels: true\n")
                    .append("    static_configs:\n");
            job.targets().forEach((target, labels) -> {
                yaml.append("      - targets: [").append(quote(target)).append("]\n");
                if (!labels.isEmpty()) {
                    yaml.append("        labels: {").append(labels.entrySet().stream()
                            .map(label -> label.getKey() + ": " + quote(label.getValue()))
                            .collect(Collectors.joining(", "))).append("}\n");
                }
            });
        }
        return yaml.toString();
    }

    /** A YAML double-quoted scalar (JSON's escaping is a subset YAML reads). */
    private static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private void awaitReady(Duration timeout, Path log) throws IOException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("Prometheus exited with " + process.exitValue() + ": " + tail(log));
            }
            try {
                HttpResponse<Void> ready = client.send(HttpRequest.newBuilder(url.resolve("/-/ready"))
                        .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.discarding());
                if (ready.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // Not listening yet.
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                break;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        close();
        throw new IOException("Prometheus was not ready within " + timeout.toSeconds() + " s: " + tail(log));
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException unreadable) {
            return "(no log)";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Stops Prometheus (SIGTERM, then SIGKILL after 10 s) and removes its directory. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException interrupted) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        deleteTree(directory);
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            List<Path> all = new ArrayList<>(paths.toList());
            all.sort(Comparator.reverseOrder());
            for (Path path : all) {
                Files.deleteIfExists(path);
            }
        } catch (IOException partly) {
            throw new UncheckedIOException("could not remove " + root, partly);
        }
    }
}
