package io.hamiobserve.app.metrics;

import io.hamiobserve.exposition.MetricFamily;
import io.hamiobserve.exposition.Families;

import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Per source, whether its last read succeeded and how long it took, in the style of
 * node_exporter's {@code node_scrape_collector_success}: a failing source is a series, never a
 * failed scrape.
 */
public final class SourceHealth {
    static final MetricFamily SUCCESS = MetricFamily.gauge("hami_observe_scrape_source_success",
            "Whether the source's last read succeeded (1) or failed (0)", "source");
    static final MetricFamily DURATION = MetricFamily.gauge("hami_observe_scrape_source_duration_seconds",
            "How long the source's last read took", "source");

    /** The outcome of one read of one source. */
    public record Outcome(boolean success, double seconds, String error) {
    }

    private final Map<String, Outcome> outcomes = new ConcurrentSkipListMap<>();

    public void record(String source, boolean success, long nanos, String error) {
        outcomes.put(source, new Outcome(success, nanos / 1e9, error == null ? "" : error));
    }

    void addTo(Families families) {
        var success = families.of(SUCCESS);
        var duration = families.of(DURATION);
        outcomes.forEach((source, outcome) -> {
            success.add(outcome.success() ? 1 : 0, source);
            duration.add(outcome.seconds(), source);
        });
    }
}
