package io.hamiobserve.exposition;

import io.hamiobserve.exposition.ExpositionFormat;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LabelSetsTest {
    private static final MetricFamily USED = MetricFamily.hamiGauge("hami_test_used_bytes", "used", "pod", "device");
    private static final MetricFamily LIMIT = MetricFamily.hamiGauge("hami_test_limit_bytes", "limit", "pod", "device");
    private static final MetricFamily OTHER_NAMES = MetricFamily.hamiGauge("hami_test_other", "other", "pod", "card");

    @Test
    void aLabelSetAskedForAgainIsTheOneMadeBeforeAndOnlyAnEqualSetIs() {
        LabelSets sets = new LabelSets();
        Labels first = sets.of(new String[] {"a", "b"}, new String[] {"x", "y"});
        assertSame(first, sets.of(new String[] {"a", "b"}, new String[] {"x", "y"}));
        assertNotSame(first, sets.of(new String[] {"a", "b"}, new String[] {"x", "z"}));
        assertNotSame(first, sets.of(new String[] {"a", "c"}, new String[] {"x", "y"}));
        assertEquals(Labels.of("a", "x", "b", "y"), first);
    }

    @Test
    void theLibraryStillRefusesAnInvalidLabelName() {
        assertThrows(IllegalArgumentException.class, () -> new LabelSets().of(new String[] {"__bad"}, new String[] {"x"}));
    }

    @Test
    void familiesOfOneCollectionShareTheirLabelSetsAndWriteWhatSeparateSnapshotsWrite() throws IOException {
        Families families = new Families();
        var used = families.of(USED);
        var limit = families.of(LIMIT);
        var other = families.of(OTHER_NAMES);
        for (int pod = 0; pod < 5; pod++) {
            used.add(pod, "pod-" + pod, "GPU-" + pod % 2);
            limit.add(10 + pod, "pod-" + pod, "GPU-" + pod % 2);
            other.add(20 + pod, "pod-" + pod, "GPU-" + pod % 2);
        }
        MetricSnapshots shared = families.snapshots();
        List<Labels> usedLabels = labels(shared, USED);
        List<Labels> limitLabels = labels(shared, LIMIT);
        List<Labels> otherLabels = labels(shared, OTHER_NAMES);
        for (int i = 0; i < usedLabels.size(); i++) {
            assertSame(usedLabels.get(i), limitLabels.get(i));
            assertNotSame(usedLabels.get(i), otherLabels.get(i));
        }
        MetricSnapshots apart = new MetricSnapshots(used.snapshot(), limit.snapshot(), other.snapshot());
        assertEquals(text(apart), text(shared));
    }

    /** The label sets of {@code family}'s data points (snapshots are ordered by name, not as started). */
    private static List<Labels> labels(MetricSnapshots snapshots, MetricFamily family) {
        List<Labels> labels = new ArrayList<>();
        for (MetricSnapshot snapshot : snapshots) {
            if (snapshot.getMetadata().getName().equals(family.name())) {
                for (DataPointSnapshot point : snapshot.getDataPoints()) {
                    labels.add(point.getLabels());
                }
            }
        }
        assertEquals(5, labels.size(), family.name());
        return labels;
    }

    private static String text(MetricSnapshots snapshots) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExpositionFormat.PROMETHEUS_TEXT.writer().write(out, snapshots);
        return out.toString(StandardCharsets.UTF_8);
    }
}
