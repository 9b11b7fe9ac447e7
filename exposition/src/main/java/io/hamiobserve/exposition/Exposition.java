package io.hamiobserve.exposition;

import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * A role's series for one state of its sources, written on demand in the format a scrape
 * negotiated. Writing is repeatable and never changes what is written.
 */
public interface Exposition {
    /** Writes every family in {@code format}. */
    void write(OutputStream out, ExpositionFormat format) throws IOException;

    /**
     * Writes every family in {@code format}, gzip-compressed at deflate's fastest level: a complete
     * gzip stream of one member (RFC 1952), as every reader of gzip reads it, whose decompressed bytes are what
     * {@link #write} writes. Leaves {@code out} open. An exposition that keeps parts of its output
     * between scrapes keeps them compressed too, and compresses only what changed.
     */
    default void writeGzip(OutputStream out, ExpositionFormat format) throws IOException {
        OutputStream open = new FilterOutputStream(out) {
            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                out.write(bytes, offset, length);
            }

            @Override
            public void close() throws IOException {
                flush();
            }
        };
        try (GZIPOutputStream zipped = new GZIPOutputStream(open, 64 * 1024) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        }) {
            write(zipped, format);
        }
    }

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
