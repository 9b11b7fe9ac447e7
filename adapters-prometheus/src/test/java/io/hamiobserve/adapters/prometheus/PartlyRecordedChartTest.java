package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The overview's charts over a history that the console's rules recorded only from some hours in
 * (rules deployed after the exporters): ten hours of cards and shares that move every minute, held
 * by real Prometheus servers, one raw, one whose rules ran over the last four to five hours only.
 * At each step a chart must give the records' figure where the group ran within the step's
 * lookback and the raw line's figure elsewhere — what {@code recorded or raw} gives — with no step
 * lost at the seam, and say so in its expression.
 */
class PartlyRecordedChartTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final Map<String, Object> BY_CLUSTER = Map.of("cluster", new PromQl.Label("cluster"));

    private static long at;
    private static long historyStart;
    private static History.RawAndRecorded servers;
    private static PrometheusFleetHistory partly;
    private static PrometheusApi rawApi;
    private static PrometheusApi partlyApi;

    @BeforeAll
    static void startBoth() throws Exception {
        long base = (Instant.now().getEpochSecond() / 3600) * 3600 - 12 * 3600;
        at = base + Duration.ofHours(10).toSeconds();
        historyStart = base + 30;
        servers = History.rawAndRecordedFrom("hami-observe-partly-recorded", historyStart, at - 30, 60,
                Instant.ofEpochSecond(at - Duration.ofHours(4).toSeconds()), series -> {
                    card(series, "GPU-E0", 40 * GIB, 0);
                    card(series, "GPU-E1", 80 * GIB, 1);
                });
        partly = PrometheusFleetHistory.at(servers.recorded().url(), Duration.ofSeconds(20));
        rawApi = new PrometheusApi(servers.raw().url(), Duration.ofSeconds(20));
        partlyApi = new PrometheusApi(servers.recorded().url(), Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() {
        if (servers != null) {
            servers.close();
        }
    }

    /** One card ({@link History#movingCard}) and two shares on it, each figure moving every few minutes. */
    private static void card(History series, String uuid, double memory, int seed) throws Exception {
        series.movingCard("east", uuid, memory, seed);
        for (int index = 0; index < 2; index++) {
            int share = index;
            String pod = "train-" + seed + "-" + index;
            Map<String, String> labels = Map.of("cluster", "east", "namespace", "ml", "pod", pod,
                    "container_index", "0", "container", "main", "node", "node-east", "device_uuid", uuid);
            series.series("hami_observe_vgpu_container_memory_allocated_bytes", labels,
                            t -> memory * ((t / 1200 + seed + share) % 4 + 1) / 8)
                    .series("hami_observe_vgpu_container_core_allocated_ratio", labels, t -> 25)
                    .series("hami_container_device_utilization_ratio", Map.of("cluster", "east", "namespace", "ml",
                            "pod", pod, "container", "main", "node", "node-east", "device_uuid", uuid),
                            t -> (t / 300 * 11 + 29 * seed + 7 * share) % 60);
        }
    }

    @Test
    void aSixHourFunnelReadsTheRecordsWhereTheyBeginAndTheSharesBefore() throws Exception {
        TrendSet chart = partly.trends(new TrendScope.Cluster(), Instant.ofEpochSecond(at), Duration.ofHours(6),
                Duration.ofSeconds(90));
        Map<Measure, PromQl.Query[]> funnel = new LinkedHashMap<>();
        funnel.put(Measure.TREND_FUNNEL_TOTAL, new PromQl.Query[]{FleetQueries.FUNNEL_TOTAL.bind(BY_CLUSTER),
                FleetQueries.RECORDED_FUNNEL_TOTAL.bind(BY_CLUSTER)});
        funnel.put(Measure.TREND_FUNNEL_ALLOCATED, new PromQl.Query[]{FleetQueries.FUNNEL_ALLOCATED.bind(BY_CLUSTER),
                FleetQueries.RECORDED_FUNNEL_ALLOCATED.bind(BY_CLUSTER)});
        funnel.put(Measure.TREND_FUNNEL_ACTIVE, new PromQl.Query[]{FleetQueries.FUNNEL_ACTIVE.bind(BY_CLUSTER),
                FleetQueries.RECORDED_FUNNEL_ACTIVE.bind(BY_CLUSTER)});
        funnel.put(Measure.TREND_FUNNEL_EFFECTIVE, new PromQl.Query[]{FleetQueries.FUNNEL_EFFECTIVE.bind(BY_CLUSTER),
                FleetQueries.RECORDED_FUNNEL_EFFECTIVE.bind(BY_CLUSTER)});
        assertSplicedAtEachStep(chart, funnel, runs(RecordingRules.Group.FUNNEL));
    }

    @Test
    void aWeeksCardLinesReadTheRecordsWhereTheyBeginAndTheCardsBefore() throws Exception {
        TrendSet chart = partly.trends(new TrendScope.Cluster(), Instant.ofEpochSecond(at + 1800),
                Duration.ofDays(7), Duration.ofMinutes(42));
        Map<Measure, PromQl.Query[]> lines = new LinkedHashMap<>();
        lines.put(Measure.TREND_MEMORY_TOTAL, new PromQl.Query[]{FleetQueries.CLUSTER_MEMORY_TOTAL.plain(),
                FleetQueries.RECORDED_CLUSTER_MEMORY_TOTAL.plain()});
        lines.put(Measure.TREND_MEMORY_ALLOCATED, new PromQl.Query[]{FleetQueries.CLUSTER_MEMORY_ALLOCATED.plain(),
                FleetQueries.RECORDED_CLUSTER_MEMORY_ALLOCATED.plain()});
        lines.put(Measure.TREND_MEMORY_USED, new PromQl.Query[]{FleetQueries.CLUSTER_MEMORY_USED.plain(),
                FleetQueries.RECORDED_CLUSTER_MEMORY_USED.plain()});
        lines.put(Measure.TREND_CORES_ALLOCATED, new PromQl.Query[]{FleetQueries.CLUSTER_CORES_ALLOCATED.plain(),
                FleetQueries.RECORDED_CLUSTER_CORES_ALLOCATED.plain()});
        lines.put(Measure.TREND_UTILISATION, new PromQl.Query[]{FleetQueries.CLUSTER_UTILISATION.plain(),
                FleetQueries.RECORDED_CLUSTER_UTILISATION.plain()});
        assertSplicedAtEachStep(chart, lines, runs(RecordingRules.Group.CARD_LINES));
    }

    @Test
    void aChartTheRecordsServeWhollyReadsThemAlone() throws Exception {
        TrendSet chart = partly.trends(new TrendScope.Cluster(), Instant.ofEpochSecond(at), Duration.ofHours(2),
                Duration.ofSeconds(30));
        String expression = chart.of(Measure.TREND_FUNNEL_ALLOCATED).getFirst().provenance().expression();
        assertEquals(FleetQueries.RECORDED_FUNNEL_ALLOCATED.bind(BY_CLUSTER).expression(), expression);
    }

    /**
     * Each line of {@code chart} ({@code raw, recorded} per measure): at every step within the
     * history clear of its first lookback, the records' figure on the partly recorded server where
     * one of {@code runs} fell within the step's lookback, else the raw line's on the raw server;
     * both kinds at several steps, none missing.
     */
    private static void assertSplicedAtEachStep(TrendSet chart, Map<Measure, PromQl.Query[]> lines, List<Long> runs)
            throws Exception {
        long lookback = RecordingRules.FUNNEL_LOOKBACK_SECONDS;
        for (Map.Entry<Measure, PromQl.Query[]> line : lines.entrySet()) {
            Trend trend = chart.of(line.getKey()).getFirst();
            PromQl.Query raw = line.getValue()[0];
            PromQl.Query recorded = line.getValue()[1];
            assertEquals(RecordedSteps.expression(raw, recorded), trend.provenance().expression(), line.getKey().name());
            int fromRecords = 0;
            int fromRaw = 0;
            for (int i = 0; i < trend.size(); i++) {
                long step = trend.times()[i];
                if (step < historyStart + Duration.ofMinutes(15).toSeconds() || step > at - 30) {
                    continue;
                }
                long stepMillis = step * 1000;
                boolean served = runs.stream().anyMatch(run -> run <= stepMillis && run > stepMillis - lookback * 1000);
                double expected = served ? valueAt(partlyApi, recorded, step) : valueAt(rawApi, raw, step);
                assertFalse(Double.isNaN(trend.values()[i]), line.getKey() + " missing at " + step);
                assertEquals(expected, trend.values()[i], Math.abs(expected) * 1e-12,
                        line.getKey() + " at " + step + (served ? " from the records" : " from the raw series"));
                if (served) {
                    fromRecords++;
                } else {
                    fromRaw++;
                }
            }
            assertTrue(fromRecords >= 3 && fromRaw >= 3,
                    line.getKey() + ": " + fromRecords + " steps from the records, " + fromRaw + " raw");
        }
    }

    private static double valueAt(PrometheusApi api, PromQl.Query query, long at) throws Exception {
        List<PrometheusApi.Sample> samples = PrometheusApi.await(api.instant(query, Instant.ofEpochSecond(at)));
        return samples.isEmpty() ? Double.NaN : samples.getFirst().value();
    }

    /** When {@code group} ran, from its marker's samples on the partly recorded server (epoch milliseconds). */
    private static List<Long> runs(RecordingRules.Group group) throws Exception {
        List<Long> runs = History.runs(servers.recorded().url(), group, at - 11 * 3600, at + 3600);
        assertTrue(runs.size() >= 30, group + " ran from the fifth or sixth hour on: " + runs.size() + " runs");
        return runs;
    }
}
