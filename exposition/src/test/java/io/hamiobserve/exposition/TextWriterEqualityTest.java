package io.hamiobserve.exposition;

import io.hamiobserve.exposition.testing.Promtool;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The project's text writer ({@link TextWriter}, behind {@link Exposition#of(List)}) writes what
 * prometheus-metrics' writers write for the same families, byte for byte, in Prometheus text 0.0.4
 * and OpenMetrics: over random collections of gauges and counters with random names (plain, with
 * the suffixes the library reads, and ones it must quote or refuse), HELP texts and label values
 * holding every character the formats escape or encode (backslash, quote, newline, non-ASCII, lone
 * surrogates, empty), and values including NaN, both infinities, -0.0, integers on both sides of
 * 10^7 and 2^53, and huge and tiny doubles. Where the library refuses a collection, so does this.
 */
class TextWriterEqualityTest {
    private static final String[] SUFFIXES = {"", "", "", "_bytes", "_info", "_count", "_sum", "_bucket", "_total",
            "_created", "_seconds", "_ratio"};
    private static final String[] ODD_NAMES = {"a.b", "dotted.name_total", "ünicode", "9starts_with_digit", "",
            "has space", "__reserved"};
    private static final String[] PIECES = {"a", "Z", "_", "\\", "\"", "\n", "é", "漢", "😀", "\uD800", "\uDC00", " ",
            "{", "}", "=", ",", "#", "0", "\t", "\r", "vGPU", "\u0000", "\u007F", "\u0080"};

    @Test
    void writesWhatTheLibraryWritesForRandomCollections() throws IOException {
        Random random = new Random(20_261_130L);
        int plain = 0;
        for (int round = 0; round < 3_000; round++) {
            long seed = random.nextLong();
            if (compare(seed, false)) {
                plain++;
            }
        }
        // Most rounds must take the project's writer, or the equality would be the library's with itself.
        assertTrue(plain > 1_000, "rounds written by the project's writer: " + plain);
    }

    /** Compares one random collection; true when the project's writer wrote it (not the library's). */
    private static boolean compare(long seed, boolean lintClean) throws IOException {
        List<Families> expected = collections(new Random(seed), lintClean);
        List<Families> actual = collections(new Random(seed), lintClean);
        MetricSnapshots snapshots;
        try {
            snapshots = librarySnapshots(expected);
        } catch (RuntimeException refused) {
            assertThrows(RuntimeException.class, () -> {
                Exposition exposition = Exposition.of(actual);
                for (ExpositionFormat format : ExpositionFormat.values()) {
                    exposition.write(OutputStream.nullOutputStream(), format);
                }
            }, "the library refused seed " + seed + " (" + refused + "), the project's writer did not");
            return false;
        }
        Exposition exposition = Exposition.of(actual);
        for (ExpositionFormat format : ExpositionFormat.values()) {
            ByteArrayOutputStream library = new ByteArrayOutputStream();
            try {
                format.writer().write(library, snapshots);
            } catch (RuntimeException refused) {
                // Same names in two collections: the library's writer refuses to merge some.
                assertThrows(RuntimeException.class, () -> exposition.write(OutputStream.nullOutputStream(), format),
                        "the library's writer refused seed " + seed + " (" + refused + "), the project's did not");
                continue;
            }
            ByteArrayOutputStream ours = new ByteArrayOutputStream();
            exposition.write(ours, format);
            if (!java.util.Arrays.equals(library.toByteArray(), ours.toByteArray())) {
                assertEquals(library.toString(StandardCharsets.UTF_8), ours.toString(StandardCharsets.UTF_8),
                        "seed " + seed + ", " + format);
                assertArrayEquals(library.toByteArray(), ours.toByteArray(), "seed " + seed + " bytes: "
                        + HexFormat.of().formatHex(ours.toByteArray()));
            }
        }
        return ((FamiliesExposition) exposition).plain();
    }

    /** The library's snapshots of the collections, as the engine made them before the project's writer. */
    private static MetricSnapshots librarySnapshots(List<Families> collections) {
        List<MetricSnapshot> all = new ArrayList<>();
        for (Families families : collections) {
            families.snapshots().forEach(all::add);
        }
        return new MetricSnapshots(all);
    }

