package io.hamiobserve.adapters.prometheus;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongToDoubleFunction;

/**
 * Test data: an OpenMetrics file of timestamped samples, as promtool's backfill reads it, written
 * series by series.
 */
final class History implements AutoCloseable {
    private final Writer out;
    private final long start;
    private final long end;
    private final long step;

    /** What a test writes into a history. */
    @FunctionalInterface
    interface Writing {
        void write(History series) throws Exception;
    }

    /**
     * A Prometheus that holds what {@code writing} puts in a history of samples every {@code step}
     * seconds from {@code start} to {@code end} (backfilled by promtool; the file is gone once loaded).
     */
    static LocalPrometheus loaded(String name, long start, long end, long step, Writing writing) throws Exception {
        Path file = Files.createTempFile(name, ".om");
        try {
            try (History series = new History(file, start, end, step)) {
                writing.write(series);
            }
            return LocalPrometheus.start(List.of(), Duration.ofSeconds(60), List.of(file), Duration.ofSeconds(60));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * Two Prometheus servers holding the same history: one with the raw series only, one that has
     * also evaluated the console's recording rules over it (as a Prometheus that ran them all along).
     */
    record RawAndRecorded(LocalPrometheus raw, LocalPrometheus recorded) implements AutoCloseable {
        @Override
        public void close() {
            for (LocalPrometheus prometheus : new LocalPrometheus[]{raw, recorded}) {
                if (prometheus != null) {
                    prometheus.close();
                }
            }
        }
    }

    /** As {@link #loaded}, twice: the raw history, and the same with the console's rules evaluated over it. */
    static RawAndRecorded rawAndRecorded(String name, long start, long end, long step, Writing writing)
            throws Exception {
        return rawAndRecordedFrom(name, start, end, step, java.time.Instant.EPOCH, writing);
    }

    /** As {@link #rawAndRecorded}, the rules evaluated from {@code recordsFrom} on only (rules deployed later). */
    static RawAndRecorded rawAndRecordedFrom(String name, long start, long end, long step,
                                             java.time.Instant recordsFrom, Writing writing) throws Exception {
        Path file = Files.createTempFile(name, ".om");
        LocalPrometheus raw = null;
        try {
            try (History series = new History(file, start, end, step)) {
                writing.write(series);
            }
            raw = LocalPrometheus.start(List.of(), Duration.ofSeconds(60), List.of(file), Duration.ofSeconds(60));
            return new RawAndRecorded(raw, LocalPrometheus.startRecordedFrom(List.of(), Duration.ofSeconds(60),
                    List.of(file), Duration.ofSeconds(120), recordsFrom));
        } catch (Exception | Error failed) {
            if (raw != null) {
                raw.close();
            }
            throw failed;
        } finally {
            Files.deleteIfExists(file);
        }
    }

    History(Path file, long start, long end, long step) throws IOException {
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        this.start = start;
        this.end = end;
        this.step = step;
    }

    /** One series with a value at every step from start to end. */
    History series(String name, Map<String, String> labels, LongToDoubleFunction value) throws IOException {
        return series(name, labels, start, value);
    }

    History series(String name, Map<String, String> labels, long from, LongToDoubleFunction value) throws IOException {
        return series(name, labels, from, end, value);
    }

    /** One series with a value at every step from {@code from} to {@code until}, both included. */
    History series(String name, Map<String, String> labels, long from, long until, LongToDoubleFunction value)
            throws IOException {
        return series(name, labels, from, until, step, value);
    }

    /** As {@link #series(String, Map, long, long, LongToDoubleFunction)}, a value every {@code every} seconds. */
    History series(String name, Map<String, String> labels, long from, long until, long every,
                   LongToDoubleFunction value) throws IOException {
        StringBuilder prefix = new StringBuilder(name);
        if (!labels.isEmpty()) {
            prefix.append('{');
            new TreeMap<>(labels).forEach((key, text) -> prefix.append(key).append("=\"").append(escape(text)).append("\","));
            prefix.setLength(prefix.length() - 1);
            prefix.append('}');
        }
        prefix.append(' ');
        for (long t = from; t <= Math.min(until, end); t += every) {
            out.write(prefix + Double.toString(value.applyAsDouble(t)) + " " + t + "\n");
        }
        return this;
    }

    /** The value of {@code expression} at {@code at} as {@code api}'s engine answers it: its first series'. */
    static double valueAt(PrometheusApi api, String expression, long at) throws Exception {
        return PrometheusApi.await(api.instant(new PromQl.Template("check", expression).plain(),
                java.time.Instant.ofEpochSecond(at))).getFirst().value();
    }

    /**
     * When {@code group} last ran at most an hour before {@code at}, as its marker's timestamp in
     * the Prometheus at {@code url} says: compared there, its records hold every sample there is
     * (Prometheus runs an hourly group at a fixed offset into the hour, a hash of its name).
     */
    static java.time.Instant lastRun(java.net.URI url, RecordingRules.Group group, long at) throws Exception {
        PrometheusApi api = new PrometheusApi(url, java.time.Duration.ofSeconds(20));
        double lastRun = valueAt(api, "max_over_time(timestamp(" + RecordingRules.EVALUATED + "{group=\""
                + group.label + "\"})[1h:1m])", at);
        return java.time.Instant.ofEpochMilli(Math.round(lastRun * 1000));
    }

    /**
     * One card of {@code cluster} registered by two scheduler-side replicas and reported by its
     * node, each figure moving every few minutes, differently on each card ({@code seed}): what the
     * overview's card lines add up.
     */
    History movingCard(String cluster, String uuid, double memory, int seed) throws IOException {
        for (String replica : List.of("scheduler-0", "scheduler-1")) {
            Map<String, String> registered = Map.of("cluster", cluster, "node", "node-" + cluster, "device_uuid", uuid,
                    "device_index", Integer.toString(seed), "device_type", "NVIDIA A100", "instance", replica);
            series("hami_gpu_memory_limit_bytes", registered, t -> memory)
                    .series("hami_gpu_memory_allocated_bytes", registered, t -> memory * ((t / 600 + seed) % 5) / 8)
                    .series("hami_gpu_core_limit_ratio", registered, t -> 100)
                    .series("hami_gpu_core_allocated_ratio", registered, t -> 10 * ((t / 900 + seed) % 9))
                    .series("hami_observe_gpu_core_allocated_percent", registered, t -> 10 * ((t / 900 + seed) % 9));
        }
        Map<String, String> host = Map.of("cluster", cluster, "node", "node-" + cluster, "device_uuid", uuid,
                "instance", "node-" + cluster + ":9394");
        return series("hami_host_gpu_memory_used_bytes", host, t -> memory * ((t / 60 + 3 * seed) % 11) / 16)
                .series("hami_host_gpu_utilization_ratio", host, t -> (t / 60 * 7 + 13 * seed) % 101);
    }

    /**
     * When {@code group} ran from {@code from} to {@code to} (epoch seconds), from its marker's
     * samples in the engine at {@code url}, in order (epoch milliseconds: a run's instant carries the
     * group's offset into its interval).
     */
    static List<Long> runs(java.net.URI url, RecordingRules.Group group, long from, long to) throws Exception {
        PrometheusApi api = new PrometheusApi(url, Duration.ofSeconds(20));
        List<Long> runs = new java.util.ArrayList<>();
        for (PrometheusApi.Series series : PrometheusApi.await(api.range(new PromQl.Template("runs",
                        "timestamp(" + RecordingRules.EVALUATED + "{group=\"" + group.label + "\"})").plain(),
                java.time.Instant.ofEpochSecond(from), java.time.Instant.ofEpochSecond(to), Duration.ofSeconds(60)))) {
            for (double[] point : series.points()) {
                long run = Math.round(point[1] * 1000);
                if (runs.isEmpty() || runs.getLast() != run) {
                    runs.add(run);
                }
            }
        }
        return runs;
    }

    static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    @Override
    public void close() throws IOException {
        out.write("# EOF\n");
        out.close();
    }
}
