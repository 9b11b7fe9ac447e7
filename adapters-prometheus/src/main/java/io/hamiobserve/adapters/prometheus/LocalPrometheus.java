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
    /** When the process was started ({@link System#nanoTime}). */
    private final long started = System.nanoTime();

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
     * Starts Prometheus scraping {@code jobs} every {@code interval} and evaluating the console's
     * recording rules, with the samples of {@code history} (OpenMetrics files with timestamps, each
     * loaded by its own promtool run, in parallel) already in its storage. The recording rules
     * run from now on; the history has no recorded series (see {@link #startRecorded}).
     * Returns once Prometheus answers {@code /-/ready}.
     *
     * @throws IOException when a binary is missing, the history cannot be loaded, or Prometheus
     *                     does not become ready within {@code startTimeout} (its log is in the message)
     */
    public static LocalPrometheus start(List<Job> jobs, Duration interval, List<Path> history,
                                        Duration startTimeout) throws IOException {
        return start(jobs, interval, history, startTimeout, java.util.Optional.empty());
    }

    /**
     * As {@link #start}, and the console's recording rules evaluated over the whole history too
     * ({@code promtool tsdb create-blocks-from rules}, against a first run of Prometheus on the
     * loaded history, which is then restarted with the recorded blocks): as a Prometheus that has
     * run the rules all along holds them.
     */
    public static LocalPrometheus startRecorded(List<Job> jobs, Duration interval, List<Path> history,
                                                Duration startTimeout) throws IOException {
        return start(jobs, interval, history, startTimeout, java.util.Optional.of(java.time.Instant.EPOCH));
    }

    /**
     * As {@link #startRecorded}, the rules evaluated from {@code recordsFrom} on only (from the
     * start of promtool's two-hour block that holds it): as a Prometheus whose rules were deployed
     * after its history began.
     */
    public static LocalPrometheus startRecordedFrom(List<Job> jobs, Duration interval, List<Path> history,
                                                    Duration startTimeout, java.time.Instant recordsFrom)
            throws IOException {
        return start(jobs, interval, history, startTimeout, java.util.Optional.of(recordsFrom));
    }

    /** {@code recordsFrom} empty: the history is not recorded; else recorded from that instant on. */
    private static LocalPrometheus start(List<Job> jobs, Duration interval, List<Path> history,
                                         Duration startTimeout, java.util.Optional<java.time.Instant> recordsFrom)
            throws IOException {
        Path prometheus = binary().orElseThrow(() -> new IOException(
                "prometheus and promtool are not on the PATH (Debian package: prometheus)"));
        Path promtool = prometheus.resolveSibling("promtool");
        Path directory = Files.createTempDirectory("hami-observe-prometheus");
        try {
            Path data = Files.createDirectory(directory.resolve("data"));
            backfill(promtool, history, data, directory);
            Path rules = directory.resolve(RecordingRules.FILE);
            Files.writeString(rules, RecordingRules.file());
            Path config = directory.resolve("prometheus.yml");
            Files.writeString(config, config(jobs, interval, rules));
            if (recordsFrom.isPresent() && !history.isEmpty()) {
                Path staging = Files.createDirectory(directory.resolve("recorded"));
                LocalPrometheus loaded = launch(prometheus, directory, data, config, startTimeout);
                try {
                    record(promtool, loaded.url, rules, data, staging, directory, recordsFrom.get());
                } finally {
                    loaded.stop();
                }
                moveBlocks(staging, data);
            }
            return launch(prometheus, directory, data, config, startTimeout);
        } catch (IOException | RuntimeException failed) {
            deleteTree(directory);
            throw failed;
        }
    }

    private static LocalPrometheus launch(Path prometheus, Path directory, Path data, Path config,
                                          Duration startTimeout) throws IOException {
        int port = freePort();
        Path log = directory.resolve("prometheus.log");
        Process process = new ProcessBuilder(prometheus.toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + data, "--web.listen-address=127.0.0.1:" + port,
                "--storage.tsdb.retention.time=60d", "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        LocalPrometheus started = new LocalPrometheus(process, directory, URI.create("http://127.0.0.1:" + port));
        started.awaitReady(startTimeout, log);
        return started;
    }

    /** promtool's block length when it evaluates recording rules (TSDB's default block). */
    private static final long BLOCK_MILLIS = RecordingRules.BACKFILL_BLOCK.toMillis();

    /**
     * Evaluates the recording rules over the span of the blocks in {@code data}, from the start of
     * the two-hour block holding the first sample (or {@code recordsFrom}, if later) to an hour past
     * the last sample (the hour that records it). Each group evaluates at its own offset into the
     * hour, as Prometheus does.
     */

    private static void record(Path promtool, URI url, Path rules, Path data, Path staging, Path directory,
                               java.time.Instant recordsFrom) throws IOException {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        try (Stream<Path> blocks = Files.list(data)) {
            for (Path meta : blocks.map(block -> block.resolve("meta.json")).filter(Files::isRegularFile).toList()) {
                String text = Files.readString(meta);
                first = Math.min(first, millis(text, "minTime"));
                last = Math.max(last, millis(text, "maxTime"));
            }
        }
        if (first == Long.MAX_VALUE) {
            return;
        }
        // From the start of promtool's two-hour block that holds the history's first sample: promtool
        // 2.42 evaluates a rule block by block and stops at the first block with no evaluation time
        // in it, so a start late in a block, before the group's evaluation offset (a hash of the
        // file's path and the group's name), recorded nothing for the whole group (measured: about
        // half of the groups, at random, for a history starting at half past an hour).
        long start = Math.floorDiv(Math.max(first, recordsFrom.toEpochMilli()), BLOCK_MILLIS) * BLOCK_MILLIS / 1000;
        long end = Math.min(System.currentTimeMillis() / 1000, last / 1000 + 3600);
        Path log = directory.resolve("promtool-rules.log");
        run(List.of(promtool.toString(), "tsdb", "create-blocks-from", "rules", "--url=" + url,
                "--start=" + start, "--end=" + end, "--output-dir=" + staging, rules.toString()), log,
                "evaluating the recording rules over the history", RECORDING_BOUND);
        try (Stream<Path> written = Files.list(staging)) {
            Files.writeString(log, "blocks written from " + start + " to " + end + ": " + written.count() + "\n",
                    java.nio.file.StandardOpenOption.APPEND);
        }
    }

    private static long millis(String meta, String field) throws IOException {
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("\"" + field + "\":\\s*(-?\\d+)")
                .matcher(meta);
        if (!matcher.find()) {
            throw new IOException("a block's meta.json has no " + field);
        }
        return Long.parseLong(matcher.group(1));
    }

    /** How long loading a history may take: a week of 1,000 cards loads in about 5 minutes. */
    private static final Duration LOADING_BOUND = Duration.ofMinutes(20);
    /**
     * How long evaluating the rules over it may take: a month of 1,000 cards and 10,000 shares took
     * longer than 20 minutes here (showback's steps over every hour, one a minute then).
     */
    private static final Duration RECORDING_BOUND = Duration.ofMinutes(90);

    private static void run(List<String> command, Path log, String what) throws IOException {
        run(command, log, what, LOADING_BOUND);
    }

    private static void run(List<String> command, Path log, String what, Duration bound) throws IOException {
        Process run = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!run.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException(what + " did not finish within " + bound.toMinutes() + " minutes");
            }
            if (run.exitValue() != 0) {
                throw new IOException(what + " failed (exit " + run.exitValue() + "): " + tail(log));
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while " + what, interrupted);
        } finally {
            run.destroyForcibly();
        }
    }

    private static void moveBlocks(Path from, Path data) throws IOException {
        try (Stream<Path> blocks = Files.list(from)) {
            for (Path block : blocks.toList()) {
                Files.move(block, data.resolve(block.getFileName()), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            }
        }
        Files.delete(from);
    }

    /**
     * Waits until Prometheus has merged the blocks loaded beside each other (history loaded in
     * parts, records evaluated over it) into fewer, as its compactor does within minutes of a start:
     * a Prometheus that has run all along holds its series in few blocks, and a query's cost grows
     * with the blocks it opens. The compactor runs once a minute and a run may merge for many
     * minutes (a month of records in two-hour blocks), during which the number of loaded blocks
     * stands still; so "done" is read from the compactor's own counters: a run started after the
     * last one that compacted, and the run after it started too, with no compaction in between
     * (that run found nothing to merge). Returns then, or at {@code timeout}; {@code quiet} is the
     * least time to wait after the start.
     *
     * @return the blocks loaded at the end
     */
    public long awaitCompaction(Duration quiet, Duration timeout) throws IOException {
        HttpClient client = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        long earliest = started + quiet.toNanos();
        double compactions = -1;
        double triggeredAtLastCompaction = 0;
        while (System.nanoTime() < deadline) {
            Map<String, Double> counters = ownMetrics(client);
            double ran = counters.getOrDefault("prometheus_tsdb_compactions_total", 0.0);
            double triggered = counters.getOrDefault("prometheus_tsdb_compactions_triggered_total", 0.0);
            if (ran != compactions) {
                compactions = ran;
                triggeredAtLastCompaction = triggered;
            } else if (System.nanoTime() > earliest && triggered >= triggeredAtLastCompaction + 2) {
                return counters.getOrDefault("prometheus_tsdb_blocks_loaded", -1.0).longValue();
            }
            try {
                Thread.sleep(2000);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for compaction", interrupted);
            }
        }
        return ownMetrics(client).getOrDefault("prometheus_tsdb_blocks_loaded", -1.0).longValue();
    }

    /** Prometheus's own unlabelled series, by name. */
    private Map<String, Double> ownMetrics(HttpClient client) throws IOException {
        try {
            String metrics = client.send(HttpRequest.newBuilder(url.resolve("/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Map<String, Double> values = new java.util.HashMap<>();
            java.util.regex.Matcher matcher = java.util.regex.Pattern
                    .compile("(?m)^([a-z_]+) ([0-9.e+-]+)$").matcher(metrics);
            while (matcher.find()) {
                values.put(matcher.group(1), Double.parseDouble(matcher.group(2)));
            }
            return values;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading Prometheus's own metrics", interrupted);
        }
    }

    /** Where Prometheus answers. */
    public URI url() {
        return url;
    }

    /**
     * What promtool said while it evaluated the recording rules over the history ({@link
     * #startRecorded}), for a test to say why records are missing; empty when nothing was recorded.
     */
    public String recordingLog() {
        try {
            Path log = directory.resolve("promtool-rules.log");
            return Files.isRegularFile(log) ? Files.readString(log) : "";
        } catch (IOException unreadable) {
            return unreadable.toString();
        }
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
        moveBlocks(staging, directory.resolve("data"));
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

    private static String config(List<Job> jobs, Duration interval, Path rules) {
        // honor_labels keeps the exporters' own node/namespace/pod labels, as the project's
        // ServiceMonitors do; a target's labels fill in node on the usage endpoints' series.
        String seconds = Math.max(1, interval.toSeconds()) + "s";
        StringBuilder yaml = new StringBuilder("global:\n  scrape_interval: " + seconds
                + "\n  scrape_timeout: " + seconds + "\nrule_files:\n  - " + quote(rules.toString())
                + "\nscrape_configs:\n");
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
        stop();
        deleteTree(directory);
    }

    private void stop() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException interrupted) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
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
