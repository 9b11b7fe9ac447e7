package io.hamiobserve.exposition;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link SegmentedExposition} relies on in prometheus-metrics' text writers, pinned: the engine
 * writes no byte of its own, it cuts the library's output at line boundaries and joins the pieces,
 * so these are the properties that make the pieces join into a valid exposition. A release of the
 * library that changes one of them fails here first (and the engine's own checks then refuse to
 * serve a cut they do not understand, rather than a broken exposition).
 */
class LibraryWriterContractTest {
    private static final MetricFamily GAUGE = MetricFamily.hamiGauge("hami_test_bytes", "Bytes, for a test", "pod");
    private static final MetricFamily COUNTER = MetricFamily.counter("hami_observe_test_events", "Events", "kind");
    private static final MetricFamily LATER = MetricFamily.gauge("hami_zz_test_last", "Last by name");

    static Stream<ExpositionFormatWriter> writers() {
        return Stream.of(PrometheusTextFormatWriter.create(), OpenMetricsTextFormatWriter.create());
    }

    private static String write(ExpositionFormatWriter writer, MetricSnapshots snapshots) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writer.write(out, snapshots);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static MetricSnapshots families(int pods) {
        Families families = new Families();
        MetricFamily.Points later = families.of(LATER);
        MetricFamily.Points gauge = families.of(GAUGE);
        MetricFamily.Points counter = families.of(COUNTER);
        later.add(1);
        for (int i = 0; i < pods; i++) {
            gauge.add(i, "pod-" + i);
            counter.add(i + 1, "kind-" + i);
        }
        return families.snapshots();
    }

    /** A family is its comment lines (HELP, TYPE, ...), then its sample lines, none starting with '#'. */
    @ParameterizedTest
    @MethodSource("writers")
    void eachFamilyIsItsCommentLinesThenItsSampleLinesInNameOrder(ExpositionFormatWriter writer) throws IOException {
        String text = write(writer, families(3));
        String trailer = write(writer, new MetricSnapshots());
        assertTrue(text.endsWith(trailer), text);
        List<String> typed = new ArrayList<>();
        boolean inSamples = false;
        for (String line : text.substring(0, text.length() - trailer.length()).split("\n")) {
            if (line.startsWith("#")) {
                if (line.startsWith("# TYPE ")) {
                    typed.add(line.split(" ")[2]);
                }
                inSamples = false;
            } else {
                assertFalse(line.isEmpty(), text);
                inSamples = true;
            }
        }
        assertTrue(inSamples, "the last family ends with its samples: " + text);
        // Families in the order of their names, as the engine orders the pieces it joins.
        assertEquals(List.of("hami_observe_test_events", "hami_test_bytes", "hami_zz_test_last"),
                typed.stream().map(name -> name.replaceFirst("_total$", "")).toList(), text);
    }

    /** What is written after the last family, with no families: nothing, or OpenMetrics' "# EOF". */
    @ParameterizedTest
    @MethodSource("writers")
    void anEmptySetOfSnapshotsWritesOnlyTheTrailer(ExpositionFormatWriter writer) throws IOException {
        String trailer = write(writer, new MetricSnapshots());
        assertEquals(writer instanceof OpenMetricsTextFormatWriter ? "# EOF\n" : "", trailer);
    }

    /** The engine keeps a family's comment lines once: they must not depend on its points. */
    @ParameterizedTest
    @MethodSource("writers")
    void aFamilysCommentLinesDoNotDependOnItsPoints(ExpositionFormatWriter writer) throws IOException {
        assertEquals(comments(write(writer, families(1))), comments(write(writer, families(5))));
    }

    /** Written in parts and joined, the samples are the samples of one call, line for line. */
    @ParameterizedTest
    @MethodSource("writers")
    void samplesWrittenSeparatelyAreTheLinesOfOneCall(ExpositionFormatWriter writer) throws IOException {
        Families first = new Families();
        first.of(GAUGE).add(0, "pod-0");
        Families second = new Families();
        second.of(GAUGE).add(1, "pod-1");
        Families both = new Families();
        MetricFamily.Points points = both.of(GAUGE);
        points.add(0, "pod-0");
        points.add(1, "pod-1");
        List<String> joined = new ArrayList<>(samples(write(writer, first.snapshots())));
        joined.addAll(samples(write(writer, second.snapshots())));
        assertEquals(samples(write(writer, both.snapshots())), joined);
    }

    private static List<String> comments(String text) {
        return text.lines().filter(line -> line.startsWith("#")).toList();
    }

    private static List<String> samples(String text) {
        return text.lines().filter(line -> !line.startsWith("#")).toList();
    }
}
