package io.hamiobserve.app.metrics;

import io.hamiobserve.exposition.Families;

import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.ArrayList;
import java.util.List;

/** The series every endpoint adds about the exporter itself: build, skipped inputs, source health. */
public final class SelfMetrics {
    private SelfMetrics() {
    }

    /** {@code view} plus build info, skip counts and source health. */
    public static MetricSnapshots append(MetricSnapshots view, BuildInfo build, SkipCounter skips, SourceHealth health) {
        List<MetricSnapshot> all = new ArrayList<>(view.size() + 4);
        view.forEach(all::add);
        snapshots(build, skips, health).forEach(all::add);
        return new MetricSnapshots(all);
    }

    /** Build info, skip counts and source health as they are now. */
    public static MetricSnapshots snapshots(BuildInfo build, SkipCounter skips, SourceHealth health) {
        return families(build, skips, health).snapshots();
    }

    /** Build info, skip counts and source health as they are now, as a collection of families. */
    public static Families families(BuildInfo build, SkipCounter skips, SourceHealth health) {
        Families families = new Families();
        build.addTo(families);
        skips.addTo(families);
        health.addTo(families);
        return families;
    }
}
