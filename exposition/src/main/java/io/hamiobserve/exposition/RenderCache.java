package io.hamiobserve.exposition;

import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a role keeps between scrapes so that a scrape after a change renders only the segments that
 * changed (see {@link SegmentedExposition}): per format, each section's rendered segments
 * of the last exposition written, the families' HELP/TYPE lines and the format's trailer.
 *
 * <p>Only the segments of the last exposition written are kept, so the cache holds about one
 * exposition per format in use, less what the formats share: a segment whose sample lines are the
 * same in two formats (gauges are written alike in Prometheus text and OpenMetrics) is kept once.
 * A segment written compressed is kept as its deflate pieces only (about a twelfth of its text), so
 * a role that Prometheus scrapes with gzip keeps about one compressed exposition. Thread-safe: two scrapes writing at once may both render a segment, and the last
 * to finish decides what is kept; both write correct output.
 */
public final class RenderCache {
    private final Map<ExpositionFormat, ForFormat> byFormat = new ConcurrentHashMap<>();
    /**
     * {@code segment}, or the equal rendering another format keeps for the same key, so that the
     * two formats hold one copy of the bytes.
     */
    SegmentedExposition.RenderedSegment sharedWithOtherFormats(ForFormat self, String section, Object key,
                                                               SegmentedExposition.RenderedSegment segment) {
        for (ForFormat other : byFormat.values()) {
            if (other == self) {
                continue;
            }
            SegmentedExposition.RenderedSegment theirs = other.segments(section).get(key);
            if (theirs != null && theirs.sameAs(segment)) {
                return theirs;
            }
        }
        return segment;
    }

    ForFormat forFormat(ExpositionFormat format) {
        return byFormat.computeIfAbsent(format, ForFormat::new);
    }

    private record Kept(List<MetricFamily> families, Map<Object, SegmentedExposition.RenderedSegment> segments,
                        Map<Object, SegmentedExposition.RenderedSegment> lineages) {
    }

    /** What is kept for one format. */
    static final class ForFormat {
        private final Map<String, byte[]> headers = new ConcurrentHashMap<>();
        private final Map<String, Kept> sections = new ConcurrentHashMap<>();
        private final byte[] trailer;

        private ForFormat(ExpositionFormat format) {
            // What the format has after the last family (OpenMetrics' "# EOF"), taken from the library's writer.
            ByteArrayOutputStream empty = new ByteArrayOutputStream();
            try {
                format.writer().write(empty, new MetricSnapshots());
            } catch (IOException impossible) {
                throw new UncheckedIOException(impossible);
            }
            this.trailer = empty.toByteArray();
        }

        byte[] trailer() {
            return trailer;
        }

        /** What was kept for the section when it had these families; nothing when it had others. */
        Map<Object, SegmentedExposition.RenderedSegment> segments(String section, List<MetricFamily> families) {
            Kept kept = sections.get(section);
            return kept != null && kept.families().equals(families) ? kept.segments() : Map.of();
        }

        /** What was kept for the section's segments of parts by lineage, when it had these families. */
        Map<Object, SegmentedExposition.RenderedSegment> lineages(String section, List<MetricFamily> families) {
            Kept kept = sections.get(section);
            return kept != null && kept.families().equals(families) ? kept.lineages() : Map.of();
        }

        /** The last written segments of the section. */
        Map<Object, SegmentedExposition.RenderedSegment> segments(String section) {
            Kept kept = sections.get(section);
            return kept != null ? kept.segments() : Map.of();
        }

        void keep(String section, List<MetricFamily> families,
                  Map<Object, SegmentedExposition.RenderedSegment> segments,
                  Map<Object, SegmentedExposition.RenderedSegment> lineages) {
            sections.put(section, new Kept(List.copyOf(families), segments, lineages));
        }

        /** The family's HELP/TYPE lines as the writer wrote them; a family's metadata never changes. */
        void rememberHeader(String family, byte[] output, int from, int to) {
            headers.computeIfAbsent(family, name -> Arrays.copyOfRange(output, from, to));
        }

        /** Whether the family's kept HELP/TYPE lines are {@code output}'s {@code from} to {@code to}. */
        boolean hasHeader(String family, byte[] output, int from, int to) {
            byte[] header = headers.get(family);
            return header != null && Arrays.equals(header, 0, header.length, output, from, to);
        }

        byte[] header(String family) {
            byte[] header = headers.get(family);
            if (header == null) {
                throw new IllegalStateException("no rendered segment has shown the header of " + family);
            }
            return header;
        }
    }
}
