package io.hamiobserve.ports;

/**
 * Where adapters report an input they skipped. Bad input never fails a scrape: it is skipped
 * with a specific reason, counted per source, kind and reason, and the rest is served.
 */
@FunctionalInterface
public interface SkipReporter {
    /** A reporter that drops everything, for tools that print their own diagnostics. */
    SkipReporter NONE = (source, kind, reason, item) -> { };

    /**
     * @param source the reporting source, e.g. {@code cachefile}, {@code kubernetes}
     * @param kind   what was skipped, e.g. {@code file}, {@code node_annotation}, {@code pod_annotation}
     * @param reason a short, stable, label-safe reason, e.g. {@code bad_magic}, {@code wrong_field_count}
     * @param item   which item (a path, {@code namespace/pod}); goes to the log, never to a label
     */
    void skipped(String source, String kind, String reason, String item);
}
