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
 * A segmented exposition written compressed: a sequence of gzip members (RFC 1952) whose
 * decompressed bytes are the uncompressed exposition, byte for byte, read whole by Java's reader
 * and member by member by a strict reader of the format; after a change, only the changed
 * segments' members are new.
 */
class GzipMembersTest {
    private static final MetricFamily SLOTS = MetricFamily.gauge("test_rack_slots", "Slots of a rack", "rack", "slot");
    private static final MetricFamily POWER = MetricFamily.gauge("test_rack_power_watts", "Power", "rack");
    private static final MetricFamily RACKS = MetricFamily.gauge("test_racks", "Racks");
    private static final MetricFamily EVENTS = MetricFamily.counter("test_events", "Events", "kind");
    private static final MetricFamily OLD_SLOTS = MetricFamily.gauge("TestSlots", "Slots", "rackname", "slotid");
    private static final FamilyDecorator OLD_NAMES = Twins.builder().renamed(SLOTS, OLD_SLOTS).build();

    private static SegmentedExposition exposition(Map<String, List<Double>> racks, RenderCache cache,
                                                  FamilySelection selection) {
        SegmentedExposition exposition = new SegmentedExposition(cache, OLD_NAMES, selection);
        Segments.Section perRack = exposition.section("racks", families -> {
            families.of(SLOTS);
            families.of(POWER);
        });
        racks.forEach((rack, slots) -> perRack.segment(List.of(rack, slots), families -> {
            for (int i = 0; i < slots.size(); i++) {
                families.get(SLOTS).add(slots.get(i), rack, Integer.toString(i));
            }
            families.get(POWER).add(slots.stream().mapToDouble(Double::doubleValue).sum(), rack);
        }));
        Segments.Section fleet = exposition.section("fleet", families -> families.of(RACKS));
        fleet.segment(racks.size(), families -> families.get(RACKS).add(racks.size()));
        Families events = new Families();
        events.of(EVENTS).add(3, "restart \"quoted\"\n");
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

    /** Java's reader, which reads every member, as Go's does. */
    private static byte[] gunzip(byte[] body) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            return in.readAllBytes();
        }
    }

    private static List<byte[]> members(byte[] body) throws java.util.zip.DataFormatException {
        return GzipMemberReader.members(body);
    }

    @Test
    void theMembersDecompressToTheExpositionByteForByteInBothFormatsFreshAndKept() throws Exception {
        Random random = new Random(3);
        RenderCache kept = new RenderCache();
        for (int round = 0; round < 20; round++) {
            Map<String, List<Double>> racks = racks(random, SegmentedExposition.MEMBERS_THRESHOLD + random.nextInt(30));
            for (ExpositionFormat format : ExpositionFormat.values()) {
                byte[] expected = plain(exposition(racks, new RenderCache(), FamilySelection.ALL), format);
                for (RenderCache cache : List.of(new RenderCache(), kept)) {
                    byte[] body = gzip(exposition(racks, cache, FamilySelection.ALL), format);
                    assertArrayEquals(expected, gunzip(body), "round " + round + ", " + format);
                    List<byte[]> members = members(body);
                    ByteArrayOutputStream joined = new ByteArrayOutputStream();
                    members.forEach(joined::writeBytes);
                    assertArrayEquals(expected, joined.toByteArray());
                    // A member per rack and family at least: the segments' lines are members of their own.
                    assertTrue(members.size() > racks.size(), members.size() + " members for " + racks.size()
                            + " racks");
                }
            }
        }
    }

    @Test
    void theGunzippedExpositionPassesPromtool() throws Exception {
        Map<String, List<Double>> racks = racks(new Random(9), SegmentedExposition.MEMBERS_THRESHOLD + 1);
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
        Map<String, List<Double>> racks = racks(new Random(5), SegmentedExposition.MEMBERS_THRESHOLD + 16);
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
            // The same segment, its members the same arrays: copied into the body, not compressed again.
            assertSame(old, segment.getValue());
            for (int f = 0; f < old.names().size(); f++) {
                assertSame(old.members().get(f), segment.getValue().members().get(f));
            }
        }
        assertEquals(1, anew);
        // And the body holds the kept members as they are.
        List<byte[]> members = members(body);
        SegmentedExposition.RenderedSegment rack0 = after.get(List.of("rack-0", racks.get("rack-0")));
        byte[] rack0Slots = rack0.member("test_rack_slots");
        assertNotSame(null, rack0Slots);
        assertTrue(contains(body, rack0Slots), "rack-0's member copied whole into the body");
        assertTrue(members.size() > 40);
    }

    @Test
    void aSelectionLeavesFamiliesOutWholeInBothWritesAndTheKeptRenderingsStayCorrect() throws Exception {
        Map<String, List<Double>> racks = racks(new Random(13), 10);
        FamilySelection noPower = FamilySelection.of(java.util.Set.of(), List.of(), List.of(),
                List.of("test_rack_power_.*", "TestSlots"));
        FamilySelection optIn = FamilySelection.of(java.util.Set.of(EVENTS.name()), List.of(), List.of(), List.of());
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
     * Once compressed, a segment keeps its members only: a scrape without gzip inflates them, and
     * the other format's equal segment is still found equal and kept once.
     */
    @Test
    void segmentsKeptAsMembersOnlyStillWriteUncompressedAndAreSharedAcrossFormats() throws Exception {
        Random random = new Random(17);
        RenderCache cache = new RenderCache();
        int count = SegmentedExposition.MEMBERS_THRESHOLD + 12;
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
            // Uncompressed from members only, in the same format and in the other.
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
        Map<String, List<Double>> racks = racks(new Random(21), SegmentedExposition.MEMBERS_THRESHOLD / 4);
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
