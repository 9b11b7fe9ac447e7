package io.hamiobserve.demo;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The demo's own Prometheus, scraping the demo's endpoints (both views, the simulated dcgm-exporters,
 * the Ascend node's HAMi plugin and npu-exporter) every {@link #SCRAPE_INTERVAL}
 * and filled with the simulated cluster's history through promtool's backfill: the last
 * {@link #AT_ONCE} before it starts (enough for right-sizing: over 100 samples and 3 hours), and
 * the rest of {@link DemoHistory#LENGTH} in the background, which Prometheus takes in within about a
 * minute — so the demo starts in seconds and has something to say at once.
 */
public final class DemoPrometheus {
    /** The scrape job of the simulated dcgm-exporters, as NVIDIA's Helm chart names it. */
    public static final String DCGM_JOB = "dcgm-exporter";
    /** How often the demo's Prometheus scrapes: often enough to watch the simulation move. */
    public static final Duration SCRAPE_INTERVAL = Duration.ofSeconds(5);
    /** History loaded before Prometheus starts: 10 h at 293 s is 123 samples per series. */
    public static final Duration AT_ONCE = Duration.ofHours(10);

    private DemoPrometheus() {
    }

    /**
     * What the start cost, for the demo's start-up line.
     *
     * @param samples samples written before the start
     * @param rest    the rest of the history: its samples, once written and handed to Prometheus
     */
    public record Started(LocalPrometheus prometheus, long samples, Duration history, Duration startup,
                          CompletableFuture<Long> rest) {
    }

    /** How the demo's history files are named in the temporary directory. */
    static final String HISTORY_FILE_PREFIX = "hami-observe-demo-history";

    /**
     * Writes the recent history, starts Prometheus with it scraping the endpoints, and loads the
     * rest in the background.
     *
     * @param scheduler the allocation endpoint's {@code host:port}
     * @param nodes     each node's usage endpoint {@code host:port}
     * @param dcgm      each NVIDIA node's simulated dcgm-exporter {@code host:port}
     * @param ascend    each Ascend node's simulated exporters' {@code host:port} ({@link DemoAscend})
     */
    public static Started start(DemoHistory history, String scheduler, Map<String, String> nodes,
                                Map<String, String> dcgm, Map<String, Map<DemoAscend.Exporter, String>> ascend,
                                Instant now) throws IOException {
        long began = System.nanoTime();
        Instant end = now.minusSeconds(1);
        Instant split = end.minus(AT_ONCE);
        Path recent = historyFile();
        LocalPrometheus prometheus;
        long samples;
        long written;
        try {
            samples = history.writeOpenMetrics(List.of(recent), split, end, true, scheduler, nodes, dcgm, ascend);
            written = System.nanoTime();
            Map<String, Map<String, String>> nodeTargets = new LinkedHashMap<>();
            nodes.forEach((node, target) -> nodeTargets.put(target, Map.of("node", node)));
            Map<String, Map<String, String>> dcgmTargets = new LinkedHashMap<>();
            dcgm.values().forEach(target -> dcgmTargets.put(target, Map.of()));
            List<LocalPrometheus.Job> jobs = new java.util.ArrayList<>(List.of(
                    new LocalPrometheus.Job("hami-observe-scheduler", Map.of(scheduler, Map.of())),
                    new LocalPrometheus.Job("hami-observe-node", nodeTargets)));
            if (!dcgmTargets.isEmpty()) {
                jobs.add(new LocalPrometheus.Job(DCGM_JOB, dcgmTargets));
            }
            for (DemoAscend.Exporter exporter : DemoAscend.Exporter.values()) {
                Map<String, Map<String, String>> targets = new LinkedHashMap<>();
                ascend.forEach((node, at) -> {
                    if (at.containsKey(exporter)) {
                        targets.put(at.get(exporter), Map.of("node", node));
                    }
                });
                if (!targets.isEmpty()) {
                    jobs.add(new LocalPrometheus.Job(exporter.job, targets));
                }
            }
            prometheus = LocalPrometheus.start(jobs,
                    SCRAPE_INTERVAL, List.of(recent), Duration.ofSeconds(60));
        } finally {
            Files.deleteIfExists(recent);
        }
        Duration startup = Duration.ofNanos(System.nanoTime() - written);
        CompletableFuture<Long> rest = CompletableFuture.supplyAsync(() -> {
            // Two parts written and loaded side by side: the machine's cores share the work.
            List<Path> files = new java.util.ArrayList<>();
            try {
                files.add(historyFile());
                files.add(historyFile());
                long older = history.writeOpenMetrics(files, history.start(), split, false, scheduler, nodes, dcgm,
                        ascend);
                prometheus.addHistory(files);
                return older;
            } catch (IOException failed) {
                throw new java.io.UncheckedIOException(failed);
            } finally {
                for (Path file : files) {
                    try {
                        Files.deleteIfExists(file);
                    } catch (IOException ignored) {
                        // A temporary file; the operating system cleans up.
                    }
                }
            }
        }, runnable -> Thread.ofPlatform().daemon().name("demo-history").start(runnable));
        return new Started(prometheus, samples, Duration.ofNanos(written - began), startup, rest);
    }

    /**
     * A temporary file for part of the history, deleted when its part is loaded and, failing that,
     * when the process exits: a demo stopped while the week is still being written or loaded (the
     * thread doing it is a daemon, its {@code finally} never runs) left tens of megabytes behind.
     */
    private static Path historyFile() throws IOException {
        Path file = Files.createTempFile(HISTORY_FILE_PREFIX, ".om");
        file.toFile().deleteOnExit();
        return file;
    }
}
