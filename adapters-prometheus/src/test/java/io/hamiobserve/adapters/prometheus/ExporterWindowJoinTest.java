package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.UsageHistory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A vendor's figure that is a percent of the container's allocation (mlu-exporter's memory) joins
 * every container's allocation over the whole window: on a real Prometheus, the window's queries
 * name it where its metric has a sample in the window, though gone now, and leave it out where it
 * has none, so an engine without that exporter does not join every allocation for nothing.
 */
class ExporterWindowJoinTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final String MLU = "MLU-0001";
    private static long end;
    private static LocalPrometheus prometheus;
    private static PrometheusFleetHistory history;

    @BeforeAll
    static void startPrometheus() throws Exception {
        end = (Instant.now().getEpochSecond() / 60) * 60 - 60;
        long start = end - 4 * 3600;
        prometheus = History.loaded("hami-observe-window-join", start, end, 60, series -> {
            series.series("hami_gpu_memory_limit_bytes", Map.of("node", "mlu-a", "device_uuid", MLU,
                    "device_index", "0", "device_type", "MLU"), t -> 64 * GIB);
            series.series("hami_observe_vgpu_container_memory_allocated_bytes", Map.of("namespace", "mlu",
                            "pod", "serve", "container_index", "0", "node", "mlu-a", "device_uuid", MLU), t -> 16 * GIB)
                    .series("hami_observe_container_info", Map.of("namespace", "mlu", "pod", "serve",
                            "container_index", "0", "container", "c", "init", "false"), t -> 1);
            // The exporter's memory figure in the history's first hour only, 25 % of the 16 GiB; its
            // info series naming the container throughout (a window term joins it as it stands).
            series.series("mlu_memory_utilization", Map.of("uuid", MLU, "vf", "0"), start, start + 3600, t -> 25)
                    .series("mlu_container", Map.of("uuid", MLU, "vf", "0", "namespace", "mlu", "pod", "serve",
                            "container", "c"), t -> 1);
        });
        history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    private static UsageHistory usage(Duration window) throws Exception {
        return history.usage(Instant.ofEpochSecond(end), window, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
    }

    @Test
    void aPercentOfAllocationGoneNowIsJoinedOverAWindowThatHoldsIt() throws Exception {
        UsageHistory fourHours = usage(Duration.ofHours(4));
        assertTrue(fourHours.provenance().get(Measure.EXPORTER_MEMORY_PEAK).expression()
                .contains("mlu_memory_utilization"));
        UsageHistory.ShareHistory serve = fourHours.shares().stream().filter(share -> share.pod().equals("serve"))
                .findFirst().orElseThrow();
        assertEquals(4 * GIB, serve.memoryPeak().orElseThrow());
    }

    @Test
    void aWindowWithoutItsSamplesDoesNotJoinEveryAllocation() throws Exception {
        UsageHistory twoHours = usage(Duration.ofHours(2));
        var peak = twoHours.provenance().get(Measure.EXPORTER_MEMORY_PEAK);
        // The other vendors' own figures are still asked for; the percent and its join are not.
        assertFalse(peak != null && peak.expression().contains("mlu_memory_utilization"), String.valueOf(peak));
        assertFalse(peak != null && peak.expression().contains("hami_observe_container_info"), String.valueOf(peak));
        assertTrue(twoHours.shares().stream().noneMatch(share -> share.pod().equals("serve")));
    }
}
