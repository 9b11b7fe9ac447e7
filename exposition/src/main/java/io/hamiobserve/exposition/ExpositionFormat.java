package io.hamiobserve.exposition;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;

/**
 * The exposition formats served, chosen from the request's {@code Accept} header: OpenMetrics
 * when the client asks for {@code application/openmetrics-text}, Prometheus text 0.0.4 otherwise
 * (what HAMi serves and every Prometheus understands). An {@link Exposition} is written in a
 * format: the project's {@link TextWriter} writes either from the rows, and the library's writer
 * of the same format ({@link #writer()}) writes what comes as snapshots.
 */
public enum ExpositionFormat {
    PROMETHEUS_TEXT(PrometheusTextFormatWriter.create()),
    OPENMETRICS_TEXT(OpenMetricsTextFormatWriter.create());

    private final ExpositionFormatWriter writer;

    ExpositionFormat(ExpositionFormatWriter writer) {
        this.writer = writer;
    }

    /** The library's writer of this format: snapshots written as they are, and the reference bytes. */
    public ExpositionFormatWriter writer() {
        return writer;
    }

    public String contentType() {
        return writer.getContentType();
    }

    /** The format for an {@code Accept} header value (null or empty means the default). */
    public static ExpositionFormat negotiate(String accept) {
        return accept != null && OPENMETRICS_TEXT.writer.accepts(accept) ? OPENMETRICS_TEXT : PROMETHEUS_TEXT;
    }
}
