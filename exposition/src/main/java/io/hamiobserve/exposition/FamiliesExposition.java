package io.hamiobserve.exposition;

import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Completed collections written straight from their rows: Prometheus text and OpenMetrics by the
 * project's {@link TextWriter}, which writes what the library's writers write for the same
 * families without building a snapshot; a family the text writer does not take through the
 * library's snapshots. The families are sealed when this is made, so writing is
 * repeatable and may run for several formats at once.
 */
final class FamiliesExposition implements Exposition {
    private final List<MetricFamily.Points> points;
    private final boolean plain;

    FamiliesExposition(List<Families> collections) {
        List<MetricFamily.Points> all = new ArrayList<>();
        for (Families families : collections) {
            for (MetricFamily.Points family : families.nonEmpty()) {
                family.seal(all);
                all.add(family);
            }
        }
        all.sort(Comparator.comparing(family -> family.family().name()));
        this.points = List.copyOf(all);
        this.plain = TextWriter.Plain.families(points);
    }

    @Override
    public void write(OutputStream out, ExpositionFormat format) throws IOException {
        if (plain) {
            TextWriter.write(out, points, format);
        } else {
            format.writer().write(out, snapshots());
        }
    }

    /** Whether the text formats are written by the project's writer. */
    boolean plain() {
        return plain;
    }

    /** The library's snapshots of the same families. */
    MetricSnapshots snapshots() {
        LabelSets labelSets = new LabelSets();
        List<MetricSnapshot> snapshots = new ArrayList<>(points.size());
        for (MetricFamily.Points family : points) {
            snapshots.add(family.snapshot(labelSets));
        }
        return new MetricSnapshots(snapshots);
    }
}
