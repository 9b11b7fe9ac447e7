package io.hamiobserve.exposition;

import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.hamiobserve.exposition.testing.CountingSegments;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine on a catalogue of its own (no metric catalogue of the product): a fleet of "racks",
 * each a segment of a per-rack section, plus a fleet-wide section. Held to one library writer call
 * over the same points ({@link AllSegments}) and to a rendering with nothing kept, byte for byte.
 */
class SegmentedExpositionTest {
    static final MetricFamily SLOTS = MetricFamily.gauge("test_rack_slots", "Slots of a rack", "rack", "slot");
    static final MetricFamily POWER = MetricFamily.gauge("test_rack_power_watts", "Power", "rack");
    static final MetricFamily RACKS = MetricFamily.gauge("test_racks", "Racks");
    static final MetricFamily EVENTS = MetricFamily.counter("test_events", "Events", "kind");
    static final MetricFamily OLD_SLOTS = MetricFamily.gauge("TestSlots", "Slots", "rackname", "slotid");
    static final FamilyDecorator OLD_NAMES = Twins.builder().renamed(SLOTS, OLD_SLOTS).build();

    /** Racks by name, each with its slots' values. */
    static void describe(Map<String, List<Double>> racks, Segments into) {
        Segments.Section perRack = into.section("racks", families -> {
            families.of(SLOTS);
            families.of(POWER);
        });
        racks.forEach((rack, slots) -> perRack.segment(List.of(rack, slots), families -> {
            MetricFamily.Points points = families.get(SLOTS);
            for (int i = 0; i < slots.size(); i++) {
                points.add(slots.get(i), rack, Integer.toString(i));
            }
            families.get(POWER).add(slots.stream().mapToDouble(Double::doubleValue).sum(), rack);
        }));
        Segments.Section fleet = into.section("fleet", families -> families.of(RACKS));
        fleet.segment(racks.size(), families -> families.get(RACKS).add(racks.size()));
    }

    /** Producer runs: the segments rendered anew. */
    private final AtomicLong rendered = new AtomicLong();

