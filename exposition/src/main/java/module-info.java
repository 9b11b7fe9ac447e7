/**
 * The exposition engine: a role's series as families of rows ({@link io.hamiobserve.exposition.Families}),
 * written as Prometheus text 0.0.4 or OpenMetrics ({@link io.hamiobserve.exposition.ExpositionFormat})
 * by the project's own text writer, the library's bytes exactly, or kept per segment between scrapes
 * ({@link io.hamiobserve.exposition.SegmentedExposition}). It stands on the Prometheus data model
 * and the library's text writers only: no HTTP, no command line, no port, no role.
 */
module io.hamiobserve.exposition {
    // In its API: snapshots in, the library's writer for snapshots written as they are.
    requires transitive io.prometheus.metrics.model;
    requires transitive io.prometheus.writer.text;

    exports io.hamiobserve.exposition;
}
