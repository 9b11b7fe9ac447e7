package io.hamiobserve.exposition;

import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The families of one collection (a scrape, or one segment of it) and their data points; families
 * without data points are left out of the snapshots, as HAMi does. Not thread-safe.
 */
public final class Families {
    private final List<MetricFamily.Points> all = new ArrayList<>();
    /** Per family looked up by label values: the first value of each label set. */
    private final Map<MetricFamily, Map<List<String>, Double>> indexes = new HashMap<>();
    private final MetricFamily.LastRow lastRow = new MetricFamily.LastRow();

    /** Starts a family for this scrape. */
    public MetricFamily.Points of(MetricFamily family) {
        MetricFamily.Points points = family.points(lastRow);
        all.add(points);
        return points;
    }

    /** Whether {@code family} was started in this collection. */
    public boolean holds(MetricFamily family) {
        for (MetricFamily.Points points : all) {
            if (points.family() == family) {
                return true;
            }
        }
        return false;
    }

    /**
     * The value of {@code family}'s data point with these label values (in the family's label
     * order), the first one added where several were; empty when there is none. Indexes the
     * family's points on first use: call once the family is complete.
     */
    public OptionalDouble valueOf(MetricFamily family, String... labelValues) {
        Map<List<String>, Double> index = indexes.computeIfAbsent(family, started -> {
            Map<List<String>, Double> byLabels = new HashMap<>();
            get(started).forEach((labels, value) -> byLabels.putIfAbsent(Arrays.asList(labels), value));
            return byLabels;
        });
        Double value = index.get(Arrays.asList(labelValues));
        return value == null ? OptionalDouble.empty() : OptionalDouble.of(value);
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
    public List<MetricFamily> started() {
        return all.stream().map(MetricFamily.Points::family).toList();
    }

    /** The families with data points, in the order started. */
    List<MetricFamily.Points> nonEmpty() {
        List<MetricFamily.Points> nonEmpty = new ArrayList<>(all.size());
        for (MetricFamily.Points points : all) {
            if (!points.isEmpty()) {
                nonEmpty.add(points);
            }
        }
        return nonEmpty;
    }

    /** The snapshots of the families with data points. */
    public MetricSnapshots snapshots() {
        return snapshots(new LabelSets());
    }

    /** The snapshots of the families with data points, their label sets made through {@code labelSets}. */
    public MetricSnapshots snapshots(LabelSets labelSets) {
        List<MetricSnapshot> snapshots = new ArrayList<>();
        for (MetricFamily.Points points : all) {
            if (!points.isEmpty()) {
                snapshots.add(points.snapshot(labelSets));
            }
        }
        return new MetricSnapshots(snapshots);
    }
}
