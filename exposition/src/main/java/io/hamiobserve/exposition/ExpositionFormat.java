package io.hamiobserve.app.http;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;

/**
 * The exposition formats served, chosen from the request's {@code Accept} header: OpenMetrics
 * when the client asks for {@code application/openmetrics-text}, Prometheus text 0.0.4 otherwise
 * (what HAMi serves and every Prometheus understands).
 */
public enum ExpositionFormat {
    PROMETHEUS_TEXT(PrometheusTextFormatWriter.create()),
    OPENMETRICS_TEXT(OpenMetricsTextFormatWriter.create());

    private final ExpositionFormatWriter writer;

    ExpositionFormat(ExpositionFormatWriter writer) {
        this.writer = writer;
    }

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