    /** Text 0.0.4 written by the project's writer passes promtool (OpenMetrics is the library's bytes, above). */
    @Test
    void itsTextPassesPromtool() throws IOException, InterruptedException {
        Random random = new Random(7);
        for (int round = 0; round < 12; round++) {
            long seed = random.nextLong();
            assertTrue(compare(seed, true), "a lint-clean collection takes the project's writer, seed " + seed);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Exposition.of(collections(new Random(seed), true)).write(out, ExpositionFormat.PROMETHEUS_TEXT);
            Promtool.assertClean(out.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void refusesANegativeCounterAsTheLibraryDoes() {
        Families families = new Families();
        families.of(MetricFamily.counter("hami_observe_test_events", "Events", "kind")).add(-1, "a");
        assertThrows(IllegalArgumentException.class, families::snapshots);
        Families again = new Families();
        again.of(MetricFamily.counter("hami_observe_test_events", "Events", "kind")).add(-1, "a");
        assertThrows(IllegalArgumentException.class, () -> Exposition.of(List.of(again)));
    }

    @Test
    void writesNothingButTheTrailerForNoSeries() throws IOException {
        Families empty = new Families();
        empty.of(MetricFamily.gauge("hami_observe_empty", "Nothing"));
        for (ExpositionFormat format : ExpositionFormat.values()) {
            ByteArrayOutputStream library = new ByteArrayOutputStream();
            format.writer().write(library, new MetricSnapshots());
            ByteArrayOutputStream ours = new ByteArrayOutputStream();
            Exposition.of(List.of(empty)).write(ours, format);
            assertEquals(library.toString(StandardCharsets.UTF_8), ours.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void writesLargeExpositionsAcrossItsBuffer() throws IOException {
        Families families = new Families();
        MetricFamily.Points points = families.of(MetricFamily.hamiGauge("hami_test_bytes", "Bytes \\ \"é\"\n",
                "pod", "container"));
        MetricFamily.Points same = families.of(MetricFamily.hamiGauge("hami_test_limit_bytes", "Limit",
                "pod", "container"));
        String long_ = "x".repeat(70_000) + "é\"\\\n😀";
        for (int i = 0; i < 5_000; i++) {
            points.add(i * 1.5e7 + 0.25, "pod-" + i + "-é\"", i % 97 == 0 ? long_ : "c" + i);
            same.add(i, "pod-" + i + "-é\"", i % 97 == 0 ? long_ : "c" + i);
        }
        assertWrittenAsTheLibraryWrites(families, "5,000 rows");
    }

    /** {@code families} as the project's writer writes them and as the library's does, in both formats: equal. */
    private static void assertWrittenAsTheLibraryWrites(Families families, String context) throws IOException {
        MetricSnapshots snapshots = families.snapshots();
        for (ExpositionFormat format : ExpositionFormat.values()) {
            ByteArrayOutputStream library = new ByteArrayOutputStream();
            format.writer().write(library, snapshots);
            ByteArrayOutputStream ours = new ByteArrayOutputStream();
            Exposition.of(List.of(families)).write(ours, format);
            String where = context + ", " + format;
            assertEquals(library.toString(StandardCharsets.UTF_8), ours.toString(StandardCharsets.UTF_8), where);
            assertArrayEquals(library.toByteArray(), ours.toByteArray(), where);
        }
    }

    /**
     * Label sets written once and copied for the families after with the same names and the same
     * rows ({@link TextWriter.LabelBlocks}), over several writings: families sharing their rows'
     * arrays (added one after the other, as a container's series are), one with the same label
     * sets added apart in arrays of its own, two more sharing other label sets under the same
     * names, one skipping rows (so positions shift), one with the
     * same values under other names, label sets added twice, values
     * the format escapes, and a writing with more rows than are kept; each writing is the library's.
     */
    @Test
    void writesLabelSetsKeptForLaterFamiliesAsTheLibraryDoes() throws IOException {
        Random random = new Random(20_261_201L);
        for (int writing = 0; writing < 6; writing++) {
            int rows = writing == 3 ? TextWriter.LabelBlocks.MAX_ROWS + 500 : 1 + random.nextInt(400);
            Families families = new Families();
            MetricFamily.Points first = families.of(MetricFamily.hamiGauge("hami_test_a_bytes", "A", "pod", "card"));
            MetricFamily.Points second = families.of(MetricFamily.hamiGauge("hami_test_b_bytes", "B", "pod", "card"));
            MetricFamily.Points sparse = families.of(MetricFamily.hamiGauge("hami_test_c_bytes", "C", "pod", "card"));
            MetricFamily.Points unzoned = families.of(MetricFamily.gauge("hami_test_d_bytes", "D", "pod", "card"));
            // The same label sets added apart from the others, in arrays of their own.
            MetricFamily.Points apart = families.of(MetricFamily.hamiGauge("hami_test_e_bytes", "E", "pod", "card"));
            // Another two sharing their rows under the same names, with other label sets.
            MetricFamily.Points other = families.of(MetricFamily.hamiGauge("hami_test_f_bytes", "F", "pod", "card"));
            MetricFamily.Points otherToo = families.of(MetricFamily.hamiGauge("hami_test_g_bytes", "G", "pod", "card"));
            List<String[]> added = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                String pod = random.nextInt(10) == 0 ? "pod-" + (i - 1) : "pod-" + i + List.of("", "é", "\"", "\\", "\n",
                        "😀").get(random.nextInt(6));
                String[] labels = {pod, "GPU-" + random.nextInt(4)};
                first.add(i, labels);
                second.add(i * 2.5, labels);
                if (random.nextInt(5) != 0) {
                    sparse.add(-i, labels);
                }
                unzoned.add(i, labels);
                added.add(labels);
                String[] otherLabels = {pod + "-other", labels[1]};
                other.add(i, otherLabels);
                otherToo.add(i, otherLabels);
            }
            for (int i = 0; i < added.size(); i++) {
                apart.add(i / 3.0, added.get(i).clone());
            }
            assertWrittenAsTheLibraryWrites(families, "writing " + writing);
        }
    }

    /** Rows are kept up to their bounds, found by their label set at their position only, and emptied at a writing. */
    @Test
    void labelBlocksAreBoundedAndMatchTheSameLabelSetOnly() {
        TextWriter.LabelBlocks blocks = new TextWriter.LabelBlocks();
        String[] names = {"card", "pod"};
        TextWriter.LabelBlocks.Rows rows = blocks.of(names);
        byte[] block = new byte[200];
        String[][] arrays = new String[TextWriter.LabelBlocks.MAX_ROWS + 10][];
        for (int row = 0; row < arrays.length; row++) {
            arrays[row] = new String[] {"GPU-0", "pod-" + row};
            rows.keep(row, arrays[row], block, 0, 200);
        }
        assertTrue(rows.has(5, arrays[5]));
        assertTrue(rows.has(5, arrays[5].clone()), "an equal array in another instance");
        assertTrue(!rows.has(5, new String[] {"GPU-0", "pod-6"}), "another label set at the same position");
        assertTrue(!rows.has(6, arrays[5]), "an array written at another position");
        int kept = TextWriter.LabelBlocks.MAX_BYTES / 200;
        assertTrue(rows.has(kept - 1, arrays[kept - 1]));
        assertTrue(!rows.has(kept, arrays[kept]), "rows past the byte bound are not kept");
        assertEquals(200, rows.to(kept - 1) - rows.from(kept - 1));
        assertTrue(rows == blocks.of(names.clone()), "the same names find the same rows");
        blocks.startWrite();
        assertTrue(!rows.has(5, arrays[5]), "a writing starts with nothing kept");
        for (int row = 0; row < arrays.length; row++) {
            rows.keep(row, arrays[row], block, 0, 10);
        }
        assertTrue(rows.has(TextWriter.LabelBlocks.MAX_ROWS - 1, arrays[TextWriter.LabelBlocks.MAX_ROWS - 1]));
        assertTrue(!rows.has(TextWriter.LabelBlocks.MAX_ROWS, arrays[TextWriter.LabelBlocks.MAX_ROWS]),
                "rows past the bound are not kept");
    }

    private static List<Families> collections(Random random, boolean lintClean) {
        List<Families> collections = new ArrayList<>();
        int count = 1 + random.nextInt(3);
        for (int c = 0; c < count; c++) {
            Families families = new Families();
            int familyCount = random.nextInt(5);
            List<String[]> previousRows = null;
            MetricFamily previous = null;
            for (int f = 0; f < familyCount; f++) {
                MetricFamily family = family(random, lintClean, "c" + c + "f" + f);
                // Often a family with the previous one's label sets, added in the same order (as a
                // container's usage series are): it takes the previous one's sorted order.
                boolean sameLabels = previous != null && random.nextBoolean();
                if (sameLabels) {
                    family = new MetricFamily(family.name(), family.help(), family.type(), previous.zoned(),
                            previous.labels());
                }
                MetricFamily.Points points = families.of(family);
                int rows = sameLabels ? previousRows.size() : random.nextInt(7);
                List<String[]> added = new ArrayList<>();
                for (int r = 0; r < rows; r++) {
                    String[] values = new String[family.labels().size()];
                    for (int v = 0; v < values.length; v++) {
                        values[v] = sameLabels ? previousRows.get(r)[v] : labelValue(random);
                    }
                    added.add(values);
                    double value = value(random);
                    if (family.type() == MetricFamily.Type.COUNTER && (lintClean || random.nextInt(40) != 0)) {
                        value = Double.isNaN(value) ? value : Math.abs(value);
                    }
                    points.add(value, values);
                }
                previous = family;
                previousRows = added;
            }
            collections.add(families);
        }
        return collections;
    }

    /** @param unique what makes a lint-clean name unique in its collections */
    private static MetricFamily family(Random random, boolean lintClean, String unique) {
        String name;
        if (!lintClean && random.nextInt(25) == 0) {
            name = ODD_NAMES[random.nextInt(ODD_NAMES.length)];
        } else if (lintClean) {
            List<String> words = List.of("alpha", "beta", "gamma", "delta", "omega");
            name = "hami_observe_" + words.get(random.nextInt(words.size())) + "_" + unique;
        } else {
            StringBuilder built = new StringBuilder();
            String first = "abcxyzABCXYZ_:";
            String rest = "abcxyzABCXYZ_:0189";
            built.append(first.charAt(random.nextInt(first.length())));
            // Short names of a small alphabet, so collections also hold the same name twice.
            int length = random.nextInt(4);
            for (int i = 0; i < length; i++) {
                built.append(rest.charAt(random.nextInt(rest.length())));
            }
            built.append(SUFFIXES[random.nextInt(SUFFIXES.length)]);
            name = built.toString();
        }
        String help = lintClean ? "Help " + text(random, 0, 6).replace("\uD800", "").replace("\uDC00", "")
                : random.nextInt(8) == 0 ? "" : text(random, 0, 8);
        Set<String> labels = new LinkedHashSet<>();
        int labelCount = random.nextInt(5);
        for (int i = 0; i < labelCount; i++) {
            labels.add(labelName(random, lintClean));
        }
        String[] labelNames = labels.toArray(String[]::new);
        boolean counter = random.nextInt(3) == 0;
        if (counter) {
            return MetricFamily.counter(name, help, labelNames);
        }
        return random.nextBoolean() ? MetricFamily.hamiGauge(name, help, labelNames)
                : MetricFamily.gauge(name, help, labelNames);
    }

    private static String labelName(Random random, boolean lintClean) {
        String[] names = lintClean ? new String[] {"pod", "namespace", "device_uuid", "node", "vdevice_index"}
                : new String[] {"pod", "namespace", "device_uuid", "zone", "le", "quantile", "a1", "B_", "_x",
                        "__name__", "dotted.label", "ünï", "9digit", ""};
        return names[random.nextInt(lintClean ? names.length : random.nextInt(20) == 0 ? names.length : 7)];
    }

    private static String labelValue(Random random) {
        // A few values often, so label sets repeat (first value kept) and sort against each other.
        return random.nextInt(3) == 0 ? List.of("", "a", "b", "vGPU").get(random.nextInt(4)) : text(random, 0, 6);
    }

    private static String text(Random random, int min, int max) {
        StringBuilder text = new StringBuilder();
        int pieces = min + random.nextInt(max - min + 1);
        for (int i = 0; i < pieces; i++) {
            text.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return text.toString();
    }

    private static double value(Random random) {
        return switch (random.nextInt(16)) {
            case 0 -> Double.NaN;
            case 1 -> Double.POSITIVE_INFINITY;
            case 2 -> Double.NEGATIVE_INFINITY;
            case 3 -> -0.0;
            case 4 -> 0.0;
            case 5 -> random.nextInt(10_000_000) * (random.nextBoolean() ? 1.0 : -1.0);
            case 6 -> (double) (random.nextLong() >> random.nextInt(64));
            case 7 -> (double) ((1L << 53) - random.nextInt(3)) * (random.nextBoolean() ? 1 : 2);
            case 8 -> Double.MAX_VALUE / (1 + random.nextInt(10));
            case 9 -> Double.MIN_VALUE * (1 + random.nextInt(10));
            case 10 -> random.nextDouble() * Math.pow(10, random.nextInt(40) - 20);
            case 11 -> Double.longBitsToDouble(random.nextLong());
            case 12 -> 1e7 + random.nextInt(3) - 1;
            case 13 -> (double) (random.nextInt(1000) * 1_000_000_000L);
            case 14 -> 4L << 30;
            default -> random.nextInt(101);
        };
    }
}
