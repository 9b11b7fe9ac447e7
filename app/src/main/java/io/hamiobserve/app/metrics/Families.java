package io.hamiobserve.app.metrics;

import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.ArrayList;
import java.util.List;

/** Collects the families of one scrape; families without data points are left out, as HAMi does. */
final class Families {
    private final List<MetricFamily.Points> all = new ArrayList<>();

    /** Starts a family for this scrape. */
    public MetricFamily.Points of(MetricFamily family) {
        MetricFamily.Points points = family.points();
        all.add(points);
        return points;
    }

    /**
     * Starts a HAMi family whose pre-2.9 twin, when {@code legacy} is on, receives every point too.
     * The twin takes the same label values in the same positions, under its old label names.
     */
    public MetricFamily.Points of(MetricFamily family, MetricFamily legacyTwin, boolean legacy) {
        MetricFamily.Points points = of(family);
        if (legacy) {
            points.mirrorTo(of(legacyTwin));
        }
        return points;
    }

    /** The points of a family started earlier, so a layout and its producers can be written apart. */
    public MetricFamily.Points get(MetricFamily family) {
        for (MetricFamily.Points points : all) {
            if (points.family() == family) {
                return points;
            }
        }
        throw new IllegalArgumentException(family.name() + " was not started in this collection");
    }

    /** The families started so far, in order. */
    List<MetricFamily> started() {
        return all.stream().map(MetricFamily.Points::family).toList();
    }

    /** Whether the {@code index}-th family started has data points. */
    boolean hasPoints(int index) {
        return !all.get(index).isEmpty();
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
