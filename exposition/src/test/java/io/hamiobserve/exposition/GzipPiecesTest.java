package io.hamiobserve.exposition;

import io.hamiobserve.exposition.testing.GzipMemberReader;
import io.hamiobserve.exposition.testing.Promtool;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A segmented exposition written compressed: one gzip member (RFC 1952) whose deflate stream is the
 * segments' pieces one after the other, and whose decompressed bytes are the uncompressed
 * exposition, byte for byte, read by Java's reader and by a strict reader that stops after the
 * first member (as curl's does); after a change, only the changed segments' pieces are new.
 */
class GzipPiecesTest {
    private static SegmentedExposition exposition(Map<String, List<Double>> racks, RenderCache cache,
                                                  FamilySelection selection) {
        // The racks of SegmentedExpositionTest, with the legacy twins.
        SegmentedExposition exposition = new SegmentedExposition(cache, SegmentedExpositionTest.OLD_NAMES, selection);
        SegmentedExpositionTest.describe(racks, exposition);
        Families events = new Families();
        events.of(SegmentedExpositionTest.EVENTS).add(3, "restart \"quoted\"\n");
        exposition.append(events);
        return exposition;
    }

    private static Map<String, List<Double>> racks(Random random, int count) {
        Map<String, List<Double>> racks = new TreeMap<>();
        for (int r = 0; r < count; r++) {
            List<Double> slots = new ArrayList<>();
            for (int s = 1 + random.nextInt(4); s > 0; s--) {
                slots.add((double) random.nextInt(1000));
            }
            racks.put("rack-" + r, slots);
        }
        return racks;
    }

    private static byte[] plain(Exposition exposition, ExpositionFormat format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        exposition.write(out, format);
        return out.toByteArray();
    }

    private static byte[] gzip(Exposition exposition, ExpositionFormat format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        exposition.writeGzip(out, format);
        return out.toByteArray();
    }

    /** Java's reader, which would read every member, as Go's does. */
    private static byte[] gunzip(byte[] body) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            return in.readAllBytes();
        }
    }

    private static List<byte[]> members(byte[] body) throws java.util.zip.DataFormatException {
        return GzipMemberReader.members(body);
    }

    @Test
    void theOneMemberDecompressesToTheExpositionByteForByteInBothFormatsFreshAndKept() throws Exception {
        Random random = new Random(3);
        RenderCache kept = new RenderCache();
        for (int round = 0; round < 20; round++) {
            Map<String, List<Double>> racks = racks(random, SegmentedExposition.PIECES_THRESHOLD + random.nextInt(30));
            for (ExpositionFormat format : ExpositionFormat.values()) {
                byte[] expected = plain(exposition(racks, new RenderCache(), FamilySelection.ALL), format);
                for (RenderCache cache : List.of(new RenderCache(), kept)) {
                    byte[] body = gzip(exposition(racks, cache, FamilySelection.ALL), format);
                    assertArrayEquals(expected, gunzip(body), "round " + round + ", " + format);
                    // One member, all of it: what a reader that stops after the first member reads.
                    List<byte[]> members = members(body);
                    assertEquals(1, members.size(), "round " + round + ", " + format);
                    assertArrayEquals(expected, members.getFirst());
                    // Every segment's piece of every family copied as it is kept: one piece per rack
                    // and family at least, each compressed apart.
                    int pieces = 0;
                    for (SegmentedExposition.RenderedSegment segment : cache.forFormat(format).segments("racks").values()) {
                        for (int f = 0; f < segment.names().size(); f++) {
                            assertTrue(contains(body, GzipPieces.deflated(segment.deflated().get(f))));
                            pieces++;
                        }
                    }
                    assertTrue(pieces > racks.size(), pieces + " pieces for " + racks.size() + " racks");
                }
            }
        }
    }

    @Test
    void theGunzippedExpositionPassesPromtool() throws Exception {
        Map<String, List<Double>> racks = racks(new Random(9), SegmentedExposition.PIECES_THRESHOLD + 1);
        RenderCache cache = new RenderCache();
        // The legacy twin's camelCase name is a lint finding of promtool, not an error: left out here.
        FamilySelection modern = FamilySelection.of(java.util.Set.of(), List.of(), List.of(), List.of("TestSlots"));
        gzip(exposition(racks, cache, modern), ExpositionFormat.PROMETHEUS_TEXT);
        racks.put("rack-3", List.of(5.0));
        String text = new String(gunzip(gzip(exposition(racks, cache, modern),
                ExpositionFormat.PROMETHEUS_TEXT)), StandardCharsets.UTF_8);
        assertTrue(text.contains("test_rack_slots{rack=\"rack-3\",slot=\"0\"} 5.0"), text);
        Promtool.assertClean(text);
    }

    @Test
    void afterAChangeOnlyTheChangedSegmentsAreCompressedAgain() throws Exception {
        Map<String, List<Double>> racks = racks(new Random(5), SegmentedExposition.PIECES_THRESHOLD + 16);
        RenderCache cache = new RenderCache();
        ExpositionFormat format = ExpositionFormat.OPENMETRICS_TEXT;
        gzip(exposition(racks, cache, FamilySelection.ALL), format);
        Map<Object, SegmentedExposition.RenderedSegment> before = Map.copyOf(cache.forFormat(format).segments("racks"));
        before.values().forEach(segment -> assertTrue(segment.compressed(), "every segment written compressed"));

        Map<String, List<Double>> changed = new TreeMap<>(racks);
        changed.put("rack-7", List.of(1.0, 2.0, 3.0));
        byte[] body = gzip(exposition(changed, cache, FamilySelection.ALL), format);
        assertArrayEquals(plain(exposition(changed, new RenderCache(), FamilySelection.ALL), format), gunzip(body));
        Map<Object, SegmentedExposition.RenderedSegment> after = cache.forFormat(format).segments("racks");
        int anew = 0;
        for (Map.Entry<Object, SegmentedExposition.RenderedSegment> segment : after.entrySet()) {
            SegmentedExposition.RenderedSegment old = before.get(segment.getKey());
            if (old == null) {
                anew++;
                assertEquals(List.of("rack-7", changed.get("rack-7")), segment.getKey());
                continue;
            }
            // The same segment, its pieces the same arrays: copied into the body, not compressed again.
            assertSame(old, segment.getValue());
            for (int f = 0; f < old.names().size(); f++) {
                assertSame(old.deflated().get(f), segment.getValue().deflated().get(f));
            }
        }
        assertEquals(1, anew);
        // And the body, one member, holds the kept pieces as they are.
        assertEquals(1, members(body).size());
        SegmentedExposition.RenderedSegment rack0 = after.get(List.of("rack-0", racks.get("rack-0")));
        byte[] rack0Slots = rack0.deflated("test_rack_slots");
        assertNotSame(null, rack0Slots);
        assertTrue(contains(body, GzipPieces.deflated(rack0Slots)), "rack-0's piece copied whole into the body");
    }

    @Test
    void aSelectionLeavesFamiliesOutWholeInBothWritesAndTheKeptRenderingsStayCorrect() throws Exception {
        Map<String, List<Double>> racks = racks(new Random(13), 10);
        FamilySelection noPower = FamilySelection.of(java.util.Set.of(), List.of(), List.of(),
                List.of("test_rack_power_.*", "TestSlots"));
        FamilySelection optIn = FamilySelection.of(java.util.Set.of(SegmentedExpositionTest.EVENTS.name()), List.of(), List.of(), List.of());
        for (ExpositionFormat format : ExpositionFormat.values()) {
            RenderCache cache = new RenderCache();
            for (int scrape = 0; scrape < 2; scrape++) {
                String text = new String(plain(exposition(racks, cache, noPower), format), StandardCharsets.UTF_8);
                assertTrue(text.contains("test_rack_slots{"), text);
                assertTrue(text.contains("test_events_total{"), text);
                assertTrue(!text.contains("test_rack_power_watts") && !text.contains("TestSlots"), text);
                assertEquals(text, new String(gunzip(gzip(exposition(racks, cache, noPower), format)),
                        StandardCharsets.UTF_8));
            }
            String withoutEvents = new String(plain(exposition(racks, new RenderCache(), optIn), format),
                    StandardCharsets.UTF_8);
            assertTrue(!withoutEvents.contains("test_events") && withoutEvents.contains("TestSlots{"), withoutEvents);
        }
    }

    /**
     * Once compressed, a segment keeps its pieces only: a scrape without gzip inflates them, and
     * the other format's equal segment is still found equal and kept once.
     */
    @Test
    void segmentsKeptAsPiecesOnlyStillWriteUncompressedAndAreSharedAcrossFormats() throws Exception {
        Random random = new Random(17);
        RenderCache cache = new RenderCache();
        int count = SegmentedExposition.PIECES_THRESHOLD + 12;
        Map<String, List<Double>> racks = racks(random, count);
        for (int round = 0; round < 10; round++) {
            if (round > 0) {
                racks.put("rack-" + random.nextInt(count), List.of((double) round));
            }
            ExpositionFormat first = round % 2 == 0 ? ExpositionFormat.OPENMETRICS_TEXT : ExpositionFormat.PROMETHEUS_TEXT;
            ExpositionFormat second = first == ExpositionFormat.OPENMETRICS_TEXT ? ExpositionFormat.PROMETHEUS_TEXT
                    : ExpositionFormat.OPENMETRICS_TEXT;
            byte[] zipped = gzip(exposition(racks, cache, FamilySelection.ALL), first);
            assertArrayEquals(plain(exposition(racks, new RenderCache(), FamilySelection.ALL), first), gunzip(zipped));
            // Uncompressed from pieces only, in the same format and in the other.
            for (ExpositionFormat format : List.of(first, second)) {
                assertArrayEquals(plain(exposition(racks, new RenderCache(), FamilySelection.ALL), format),
                        plain(exposition(racks, cache, FamilySelection.ALL), format), "round " + round + ", " + format);
            }
            Map<Object, SegmentedExposition.RenderedSegment> a = cache.forFormat(first).segments("racks");
            Map<Object, SegmentedExposition.RenderedSegment> b = cache.forFormat(second).segments("racks");
            assertEquals(a.keySet(), b.keySet());
            a.forEach((key, segment) -> assertSame(segment, b.get(key), "one copy for both formats"));
        }
    }

    /** A small exposition (fewer segments than the threshold) is one gzip stream, as compressed as can be. */
    @Test
    void aSmallExpositionIsOneGzipStream() throws Exception {
        Map<String, List<Double>> racks = racks(new Random(21), SegmentedExposition.PIECES_THRESHOLD / 4);
        for (ExpositionFormat format : ExpositionFormat.values()) {
            RenderCache cache = new RenderCache();
            for (int scrape = 0; scrape < 2; scrape++) {
                byte[] body = gzip(exposition(racks, cache, FamilySelection.ALL), format);
                assertEquals(1, members(body).size(), "one member");
                assertArrayEquals(plain(exposition(racks, new RenderCache(), FamilySelection.ALL), format),
                        gunzip(body));
            }
        }
    }

    /**
     * The CRC-32 of bytes A then B, combined from A's, B's and B's length, is the CRC-32 of A and B
     * together: the body's trailer is built that way from every piece's.
     */
    @Test
    void checksumsOfPiecesCombineIntoTheChecksumOfTheirBytes() {
        Random random = new Random(29);
        for (int round = 0; round < 500; round++) {
            byte[] bytes = new byte[random.nextInt(round < 20 ? 8 : 70_000)];
            random.nextBytes(bytes);
            int split = bytes.length == 0 ? 0 : random.nextInt(bytes.length + 1);
            java.util.zip.CRC32 whole = new java.util.zip.CRC32();
            whole.update(bytes);
            java.util.zip.CRC32 before = new java.util.zip.CRC32();
            before.update(bytes, 0, split);
            java.util.zip.CRC32 after = new java.util.zip.CRC32();
            after.update(bytes, split, bytes.length - split);
            assertEquals((int) whole.getValue(), GzipPieces.combine((int) before.getValue(), (int) after.getValue(),
                    GzipPieces.shiftPast(bytes.length - split)), "round " + round + ", split " + split);
        }
    }

    /**
     * Pieces compressed apart, in any order, are one deflate stream once written one after the
     * other; a body of none is an empty gzip stream; a piece inflates alone to its bytes.
     */
    @Test
    void piecesCompressedApartAreOneStreamWrittenInAnyOrder() throws Exception {
        Random random = new Random(31);
        for (int round = 0; round < 50; round++) {
            List<byte[]> parts = new ArrayList<>();
            for (int p = random.nextInt(6); p > 0; p--) {
                byte[] part = new byte[random.nextInt(3) == 0 ? 0 : random.nextInt(40_000)];
                for (int i = 0; i < part.length; i++) {
                    String alphabet = "abc \"{}=\n0123456789";
                    part[i] = (byte) (alphabet.charAt(random.nextInt(alphabet.length())) + (random.nextInt(50) == 0 ? 100 : 0));
                }
                parts.add(part);
            }
            // Compressed last piece first: a piece does not depend on what comes before it.
            List<byte[]> pieces = new ArrayList<>();
            for (int p = parts.size() - 1; p >= 0; p--) {
                pieces.addFirst(GzipPieces.piece(parts.get(p), 0, parts.get(p).length));
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            GzipPieces.Writer writer = new GzipPieces.Writer(body);
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            for (int p = 0; p < parts.size(); p++) {
                if (random.nextBoolean()) {
                    byte[] loose = ("# between " + p + "\n").getBytes(StandardCharsets.UTF_8);
                    writer.write(loose);
                    expected.writeBytes(loose);
                }
                writer.piece(pieces.get(p));
                expected.writeBytes(parts.get(p));
                ByteArrayOutputStream alone = new ByteArrayOutputStream();
                GzipPieces.inflate(pieces.get(p), alone);
                assertArrayEquals(parts.get(p), alone.toByteArray());
                assertTrue(GzipPieces.holds(pieces.get(p), parts.get(p), 0, parts.get(p).length));
            }
            writer.finish();
            List<byte[]> members = members(body.toByteArray());
            assertEquals(1, members.size(), "round " + round);
            assertArrayEquals(expected.toByteArray(), members.getFirst(), "round " + round);
            assertArrayEquals(expected.toByteArray(), gunzip(body.toByteArray()), "round " + round);
        }
    }

    /**
     * A kept piece that is not what it claims (its deflate bytes damaged, cut short, or its length
     * wrong) is refused with a clear error when inflated, never written out as other bytes.
     */
    @Test
    void aDamagedPieceIsRefusedNotInflatedToOtherBytes() {
        byte[] text = "test_rack_slots{rack=\"r\",slot=\"0\"} 1.0\n".repeat(200).getBytes(StandardCharsets.UTF_8);
        byte[] piece = GzipPieces.piece(text, 0, text.length);
        byte[] cut = java.util.Arrays.copyOf(piece, piece.length - 8);
        byte[] garbled = piece.clone();
        for (int i = 12; i < garbled.length; i++) {
            garbled[i] = (byte) 0xff;
        }
        byte[] longer = piece.clone();
        longer[4]++; // the length it claims, one more than it holds
        for (byte[] damaged : List.of(cut, garbled, longer)) {
            IllegalStateException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> GzipPieces.inflate(damaged, new ByteArrayOutputStream()));
            assertTrue(refused.getMessage().startsWith("a kept gzip piece "), refused.getMessage());
            assertTrue(!GzipPieces.holds(longer, text, 0, text.length));
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
