package io.hamiobserve.exposition;

import io.hamiobserve.exposition.ExpositionFormat;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MetricFamilyTest {
    private static final MetricFamily ZONED = MetricFamily.hamiGauge("hami_test_bytes", "A test family", "pod", "device_uuid");

    private static String write(MetricFamily.Points points) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExpositionFormat.PROMETHEUS_TEXT.writer().write(out, MetricSnapshots.of(points.snapshot()));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void labelsAreWrittenSortedWithTheZoneAndPointsInLabelOrder() throws IOException {
        MetricFamily.Points points = ZONED.points();
        points.add(2, "pod-b", "GPU-1");
        points.add(1, "pod-a", "GPU-2");
        points.add(3, "pod-a", "GPU-1");
        assertEquals("""
                # HELP hami_test_bytes A test family
                # TYPE hami_test_bytes gauge
                hami_test_bytes{device_uuid="GPU-1",pod="pod-a",zone="vGPU"} 3.0
                hami_test_bytes{device_uuid="GPU-1",pod="pod-b",zone="vGPU"} 2.0
                hami_test_bytes{device_uuid="GPU-2",pod="pod-a",zone="vGPU"} 1.0
                """, write(points));
    }

    @Test
    void aDuplicateLabelSetKeepsTheFirstValueInsteadOfBreakingTheExposition() throws IOException {
        MetricFamily.Points points = ZONED.points();
        points.add(7, "pod-a", "GPU-1");
        points.add(8, "pod-b", "GPU-1");
        points.add(9, "pod-a", "GPU-1");
        String text = write(points);
        assertEquals(2, text.lines().filter(line -> line.startsWith("hami_test_bytes{")).count(), text);
        assertEquals(true, text.contains("pod=\"pod-a\",zone=\"vGPU\"} 7.0"), text);
    }

    @Test
    void labelValuesAreEscapedByTheWriter() throws IOException {
        MetricFamily.Points points = MetricFamily.gauge("hami_observe_test", "h", "name").points();
        points.add(1, "a\"b\\c\nd");
        assertEquals(true, write(points).contains("hami_observe_test{name=\"a\\\"b\\\\c\\nd\"} 1.0"));
    }

    @Test
    void aWrongNumberOfLabelValuesIsAProgrammingError() {
        assertThrows(IllegalArgumentException.class, () -> ZONED.points().add(1, "only-one"));
    }

    /**
     * Families of one collection given the same label values share one stored row; a caller that
     * changes its array between two families' points gets each family the values it was given.
     */
    @Test
    void familiesGivenOneArrayEachKeepTheValuesTheyWereGiven() throws IOException {
        Families families = new Families();
        MetricFamily first = MetricFamily.hamiGauge("hami_test_first", "h", "pod", "device_uuid");
        MetricFamily second = MetricFamily.hamiGauge("hami_test_second", "h", "pod", "device_uuid");
        MetricFamily third = MetricFamily.gauge("hami_observe_test_third", "h", "pod", "device_uuid");
        String[] labels = {"pod-a", "GPU-1"};
        families.of(first).add(1, labels);
        families.of(second).add(2, labels);
        families.of(third).add(3, labels);
        labels[0] = "pod-b";
        families.get(first).add(4, labels);
        families.get(second).add(5, labels);
        labels[1] = "GPU-2";
        families.get(third).add(6, labels);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Exposition.of(java.util.List.of(families)).write(out, ExpositionFormat.PROMETHEUS_TEXT);
        String text = out.toString(StandardCharsets.UTF_8);
        for (String line : java.util.List.of(
                "hami_test_first{device_uuid=\"GPU-1\",pod=\"pod-a\",zone=\"vGPU\"} 1.0",
                "hami_test_first{device_uuid=\"GPU-1\",pod=\"pod-b\",zone=\"vGPU\"} 4.0",
                "hami_test_second{device_uuid=\"GPU-1\",pod=\"pod-a\",zone=\"vGPU\"} 2.0",
                "hami_test_second{device_uuid=\"GPU-1\",pod=\"pod-b\",zone=\"vGPU\"} 5.0",
                "hami_observe_test_third{device_uuid=\"GPU-1\",pod=\"pod-a\"} 3.0",
                "hami_observe_test_third{device_uuid=\"GPU-2\",pod=\"pod-b\"} 6.0")) {
            assertEquals(true, text.contains(line + "\n"), line + " in\n" + text);
        }
        assertEquals(6, text.lines().filter(line -> !line.startsWith("#")).count(), text);
    }

    /**
     * A family's rows collected again and again, as a node collects at every scrape: the same rows
     * in the same order (the last sort's order is checked and taken), shuffled, changed, added,
     * removed, repeated with other values. Every collection is written as the library writes the
     * same rows, sorted afresh.
     */
    @Test
    void theLastOrderTakenForTheSameRowsWritesWhatTheLibraryWrites() throws IOException {
        MetricFamily family = MetricFamily.hamiGauge("hami_test_remembered_bytes", "h", "pod", "device_uuid");
        Random random = new Random(20_261_201L);
        List<String[]> rows = new ArrayList<>();
        int taken = 0;
        int[] previousOrder = null;
        for (int collection = 0; collection < 600; collection++) {
            boolean same = collection > 0 && random.nextInt(3) > 0;
            if (!same) {
                switch (random.nextInt(5)) {
                    case 0 -> Collections.shuffle(rows, random);
                    case 1 -> rows.add(random.nextInt(rows.size() + 1), row(random));
                    case 2 -> {
                        if (!rows.isEmpty()) {
                            rows.remove(random.nextInt(rows.size()));
                        }
                    }
                    case 3 -> {
                        if (!rows.isEmpty()) {
                            rows.add(random.nextInt(rows.size() + 1), rows.get(random.nextInt(rows.size())).clone());
                        }
                    }
                    default -> {
                        if (!rows.isEmpty()) {
                            rows.set(random.nextInt(rows.size()), row(random));
                        }
                    }
                }
            }
            Families ours = new Families();
            Families library = new Families();
            MetricFamily.Points ourPoints = ours.of(family);
            MetricFamily.Points libraryPoints = library.of(family);
            for (String[] values : rows) {
                double value = random.nextInt(1000);
                ourPoints.add(value, values.clone());
                libraryPoints.add(value, values.clone());
            }
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            ExpositionFormat.PROMETHEUS_TEXT.writer().write(expected, library.snapshots());
            ByteArrayOutputStream actual = new ByteArrayOutputStream();
            Exposition.of(List.of(ours)).write(actual, ExpositionFormat.PROMETHEUS_TEXT);
            assertEquals(expected.toString(StandardCharsets.UTF_8), actual.toString(StandardCharsets.UTF_8),
                    "collection " + collection);
            if (!rows.isEmpty()) {
                int[] order = ourPoints.sealedOrder();
                if (same && order == previousOrder) {
                    taken++;
                }
                previousOrder = order;
            }
        }
        assertTrue(taken > 250, "collections that took the last order: " + taken);
    }

    private static String[] row(Random random) {
        return new String[]{"pod-" + random.nextInt(12), "GPU-" + random.nextInt(4)};
    }
}
