package io.hamiobserve.exposition;

import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * A role's series for one state of its sources, written on demand in the format a scrape
 * negotiated. Writing is repeatable and never changes what is written.
 */
public interface Exposition {
    /** Writes every family in {@code format}. */
    void write(OutputStream out, ExpositionFormat format) throws IOException;

    /** Snapshots collected for one scrape, written as they are. */
    static Exposition of(MetricSnapshots snapshots) {
        return (out, format) -> format.writer().write(out, snapshots);
    }

    /**
     * Collections complete as they are: each is written from its rows (Prometheus text and
     * OpenMetrics by the project's writer, the library's output byte for byte), families of all
     * in name order. Nothing may be added to them afterwards.
     */
    static Exposition of(List<Families> collections) {
        return new FamiliesExposition(collections);
    }
}