    private String segmented(Map<String, List<Double>> racks, RenderCache cache, FamilyDecorator decorator,
                             ExpositionFormat format) throws IOException {
        SegmentedExposition exposition = new SegmentedExposition(cache, decorator);
        describe(racks, new CountingSegments(exposition, rendered));
        Families events = new Families();
        events.of(EVENTS).add(3, "restart");
        exposition.append(events);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        exposition.write(out, format);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String oneCall(Map<String, List<Double>> racks, FamilyDecorator decorator,
                                  ExpositionFormat format) throws IOException {
        AllSegments all = new AllSegments(decorator);
        describe(racks, all);
        Families events = new Families();
        events.of(EVENTS).add(3, "restart");
        List<io.prometheus.metrics.model.snapshots.MetricSnapshot> snapshots = new ArrayList<>();
        all.snapshots().forEach(snapshots::add);
        events.snapshots().forEach(snapshots::add);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        format.writer().write(out, new MetricSnapshots(snapshots));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Family name to its lines, samples sorted; in exposition order (segments order samples per segment). */
    private static Map<String, List<String>> byFamily(String exposition) {
        Map<String, List<String>> families = new LinkedHashMap<>();
        String current = "";
        for (String line : exposition.split("\n")) {
            if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
                current = line.split(" ")[2];
            }
            families.computeIfAbsent(current, key -> new ArrayList<>()).add(line);
        }
        families.values().forEach(lines -> lines.sort(null));
        return families;
    }

    private static Map<String, List<Double>> randomRacks(Random random) {
        Map<String, List<Double>> racks = new TreeMap<>();
        int count = 1 + random.nextInt(40);
        for (int r = 0; r < count; r++) {
            List<Double> slots = new ArrayList<>();
            for (int s = random.nextInt(4); s > 0; s--) {
                slots.add((double) random.nextInt(1000));
            }
            racks.put("rack-" + random.nextInt(100), slots);
        }
        return racks;
    }

    @Test
    void segmentsHoldTheSeriesOfOneWriterCallInTheSameFamilyOrderWithAndWithoutADecorator() throws IOException {
        Random random = new Random(7);
        for (int round = 0; round < 30; round++) {
            Map<String, List<Double>> racks = randomRacks(random);
            for (FamilyDecorator decorator : List.of(FamilyDecorator.NONE, OLD_NAMES)) {
                for (ExpositionFormat format : ExpositionFormat.values()) {
                    Map<String, List<String>> expected = byFamily(oneCall(racks, decorator, format));
                    Map<String, List<String>> actual = byFamily(segmented(racks, new RenderCache(), decorator, format));
                    assertEquals(List.copyOf(expected.keySet()), List.copyOf(actual.keySet()));
                    assertEquals(expected, actual);
                }
            }
        }
    }

    @Test
    void aKeptRenderingWritesByteForByteWhatAFreshOneWritesAndOnlyChangedSegmentsRenderAgain() throws IOException {
        Random random = new Random(11);
        RenderCache cache = new RenderCache();
        Map<String, List<Double>> racks = randomRacks(random);
        for (int round = 0; round < 30; round++) {
            long before = rendered.get();
            // Change one rack (or none), then scrape: only that rack's segment renders again.
            Map<String, List<Double>> changed = new TreeMap<>(racks);
            boolean change = random.nextBoolean();
            if (change) {
                String rack = List.copyOf(changed.keySet()).get(random.nextInt(changed.size()));
                changed.put(rack, List.of((double) random.nextInt(1000), -1.0));
            }
            for (ExpositionFormat format : ExpositionFormat.values()) {
                assertEquals(segmented(changed, new RenderCache(), OLD_NAMES, format),
                        segmented(changed, cache, OLD_NAMES, format));
            }
            // Per format: the changed rack's segment, when it changed; the fleet segment is unchanged.
            // The fresh renderings above count too: one per segment and format.
            long anew = rendered.get() - before - 2L * (changed.size() + 1);
            assertEquals(round == 0 ? 2L * (changed.size() + 1) : change && !changed.equals(racks) ? 2 : 0,
                    anew, "round " + round);
            racks = changed;
        }
    }

    @Test
    void aSegmentWrittenAlikeInBothFormatsIsKeptOnce() throws IOException {
        Map<String, List<Double>> racks = Map.of("rack-1", List.of(1.0, 2.0), "rack-2", List.of(3.0));
        RenderCache cache = new RenderCache();
        for (ExpositionFormat format : ExpositionFormat.values()) {
            segmented(racks, cache, FamilyDecorator.NONE, format);
        }
        Map<Object, SegmentedExposition.RenderedSegment> text = cache.forFormat(ExpositionFormat.PROMETHEUS_TEXT).segments("racks");
        Map<Object, SegmentedExposition.RenderedSegment> openMetrics = cache.forFormat(ExpositionFormat.OPENMETRICS_TEXT).segments("racks");
        assertEquals(text.keySet(), openMetrics.keySet());
        // Gauges read alike in Prometheus text and OpenMetrics: one copy of their bytes for both.
        text.forEach((key, segment) -> assertSame(segment, openMetrics.get(key)));
    }

    @Test
    void renderingsKeptForAnotherDecorationAreNotReused() throws IOException {
        Map<String, List<Double>> racks = Map.of("rack-1", List.of(1.0, 2.0));
        RenderCache cache = new RenderCache();
        ExpositionFormat format = ExpositionFormat.PROMETHEUS_TEXT;
        String plain = segmented(racks, cache, FamilyDecorator.NONE, format);
        assertEquals(segmented(racks, new RenderCache(), OLD_NAMES, format), segmented(racks, cache, OLD_NAMES, format));
        assertEquals(plain, segmented(racks, cache, FamilyDecorator.NONE, format));
    }

    /**
     * A segment holding a family the project's text writer does not take (a label name the library
     * escapes) is written by the library's writer, beside segments the project's writer writes:
     * still what one library call over the same points writes, in both formats.
     */
    @Test
    void aSegmentWithAFamilyOnlyTheLibraryWritesIsWrittenAsTheLibraryWritesIt() throws IOException {
        MetricFamily quoted = MetricFamily.gauge("test_rack_location", "Where a rack stands", "rack", "site.room");
        assertFalse(TextWriter.Plain.family(quoted), "a family the project's writer leaves to the library");
        Map<String, List<Double>> racks = randomRacks(new Random(5));
        String odd = racks.keySet().iterator().next();
        Consumer<Segments> describe = into -> {
            describe(racks, into);
            Segments.Section located = into.section("located", families -> families.of(quoted));
            located.segment(odd, families -> families.get(quoted).add(1, odd, "hall \"A\""));
        };
        for (ExpositionFormat format : ExpositionFormat.values()) {
            AllSegments all = new AllSegments(FamilyDecorator.NONE);
            describe.accept(all);
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            format.writer().write(expected, all.snapshots());
            SegmentedExposition segmented = new SegmentedExposition(new RenderCache(), FamilyDecorator.NONE);
            describe.accept(segmented);
            ByteArrayOutputStream actual = new ByteArrayOutputStream();
            segmented.write(actual, format);
            String library = expected.toString(StandardCharsets.UTF_8);
            assertTrue(library.contains("site_room=\"hall \\\"A\\\"\""), library);
            assertEquals(byFamily(library), byFamily(actual.toString(StandardCharsets.UTF_8)));
        }
    }
}
