package io.hamiobserve.exposition;

import io.hamiobserve.exposition.testing.CountingSegments;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Segments made of parts ({@link Segments.Section#segment(Object, Object, java.util.function.Consumer)}):
 * racks of servers, each server a part kept by its record and its owner. Whatever the servers do
 * between two expositions, what a rendering writes from the parts it kept equals a rendering with
 * nothing kept, byte for byte, and only the parts it had not seen are written again.
 */
class SegmentPartsTest {
    private static final MetricFamily WATTS = MetricFamily.gauge("test_server_watts", "Power", "rack", "server",
            "owner");
    private static final MetricFamily SLOTS = MetricFamily.gauge("test_server_slots", "Slots", "rack", "server",
            "slot");
    private static final MetricFamily RACK_FINGERPRINT = MetricFamily.gauge("test_rack_fingerprint", "Fingerprint",
            "rack");
    private static final MetricFamily OLD_WATTS = MetricFamily.gauge("TestWatts", "Power", "rackname", "servername",
            "ownername");
    private static final FamilyDecorator OLD_NAMES = Twins.builder().renamed(WATTS, OLD_WATTS).build();

    /** A server: a new record whenever what it writes changes (as a pod is). */
    private record Server(String name, double watts, int slots) {
    }

    private final AtomicLong segmentsWritten = new AtomicLong();
    private final AtomicLong partsWritten = new AtomicLong();

    /** Each rack a segment of its servers, keyed by nothing (written every time: only its parts are kept). */
    private static void describe(Map<String, List<Server>> racks, Map<String, String> owners, Segments into) {
        Segments.Section section = into.section("racks", families -> {
            families.of(WATTS);
            families.of(SLOTS);
            families.of(RACK_FINGERPRINT);
        });
        racks.forEach((rack, servers) -> section.segment(null, rack, parts -> {
            for (Server server : servers) {
                String owner = owners.getOrDefault(server.name(), "none");
                parts.part(server, owner, (families, fingerprint) -> {
                    families.get(WATTS).add(server.watts(), rack, server.name(), owner);
                    for (int slot = server.slots() - 1; slot >= 0; slot--) {
                        families.get(SLOTS).add(slot, rack, server.name(), Integer.toString(slot));
                    }
                    fingerprint.add(server.name()).add(owner).add(server.watts()).add(server.slots());
                });
            }
            parts.families().get(RACK_FINGERPRINT).add(parts.partsFingerprint(), rack);
        }));
    }

    private String segmented(Map<String, List<Server>> racks, Map<String, String> owners, RenderCache cache,
                             FamilyDecorator decorator, ExpositionFormat format, boolean gzip) throws IOException {
        SegmentedExposition exposition = new SegmentedExposition(cache, decorator);
        describe(racks, owners, new CountingSegments(exposition, segmentsWritten, partsWritten));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (gzip) {
            exposition.writeGzip(out, format);
            try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(out.toByteArray()))) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }
        exposition.write(out, format);
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Enough racks for the compressed body to be made of kept pieces ({@link SegmentedExposition#PIECES_THRESHOLD}). */
    private static Map<String, List<Server>> racks(Random random, int count) {
        Map<String, List<Server>> racks = new LinkedHashMap<>();
        for (int rack = 0; rack < count; rack++) {
            List<Server> servers = new ArrayList<>();
            for (int server = 0; server < 1 + random.nextInt(6); server++) {
                // Names a pod could carry: quotes, a newline, a backslash, markup.
                servers.add(new Server("s" + rack + "-" + server + (server == 1 ? " \"<b>\n\\" : ""),
                        random.nextInt(500), random.nextInt(3)));
            }
            racks.put(String.format("rack-%03d", rack), servers);
        }
        return racks;
    }

    @Test
    void afterRandomChangesTheKeptPartsWriteWhatNothingKeptWrites() throws IOException {
        for (long seed = 1; seed <= 8; seed++) {
            Random random = new Random(seed);
            Map<String, List<Server>> racks = racks(random, 80);
            Map<String, String> owners = new LinkedHashMap<>();
            FamilyDecorator decorator = seed % 2 == 0 ? OLD_NAMES : FamilyDecorator.NONE;
            Map<String, RenderCache> kept = new LinkedHashMap<>();
            for (int step = 0; step < 30; step++) {
                if (step > 0) {
                    change(random, racks, owners, step % 4 == 0 ? 12 : 1);
                }
                for (ExpositionFormat format : ExpositionFormat.values()) {
                    for (boolean gzip : new boolean[] {true, false}) {
                        RenderCache cache = kept.computeIfAbsent(format + "/" + gzip, any -> new RenderCache());
                        String fresh = segmented(racks, owners, new RenderCache(), decorator, format, gzip);
                        assertEquals(fresh, segmented(racks, owners, cache, decorator, format, gzip),
                                "seed " + seed + ", step " + step + ", " + format + (gzip ? ", gzip" : ""));
                    }
                }
            }
        }
    }

    /** {@code count} changes: a server changed, added anywhere, removed, moved, or its owner changed. */
    private static void change(Random random, Map<String, List<Server>> racks, Map<String, String> owners, int count) {
        List<String> names = new ArrayList<>(racks.keySet());
        for (int i = 0; i < count; i++) {
            List<Server> servers = racks.get(names.get(random.nextInt(names.size())));
            int at = servers.isEmpty() ? 0 : random.nextInt(servers.size());
            switch (servers.isEmpty() ? 1 : random.nextInt(5)) {
                case 0 -> servers.set(at, new Server(servers.get(at).name(), random.nextInt(500), random.nextInt(3)));
                case 1 -> servers.add(servers.isEmpty() ? 0 : random.nextInt(servers.size() + 1),
                        new Server("new-" + random.nextInt(1_000_000), random.nextInt(500), random.nextInt(3)));
                case 2 -> servers.remove(at);
                case 3 -> servers.add(random.nextInt(servers.size()), servers.remove(at));
                default -> owners.put(servers.get(at).name(), "owner-" + random.nextInt(3));
            }
        }
    }

    @Test
    void onlyThePartsNotSeenBeforeAreWrittenAgain() throws IOException {
        Map<String, List<Server>> racks = racks(new Random(7), 80);
        Map<String, String> owners = new LinkedHashMap<>();
        RenderCache cache = new RenderCache();
        int servers = racks.values().stream().mapToInt(List::size).sum();
        segmented(racks, owners, cache, FamilyDecorator.NONE, ExpositionFormat.OPENMETRICS_TEXT, true);
        assertEquals(servers, partsWritten.get(), "every server once");

        // Every rack's segment is written again (its key is null), none of its servers.
        partsWritten.set(0);
        segmented(racks, owners, cache, FamilyDecorator.NONE, ExpositionFormat.OPENMETRICS_TEXT, true);
        assertEquals(0, partsWritten.get());

        // One server changed, one added at the front of another rack (every later server shifts),
        // one owner changed: three servers written.
        List<Server> first = racks.get("rack-000");
        first.set(0, new Server(first.get(0).name(), 1_000, 1));
        racks.get("rack-001").addFirst(new Server("added", 1, 1));
        owners.put(racks.get("rack-002").getFirst().name(), "team-a");
        partsWritten.set(0);
        String kept = segmented(racks, owners, cache, FamilyDecorator.NONE, ExpositionFormat.OPENMETRICS_TEXT, true);
        assertEquals(3, partsWritten.get());
        assertEquals(segmented(racks, owners, new RenderCache(), FamilyDecorator.NONE,
                ExpositionFormat.OPENMETRICS_TEXT, true), kept);
        assertTrue(kept.contains("test_server_watts{owner=\"team-a\",rack=\"rack-002\""), kept);
    }

    @Test
    void aPartWithoutASourceIsWrittenEveryTimeAndAnotherLineageKeepsNothing() throws IOException {
        AtomicLong written = new AtomicLong();
        RenderCache cache = new RenderCache();
        Server server = new Server("only", 3, 1);
        for (String lineage : List.of("a", "a", "b")) {
            SegmentedExposition exposition = new SegmentedExposition(cache, FamilyDecorator.NONE);
            Segments.Section section = exposition.section("racks", families -> families.of(WATTS));
            section.segment(null, lineage, parts -> {
                parts.part(null, null, (families, fingerprint) -> {
                    written.incrementAndGet();
                    families.get(WATTS).add(1, "r", "unkept", "x");
                });
                parts.part(server, "x", (families, fingerprint) -> {
                    written.incrementAndGet();
                    families.get(WATTS).add(server.watts(), "r", server.name(), "x");
                });
            });
            exposition.write(new ByteArrayOutputStream(), ExpositionFormat.PROMETHEUS_TEXT);
        }
        // a: both; a again: the part without a source only; b: both.
        assertEquals(2 + 1 + 2, written.get());
    }

    @Test
    void linesComePartAfterPartEachSortedAndTheFingerprintIsTheOneOfEveryPointsInOneCall() throws IOException {
        Map<String, List<Server>> racks = new LinkedHashMap<>();
        racks.put("rack-1", new ArrayList<>(List.of(new Server("zeta", 1, 2), new Server("alpha", 2, 0))));
        Map<String, String> owners = Map.of();
        String text = segmented(racks, owners, new RenderCache(), FamilyDecorator.NONE,
                ExpositionFormat.PROMETHEUS_TEXT, false);
        // The parts' order, not the label values' across parts; each part's own lines sorted.
        assertTrue(text.contains("""
                test_server_slots{rack="rack-1",server="zeta",slot="0"} 0.0
                test_server_slots{rack="rack-1",server="zeta",slot="1"} 1.0
                """), text);
        assertTrue(text.contains("""
                test_server_watts{owner="none",rack="rack-1",server="zeta"} 1.0
                test_server_watts{owner="none",rack="rack-1",server="alpha"} 2.0
                """), text);

        // One writer call over every point (AllSegments) sorts across parts, and folds the same fingerprint.
        AllSegments all = new AllSegments(FamilyDecorator.NONE);
        describe(racks, owners, all);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExpositionFormat.PROMETHEUS_TEXT.writer().write(out, all.snapshots());
        String oneCall = out.toString(StandardCharsets.UTF_8);
        assertEquals(fingerprint(oneCall), fingerprint(text));
        assertEquals(oneCall.lines().sorted().toList(), text.lines().sorted().toList());
    }

    private static String fingerprint(String text) {
        Matcher matcher = Pattern.compile("(?m)^test_rack_fingerprint\\{rack=\"rack-1\"} (\\S+)$").matcher(text);
        assertTrue(matcher.find(), text);
        return matcher.group(1);
    }
}
