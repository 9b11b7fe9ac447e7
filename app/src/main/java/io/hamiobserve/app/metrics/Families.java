package io.hamiobserve.app.metrics;

import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.ArrayList;
import java.util.List;

/** Collects the families of one scrape; families without data points are left out, as HAMi does. */
final class Families {
    private final List<MetricFamily.Points> all = new ArrayList<>();

    /** Starts a family for this scrape. */
    MetricFamily.Points of(MetricFamily family) {
        MetricFamily.Points points = family.points();
        all.add(points);
        return points;
    }

    /**
     * Starts a HAMi family whose pre-2.9 twin, when {@code legacy} is on, receives every point too.
     * The twin takes the same label values in the same positions, under its old label names.
     */
    MetricFamily.Points of(MetricFamily family, MetricFamily legacyTwin, boolean legacy) {
        MetricFamily.Points points = of(family);
        if (legacy) {
            points.mirrorTo(of(legacyTwin));
        }
        return points;
    }

    MetricSnapshots snapshots() {
        List<MetricSnapshot> snapshots = new ArrayList<>();
        for (MetricFamily.Points points : all) {
            if (!points.isEmpty()) {
                snapshots.add(points.snapshot());
            }
        }
        return new MetricSnapshots(snapshots);
    }
}
