package io.hamiobserve.exposition;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Segments rendered in parallel and compressed as they are rendered (a section of more than
 * {@link SegmentedExposition#PIECES_THRESHOLD} segments, more than
 * {@link SegmentedExposition#PARALLEL_THRESHOLD} to render): a producer that fails fails the
 * writing with its own exception, as a serial rendering does, and leaves nothing behind that a later
 * writing would show.
 */
class ParallelSegmentsTest {
    private static final MetricFamily SLOTS = MetricFamily.gauge("test_rack_slots", "Slots of a rack", "rack", "slot");
    private static final int RACKS = Math.max(3 * SegmentedExposition.PIECES_THRESHOLD,
            2 * SegmentedExposition.PARALLEL_THRESHOLD);

    /** An exposition of {@link #RACKS} racks, the rack {@code failing} failing to render (none: -1). */
    private static SegmentedExposition exposition(RenderCache cache, int failing, int version) {
        SegmentedExposition exposition = new SegmentedExposition(cache, FamilyDecorator.NONE);
        Segments.Section racks = exposition.section("racks", families -> families.of(SLOTS));
        for (int r = 0; r < RACKS; r++) {
            int rack = r;
            racks.segment(rack == failing ? "failing " + version : "rack " + rack + " " + version, families -> {
                if (rack == failing) {
                    throw new IllegalStateException("rack " + rack + " cannot be read");
                }
                for (int slot = 0; slot < 1 + rack % 5; slot++) {
                    families.get(SLOTS).add(version * 1000 + rack * 10 + slot, "rack-" + rack, "s" + slot);
                }
            });
        }
        return exposition;
    }

    private static String plain(SegmentedExposition exposition) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        exposition.write(out, ExpositionFormat.OPENMETRICS_TEXT);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String gunzipped(SegmentedExposition exposition) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        exposition.writeGzip(out, ExpositionFormat.OPENMETRICS_TEXT);
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(out.toByteArray()))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aFailingSegmentFailsTheWritingWithItsExceptionAndTheNextWritingIsWhole() throws IOException {
        RenderCache cache = new RenderCache();
        assertEquals(plain(exposition(new RenderCache(), -1, 1)), gunzipped(exposition(cache, -1, 1)));
        for (boolean gzip : new boolean[] {true, false}) {
            // Every rack changes, one fails: the rest are rendered in parallel around it.
            SegmentedExposition failing = exposition(cache, RACKS / 2, 2);
            IllegalStateException thrown = assertThrows(IllegalStateException.class,
                    () -> {
                        if (gzip) {
                            gunzipped(failing);
                        } else {
                            plain(failing);
                        }
                    });
            assertTrue(String.valueOf(thrown.getMessage()).contains("rack " + RACKS / 2 + " cannot be read")
                    || thrown.getCause() != null && thrown.getCause().getMessage().contains("cannot be read"),
                    thrown.toString());
        }
        // The next exposition, all racks readable, is what a rendering from scratch writes.
        assertEquals(plain(exposition(new RenderCache(), -1, 3)), gunzipped(exposition(cache, -1, 3)));
        assertEquals(plain(exposition(new RenderCache(), -1, 3)), plain(exposition(cache, -1, 3)));
    }
}
