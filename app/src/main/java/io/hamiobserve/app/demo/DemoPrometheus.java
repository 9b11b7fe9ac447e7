package io.hamiobserve.app.demo;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo's own Prometheus: filled with {@link DemoHistory#LENGTH} of the simulated cluster's
 * history through promtool's backfill, then scraping the demo's three endpoints every
 * {@link #SCRAPE_INTERVAL}, so the console has days of data (right-sizing included) at once.
 */
public final class DemoPrometheus {
    /** How often the demo's Prometheus scrapes: often enough to watch the simulation move. */
    public static final Duration SCRAPE_INTERVAL = Duration.ofSeconds(5);

    private DemoPrometheus() {
    }

    /**
     * What the start cost, for the demo's start-up line.
     *
     * @param samples samples written into the history
     */
    public record Started(LocalPrometheus prometheus, long samples, Duration history, Duration startup) {
    }

    /**
     * Writes the history, loads it, and starts Prometheus scraping the endpoints.
     *
     * @param scheduler the allocation endpoint's {@code host:port}
     * @param nodes     each node's usage endpoint {@code host:port}
     */
    public static Started start(DemoHistory history, String scheduler, Map<String, String> nodes, Instant now)
            throws IOException {
        long began = System.nanoTime();
        // Two parts written and loaded side by side: the machine's cores share the work.
        List<Path> files = List.of(Files.createTempFile("hami-observe-demo-history", ".om"),
                Files.createTempFile("hami-observe-demo-history", ".om"));
        try {
            long samples = history.writeOpenMetrics(files, now.minusSeconds(1), scheduler, nodes);
            long written = System.nanoTime();
            Map<String, Map<String, String>> nodeTargets = new LinkedHashMap<>();
            nodes.forEach((node, target) -> nodeTargets.put(target, Map.of("node", node)));
            LocalPrometheus prometheus = LocalPrometheus.start(List.of(
                            new LocalPrometheus.Job("hami-observe-scheduler", Map.of(scheduler, Map.of())),
                            new LocalPrometheus.Job("hami-observe-node", nodeTargets)),
                    SCRAPE_INTERVAL, files, Duration.ofSeconds(60));
            return new Started(prometheus, samples, Duration.ofNanos(written - began),
                    Duration.ofNanos(System.nanoTime() - written));
        } finally {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }
}
