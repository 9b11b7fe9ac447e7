package io.hamiobserve.role.scheduler;

import io.hamiobserve.exposition.FamilyDecorator;
import io.hamiobserve.exposition.RenderCache;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.exposition.testing.Promtool;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.PendingPod;
import io.hamiobserve.domain.PendingReason;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.exposition.Families;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Unmet demand's series on the allocation endpoint: counts, oldest waits, the waits' histogram, on shard 0 only. */
class PendingDemandExpositionTest {
    private static final long NOW = 1_800_000_000_000L;

    private static String write(AllocationView view, Shard shard, ExpositionFormat format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AllocationMetrics.exposition(view, shard, FamilyDecorator.NONE, ContainerSeries.POD_EFFECTIVE,
                new RenderCache(), new Families(), NOW).write(out, format);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static Ledger ledger() {
        Ledger ledger = new Ledger();
        ledger.putPending(new PendingPod(new PodRef("ml", "llm-70b", "u1"), NOW - 7_200_000, PendingReason.INSUFFICIENT_MEMORY));
        ledger.putPending(new PendingPod(new PodRef("ml", "llm-13b", "u2"), NOW - 90_000, PendingReason.INSUFFICIENT_MEMORY));
        ledger.putPending(new PendingPod(new PodRef("vision", "vit", "u3"), NOW - 5_000, PendingReason.NOT_YET_TRIED));
        return ledger;
    }

    private static List<String> lines(String exposition, String prefix) {
        return exposition.lines().filter(line -> line.startsWith(prefix)).toList();
    }

    @Test
    void pendingPodsAreCountedPerNamespaceAndReasonWithTheirWaits() throws Exception {
        String text = write(ledger().view(), Shard.ALL, ExpositionFormat.PROMETHEUS_TEXT);
        assertEquals(List.of(
                "hami_observe_pending_gpu_pods{namespace=\"ml\",reason=\"insufficient_memory\"} 2.0",
                "hami_observe_pending_gpu_pods{namespace=\"vision\",reason=\"not_yet_tried\"} 1.0"),
                lines(text, "hami_observe_pending_gpu_pods{"));
        assertEquals(List.of(
                "hami_observe_pending_gpu_pod_oldest_wait_seconds{namespace=\"ml\",reason=\"insufficient_memory\"} 7200.0",
                "hami_observe_pending_gpu_pod_oldest_wait_seconds{namespace=\"vision\",reason=\"not_yet_tried\"} 5.0"),
                lines(text, "hami_observe_pending_gpu_pod_oldest_wait_seconds{"));
        List<String> histogram = lines(text, "hami_observe_pending_gpu_pod_wait_seconds");
        assertTrue(histogram.contains("hami_observe_pending_gpu_pod_wait_seconds_bucket{le=\"10.0\"} 1"), histogram::toString);
        assertTrue(histogram.contains("hami_observe_pending_gpu_pod_wait_seconds_bucket{le=\"120.0\"} 2"), histogram::toString);
        assertTrue(histogram.contains("hami_observe_pending_gpu_pod_wait_seconds_bucket{le=\"7200.0\"} 3"), histogram::toString);
        assertTrue(histogram.contains("hami_observe_pending_gpu_pod_wait_seconds_bucket{le=\"+Inf\"} 3"), histogram::toString);
        Promtool.assertClean(text);

        String openMetrics = write(ledger().view(), Shard.ALL, ExpositionFormat.OPENMETRICS_TEXT);
        assertTrue(openMetrics.contains("# TYPE hami_observe_pending_gpu_pod_wait_seconds histogram"), openMetrics);
    }

    @Test
    void onlyTheShardThatOwnsTheSeriesOfNoNodeWritesThem() throws Exception {
        AllocationView view = ledger().view();
        assertFalse(lines(write(view, new Shard(0, 3), ExpositionFormat.PROMETHEUS_TEXT),
                "hami_observe_pending_gpu_pods{").isEmpty());
        for (int index = 1; index < 3; index++) {
            String text = write(view, new Shard(index, 3), ExpositionFormat.PROMETHEUS_TEXT);
            assertFalse(text.contains("hami_observe_pending_gpu_pod"), text);
        }
    }

    @Test
    void nothingPendingLeavesAnEmptyHistogramAndNoCounts() throws Exception {
        String text = write(new Ledger().view(), Shard.ALL, ExpositionFormat.PROMETHEUS_TEXT);
        assertEquals(List.of(), lines(text, "hami_observe_pending_gpu_pods{"));
        assertTrue(text.contains("hami_observe_pending_gpu_pod_wait_seconds_bucket{le=\"+Inf\"} 0"), text);
        Promtool.assertClean(text);
    }
}
