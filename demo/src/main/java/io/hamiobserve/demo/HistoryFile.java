package io.hamiobserve.demo;

import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A file of timestamped samples in OpenMetrics, as promtool's backfill reads it, written by the
 * prometheus-metrics writer from the same snapshots the endpoints serve: the series are collected
 * (and given the labels a scrape adds) once per state, and stamped with each instant they held.
 * Instants are written in order, so every series' samples are in time order.
 */
public final class HistoryFile implements AutoCloseable {
    private static final byte[] EOF = "# EOF\n".getBytes(StandardCharsets.US_ASCII);

    private final OutputStream out;
    private final OpenMetricsTextFormatWriter writer = OpenMetricsTextFormatWriter.create();
    /**
     * Labels every series gets, as a Prometheus's external labels (or a relabeling) add them to a
     * cluster's series: the demo's second cluster is told apart by {@code cluster="west"}. Empty for one.
     */
    private final Labels external;
    private long samples;

    /** A family's series with the scrape's labels added, ready to be stamped with an instant. */
    public record Family(MetricMetadata metadata, List<Labels> labels, double[] values) {
    }

    public HistoryFile(Path file) throws IOException {
        this(file, Labels.EMPTY);
    }

    /** @param external labels added to every series written (a series' own label of the name wins) */
    public HistoryFile(Path file, Labels external) throws IOException {
        this.out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        this.external = external;
    }

    /**
     * The gauges of {@code view} that {@code keep} selects by name, with the labels a scrape adds
     * ({@code target}: job, instance, and a node's name where the series has none).
     */
    public static List<Family> labelled(MetricSnapshots view, Labels target, Predicate<String> keep) {
        List<Family> families = new ArrayList<>();
        for (MetricSnapshot snapshot : view) {
            if (!(snapshot instanceof GaugeSnapshot gauge) || !keep.test(snapshot.getMetadata().getPrometheusName())) {
                continue;
            }
            List<Labels> labels = new ArrayList<>(gauge.getDataPoints().size());
            double[] values = new double[gauge.getDataPoints().size()];
            for (int p = 0; p < values.length; p++) {
                GaugeSnapshot.GaugeDataPointSnapshot point = gauge.getDataPoints().get(p);
                Labels merged = point.getLabels();
                for (int i = 0; i < target.size(); i++) {
                    if (!merged.contains(target.getName(i))) {
                        merged = merged.add(target.getName(i), target.getValue(i));
                    }
                }
                labels.add(merged);
                values[p] = point.getValue();
            }
            families.add(new Family(gauge.getMetadata(), labels, values));
        }
        return families;
    }

    /** Writes the families' samples at {@code at}; families of one name (several endpoints) are merged. */
    public void write(List<Family> families, Instant at) throws IOException {
        Map<String, List<GaugeSnapshot.GaugeDataPointSnapshot>> points = new LinkedHashMap<>();
        Map<String, MetricMetadata> metadata = new HashMap<>();
        for (Family family : families) {
            String name = family.metadata().getPrometheusName();
            metadata.putIfAbsent(name, family.metadata());
            List<GaugeSnapshot.GaugeDataPointSnapshot> into = points.computeIfAbsent(name, key -> new ArrayList<>());
            for (int p = 0; p < family.values().length; p++) {
                into.add(new GaugeSnapshot.GaugeDataPointSnapshot(family.values()[p],
                        withExternal(family.labels().get(p)), null, at.toEpochMilli()));
            }
            samples += family.values().length;
        }
        List<MetricSnapshot> snapshots = new ArrayList<>();
        points.forEach((name, list) -> snapshots.add(new GaugeSnapshot(metadata.get(name), list)));
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 * 1024);
        writer.write(buffer, new MetricSnapshots(snapshots));
        byte[] bytes = buffer.toByteArray();
        // The writer ends every exposition with "# EOF"; the file has one, at its very end.
        out.write(bytes, 0, endsWithEof(bytes) ? bytes.length - EOF.length : bytes.length);
    }

    private Labels withExternal(Labels labels) {
        Labels merged = labels;
        for (int i = 0; i < external.size(); i++) {
            if (!merged.contains(external.getName(i))) {
                merged = merged.add(external.getName(i), external.getValue(i));
            }
        }
        return merged;
    }

    public long samples() {
        return samples;
    }

    private static boolean endsWithEof(byte[] bytes) {
        if (bytes.length < EOF.length) {
            return false;
        }
        for (int i = 0; i < EOF.length; i++) {
            if (bytes[bytes.length - EOF.length + i] != EOF[i]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        try (out) {
            out.write(EOF);
        }
    }
}
