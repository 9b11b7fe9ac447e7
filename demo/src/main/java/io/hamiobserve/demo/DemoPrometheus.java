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
     * One simulated cluster's endpoints, each {@code host:port}, and its history.
     *
     * @param scheduler the allocation endpoint
     * @param nodes     each node's usage endpoint
     * @param dcgm      each NVIDIA node's simulated dcgm-exporter
     * @param ascend    each Ascend node's simulated exporters ({@link DemoAscend})
     */
    public record Cluster(DemoHistory history, String scheduler, Map<String, String> nodes, Map<String, String> dcgm,
                          Map<String, Map<DemoAscend.Exporter, String>> ascend) {
        /** Writes this cluster's history from {@code from} to {@code to} into {@code files}. */
        long write(List<Path> files, Instant from, Instant to, boolean includeEnd) throws IOException {
            return history.writeOpenMetrics(files, from, to, includeEnd, scheduler, nodes, dcgm, ascend);
        }

        /** The labels every target of this cluster gets: its {@code cluster} label, when it has a name. */
        Map<String, String> labels(Map<String, String> own) {
            if (history.clusterName().isEmpty()) {
                return own;
            }
            Map<String, String> labels = new LinkedHashMap<>(own);
            labels.put(DemoHistory.CLUSTER_LABEL, history.clusterName());
            return labels;
        }
    }

    /**
     * Writes the recent history of every cluster, starts Prometheus with it scraping their endpoints
     * (each cluster's targets labelled with its name, as a cluster's own Prometheus adds it as an
     * external label), and loads the rest in the background.
     */
    public static Started start(List<Cluster> clusters, Instant now) throws IOException {
        long began = System.nanoTime();
        Instant end = now.minusSeconds(1);
        Instant split = end.minus(AT_ONCE);
        List<Path> recent = new java.util.ArrayList<>();
        LocalPrometheus prometheus;
        long samples = 0;
        long written;
        try {
            for (Cluster cluster : clusters) {
                Path file = historyFile();
                recent.add(file);
                samples += cluster.write(List.of(file), split, end, true);
            }
            written = System.nanoTime();
            prometheus = LocalPrometheus.start(jobs(clusters), SCRAPE_INTERVAL, recent, Duration.ofSeconds(60));
        } finally {
            for (Path file : recent) {
                Files.deleteIfExists(file);
            }
        }
        Duration startup = Duration.ofNanos(System.nanoTime() - written);
        CompletableFuture<Long> rest = CompletableFuture.supplyAsync(() -> {
            // Two parts per cluster written and loaded side by side: the machine's cores share the work.
            List<Path> files = new java.util.ArrayList<>();
            try {
                long older = 0;
                for (Cluster cluster : clusters) {
                    List<Path> parts = List.of(historyFile(), historyFile());
                    files.addAll(parts);
                    older += cluster.write(parts, cluster.history().start(), split, false);
                }
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
     * The scrape jobs over every cluster's endpoints: one job per exporter, as in one cluster, its
     * targets from all clusters, each labelled with its cluster's name (none for the one-cluster demo).
     */
    static List<LocalPrometheus.Job> jobs(List<Cluster> clusters) {
        Map<String, Map<String, String>> schedulers = new LinkedHashMap<>();
        Map<String, Map<String, String>> nodeTargets = new LinkedHashMap<>();
        Map<String, Map<String, String>> dcgmTargets = new LinkedHashMap<>();
        Map<DemoAscend.Exporter, Map<String, Map<String, String>>> ascendTargets =
                new java.util.EnumMap<>(DemoAscend.Exporter.class);
        for (Cluster cluster : clusters) {
            schedulers.put(cluster.scheduler(), cluster.labels(Map.of()));
            cluster.nodes().forEach((node, target) -> nodeTargets.put(target, cluster.labels(Map.of("node", node))));
            cluster.dcgm().values().forEach(target -> dcgmTargets.put(target, cluster.labels(Map.of())));
            cluster.ascend().forEach((node, at) -> at.forEach((exporter, target) -> ascendTargets
                    .computeIfAbsent(exporter, key -> new LinkedHashMap<>())
                    .put(target, cluster.labels(Map.of("node", node)))));
        }
        List<LocalPrometheus.Job> jobs = new java.util.ArrayList<>(List.of(
                new LocalPrometheus.Job("hami-observe-scheduler", schedulers),
                new LocalPrometheus.Job("hami-observe-node", nodeTargets)));
        if (!dcgmTargets.isEmpty()) {
            jobs.add(new LocalPrometheus.Job(DCGM_JOB, dcgmTargets));
        }
        ascendTargets.forEach((exporter, targets) -> jobs.add(new LocalPrometheus.Job(exporter.job, targets)));
        return jobs;
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
