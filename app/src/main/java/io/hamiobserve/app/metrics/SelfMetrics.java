package io.hamiobserve.app.metrics;

import io.hamiobserve.exposition.Families;

/**
 * The series every endpoint adds about the exporter itself: build, skipped inputs, source health.
 * They are one collection of families, added to an exposition as its other collections are
 * ({@code Exposition.of(List<Families>)}, {@code SegmentedExposition.append}) and written by the
 * same writer: one way for every role.
 */
public final class SelfMetrics {
    private SelfMetrics() {
    }

    /** Build info, skip counts and source health as they are now, as a collection of families. */
    public static Families families(BuildInfo build, SkipCounter skips, SourceHealth health) {
        Families families = new Families();
        build.addTo(families);
        skips.addTo(families);
        health.addTo(families);
        return families;
    }
}
