package io.hamiobserve.app.testing;

import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.edge.http.MetricsSource;
import io.hamiobserve.app.metrics.BuildInfo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** A source's exposition as text, for tests that compare it. */
public final class Expositions {
    /** The build the golden expositions show. */
    public static final BuildInfo BUILD = new BuildInfo("0.1.0", "abc1234", "2026-11-29T00:00:00Z", "java21",
            "javac", "linux/amd64");

    private Expositions() {
    }

    /** What a scrape of {@code source} in {@code format} answers now. */
    public static String render(MetricsSource source, ExpositionFormat format) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            source.collect().write(out, format);
            return out.toString(StandardCharsets.UTF_8);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }

    /** Source durations are the one thing that differs between two renderings of the same state. */
    public static String withoutDurations(String exposition) {
        return exposition.replaceAll("(?m)^(hami_observe_scrape_source_duration_seconds\\{[^}]*}) .*$",
                "$1 <duration>");
    }
}
