package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.UsageHistory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An exporter that reports utilisation no card has — NaN, a negative number, the largest double —
 * under label values made to break a query or a page, read by right-sizing's hourly percentiles
 * from the recording rules' records and from the raw series alike (two real Prometheus servers,
 * one with the rules evaluated): the read answers, every label value comes back exactly, a
 * percentile of samples half NaN is taken with the NaNs below every number, the others are what
 * was reported (the domain bounds the recommendation), and the two paths give the same figures.
 */
class HostileUtilisationTest {
    private static final String NAMESPACE = "<script>alert(\"ns\")</script>";
    private static final Duration HOURS = Duration.ofHours(6);

    private static long at;
    private static History.RawAndRecorded servers;

    @BeforeAll
    static void startBothWithTheSameHistory() throws Exception {
        long base = (Instant.now().getEpochSecond() / 3600) * 3600 - 8 * 3600;
        at = base + HOURS.toSeconds();
        servers = History.rawAndRecorded("hami-observe-hostile-utilisation", base + 30, at - 30, 60, series -> {
            container(series, "nan\"}or vector(1)#", t -> t / 60 % 2 == 0 ? Double.NaN : 40);
            container(series, "negative\nline", t -> -50);
            container(series, "huge\\x", t -> Double.MAX_VALUE);
        });
    }

    private static void container(History series, String pod, java.util.function.LongToDoubleFunction utilisation)
            throws Exception {
        Map<String, String> labels = Map.of("namespace", NAMESPACE, "pod", pod, "container", "main",
                "node", "node-a", "device_uuid", "GPU-A0", "instance", "node-a:9394", "job", "hami-observe-node");
        series.series("hami_vgpu_memory_used_bytes", labels, t -> 1 << 30)
                .series("hami_container_device_utilization_ratio", labels, utilisation);
    }

    @AfterAll
    static void stop() {
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void hostileUtilisationIsReadFromRecordsAndRawSeriesAlikeWithItsLabelsExact() throws Exception {
        // Compared at the hourly group's last run before `at`: there the records hold every sample.
        Instant run = History.lastRun(servers.recorded().url(), RecordingRules.Group.HOURLY_UTILISATION, at);
        UsageHistory fromRecords = PrometheusFleetHistory.at(servers.recorded().url(), Duration.ofSeconds(20))
                .usage(run, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
        UsageHistory fromSamples = PrometheusFleetHistory.at(servers.raw().url(), Duration.ofSeconds(20))
                .usage(run, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
        assertTrue(fromRecords.provenance(Measure.CONTAINER_UTILISATION_P95).expression()
                .contains(RecordingRules.CONTAINER_UTILISATION_P95_HOURLY));

        List<UsageHistory.ShareHistory> records = byPod(fromRecords);
        assertEquals(List.of("huge\\x", "nan\"}or vector(1)#", "negative\nline"),
                records.stream().map(UsageHistory.ShareHistory::pod).toList());
        assertTrue(records.stream().allMatch(share -> share.namespace().equals(NAMESPACE)), records.toString());
        assertEquals(Figure.of(Double.MAX_VALUE), records.get(0).utilisationP95());
        // Half of each hour's samples are NaN: Prometheus's percentile sorts them below every
        // number, so the hours' p95 is the 40 reported between them, not a NaN taken for a use.
        assertEquals(Figure.of(40), records.get(1).utilisationP95());
        assertEquals(Figure.of(-50), records.get(2).utilisationP95());
        assertEquals(Figure.of(-50), records.get(2).utilisationMedian());
        assertEquals(RecordingRulesTest.withoutHours(byPod(fromSamples)), RecordingRulesTest.withoutHours(records));
    }

    private static List<UsageHistory.ShareHistory> byPod(UsageHistory usage) {
        return usage.shares().stream().sorted(Comparator.comparing(UsageHistory.ShareHistory::pod)).toList();
    }
}
