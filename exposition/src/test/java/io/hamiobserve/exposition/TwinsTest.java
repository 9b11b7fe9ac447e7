package io.hamiobserve.exposition;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Twins follow their source family point by point, under the label values they are given. */
class TwinsTest {
    private static final MetricFamily USED = MetricFamily.hamiGauge("hami_test_used_bytes", "Used", "pod", "uuid");
    private static final MetricFamily SPLIT = MetricFamily.hamiGauge("hami_test_split_bytes", "Split", "pod", "uuid");
    private static final MetricFamily OLD_USED = MetricFamily.hamiGauge("OldUsed", "Used", "podname", "deviceuuid");
    private static final MetricFamily OLD_DESC = MetricFamily.hamiGauge("OldDesc", "Desc", "podname", "split");
    private static final FamilyDecorator TWINS = Twins.builder()
            .renamed(USED, OLD_USED)
            .derived(USED, OLD_DESC, (labels, families) -> new String[] {labels[0],
                    Long.toString((long) families.valueOf(SPLIT, labels).orElse(-1))})
            .build();

    private static String write(MetricSnapshots snapshots) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, snapshots);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aTwinTakesEveryPointOfItsSourceUnderItsOwnLabelNames() throws IOException {
        Families families = new Families();
        MetricFamily.Points used = families.of(USED);
        MetricFamily.Points split = families.of(SPLIT);
        used.add(10, "b", "GPU-2");
        used.add(20, "a", "GPU-1");
        split.add(3, "a", "GPU-1");
        split.add(4, "b", "GPU-2");
        String text = write(TWINS.decorated(families).snapshots());
        assertTrue(text.contains("OldUsed{deviceuuid=\"GPU-1\",podname=\"a\",zone=\"vGPU\"} 20.0\n"), text);
        assertTrue(text.contains("OldUsed{deviceuuid=\"GPU-2\",podname=\"b\",zone=\"vGPU\"} 10.0\n"), text);
        // Derived from another family's value under the same labels.
        assertTrue(text.contains("OldDesc{podname=\"a\",split=\"3\",zone=\"vGPU\"} 20.0\n"), text);
        assertTrue(text.contains("OldDesc{podname=\"b\",split=\"4\",zone=\"vGPU\"} 10.0\n"), text);
        assertTrue(text.contains("hami_test_used_bytes{pod=\"a\",uuid=\"GPU-1\",zone=\"vGPU\"} 20.0\n"), text);
    }

    @Test
    void aTwinHasWhatItsSourceKeepsOfADuplicateLabelSet() throws IOException {
        Families families = new Families();
        MetricFamily.Points used = families.of(USED);
        families.of(SPLIT);
        used.add(1, "a", "GPU-1");
        used.add(2, "a", "GPU-1");
        String text = write(TWINS.decorated(families).snapshots());
        assertTrue(text.contains("hami_test_used_bytes{pod=\"a\",uuid=\"GPU-1\",zone=\"vGPU\"} 1.0\n"), text);
        assertTrue(text.contains("OldUsed{deviceuuid=\"GPU-1\",podname=\"a\",zone=\"vGPU\"} 1.0\n"), text);
        assertEquals(1, text.lines().filter(line -> line.startsWith("OldUsed{")).count(), text);
    }

    @Test
    void aPointTheRelabelRefusesHasNoTwin() throws IOException {
        FamilyDecorator onlySplit = Twins.builder()
                .derived(USED, OLD_DESC, (labels, families) -> families.valueOf(SPLIT, labels).isEmpty() ? null
                        : new String[] {labels[0], Long.toString((long) families.valueOf(SPLIT, labels).getAsDouble())})
                .build();
        Families families = new Families();
        MetricFamily.Points used = families.of(USED);
        families.of(SPLIT).add(3, "a", "GPU-1");
        used.add(20, "a", "GPU-1");
        used.add(10, "b", "GPU-2");
        String text = write(onlySplit.decorated(families).snapshots());
        assertTrue(text.contains("OldDesc{podname=\"a\",split=\"3\",zone=\"vGPU\"} 20.0\n"), text);
        assertEquals(1, text.lines().filter(line -> line.startsWith("OldDesc{")).count(), text);
        assertTrue(text.contains("hami_test_used_bytes{pod=\"b\",uuid=\"GPU-2\",zone=\"vGPU\"} 10.0\n"), text);
    }

    @Test
    void noSourceNoTwin() {
        Families families = new Families();
        families.of(SPLIT).add(1, "a", "GPU-1");
        TWINS.decorated(families);
        assertEquals(java.util.List.of(SPLIT), families.started());
    }

    @Test
    void aRenamedTwinHasAsManyLabelsAsItsSource() {
        MetricFamily oneLabel = MetricFamily.gauge("one_label", "h", "only");
        assertThrows(IllegalArgumentException.class, () -> Twins.builder().renamed(USED, oneLabel));
    }
}
