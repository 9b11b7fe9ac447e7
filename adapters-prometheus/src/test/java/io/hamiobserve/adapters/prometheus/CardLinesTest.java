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
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The overview's other lines (every card's memory, allocated and used, compute allocated and
 * utilisation), read from the card lines' group's records: two clusters of cards whose figures
 * move every minute, written by two scheduler-side replicas, held by real Prometheus servers (one
 * raw, one that also ran the console's rules over the same history). Each step of a chart from the
 * records must give what the raw line gives at the group's last run within the step's lookback —
 * for the fleet and for one cluster, over a month, a week, a day and an hour.
 */
class CardLinesTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final List<Measure> LINES = List.of(Measure.TREND_MEMORY_TOTAL, Measure.TREND_MEMORY_ALLOCATED,
            Measure.TREND_MEMORY_USED, Measure.TREND_CORES_ALLOCATED, Measure.TREND_UTILISATION);

    private static long at;
    private static History.RawAndRecorded servers;
    private static PrometheusFleetHistory fromRaw;
    private static PrometheusFleetHistory fromRecorded;

    @BeforeAll
    static void startBothWithTheSameHistory() throws Exception {
        long base = (Instant.now().getEpochSecond() / 3600) * 3600 - 12 * 3600;
        at = base + Duration.ofHours(10).toSeconds();
        servers = History.rawAndRecorded("hami-observe-card-lines", base + 30, at - 30, 60, series -> {
            series.movingCard("east", "GPU-E0", 40 * GIB, 0).movingCard("east", "GPU-E1", 40 * GIB, 1)
                    .movingCard("west", "GPU-W0", 80 * GIB, 2);
        });
        fromRaw = PrometheusFleetHistory.at(servers.raw().url(), Duration.ofSeconds(20));
        fromRecorded = PrometheusFleetHistory.at(servers.recorded().url(), Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() {
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void aWeeksLinesReadTheRecordsAndGiveTheRawLinesAtEachRun() throws Exception {
        Instant end = Instant.ofEpochSecond(at + 1800);
        TrendSet recorded = fromRecorded.trends(new TrendScope.Cluster(), end, Duration.ofDays(7), Duration.ofMinutes(42));
        TrendSet raw = fromRaw.trends(new TrendScope.Cluster(), end, Duration.ofDays(7), Duration.ofMinutes(42));
        assertRecordedAsRawAtEachRun(recorded, raw, "");
    }

    @Test
    void oneClustersMonthReadsItsOwnRecords() throws Exception {
        Instant end = Instant.ofEpochSecond(at + 1800);
        TrendSet recorded = fromRecorded.inCluster("west").trends(new TrendScope.Cluster(), end, Duration.ofDays(30),
                Duration.ofHours(3));
        TrendSet raw = fromRaw.inCluster("west").trends(new TrendScope.Cluster(), end, Duration.ofDays(30),
                Duration.ofHours(3));
        assertRecordedAsRawAtEachRun(recorded, raw, "west");
    }

    @Test
    void aDaysAndAnHoursLinesReadTheMinuteRecordsToo() throws Exception {
        // A day's steps of six minutes and an hour's of 15 seconds, shorter than a lookback: each
        // step still reads the group's last run (a run a minute), repeated over an hour's steps.
        Instant end = Instant.ofEpochSecond(at - 60);
        assertRecordedAsRawAtEachRun(fromRecorded.trends(new TrendScope.Cluster(), end, Duration.ofDays(1),
                Duration.ofMinutes(6)), fromRaw.trends(new TrendScope.Cluster(), end, Duration.ofDays(1),
                Duration.ofMinutes(6)), "");
        assertRecordedAsRawAtEachRun(fromRecorded.trends(new TrendScope.Cluster(), end, Duration.ofHours(1),
                Duration.ofSeconds(15)), fromRaw.trends(new TrendScope.Cluster(), end, Duration.ofHours(1),
                Duration.ofSeconds(15)), "");
    }

    /**
     * Every line of {@code recorded} read from the records and of {@code raw} from the cards; each
     * step of the first with a figure holds the raw line's expression evaluated on the raw server
     * (narrowed to {@code cluster}, if one) at the group's last run within the step's lookback, at
     * every step within the history.
     */
    private static void assertRecordedAsRawAtEachRun(TrendSet recorded, TrendSet raw, String cluster) throws Exception {
        List<Long> runs = History.runs(servers.recorded().url(), RecordingRules.Group.CARD_LINES, at - 11 * 3600,
                at + 3600);
        assertTrue(runs.size() >= 500, "the group ran every minute over ten hours: " + runs.size());
        PrometheusApi rawApi = new PrometheusApi(servers.raw().url(), Duration.ofSeconds(20));
        long lookback = RecordingRules.FUNNEL_LOOKBACK_SECONDS;
        long historyStart = at - Duration.ofHours(10).toSeconds() + 30;
        long historyEnd = at - 30;
        for (Measure line : LINES) {
            Trend fromRecords = recorded.of(line).getFirst();
            Trend fromCards = raw.of(line).getFirst();
            assertTrue(fromRecords.provenance().expression().contains("cluster:hami_"),
                    line + " read from " + fromRecords.provenance().expression());
            assertFalse(fromCards.provenance().expression().contains("cluster:hami_"), line.name());
            int compared = 0;
            for (int i = 0; i < fromRecords.size(); i++) {
                long step = fromRecords.times()[i];
                // Within the history, a lookback clear of its first sample: both paths have a
                // figure, and every run within the step's lookback recorded one.
                boolean within = step >= historyStart + lookback && step <= historyEnd;
                if (!within) {
                    continue;
                }
                assertFalse(Double.isNaN(fromCards.values()[i]), line + " from the cards at " + step);
                assertFalse(Double.isNaN(fromRecords.values()[i]), line + " from the records at " + step);
                // A run's instant has milliseconds (the group's offset): one a fraction of a second
                // past a step is the next step's, not this one's.
                long stepMillis = step * 1000;
                long run = runs.stream().filter(t -> t <= stepMillis && t > stepMillis - lookback * 1000)
                        .max(Long::compare)
                        .orElseThrow(() -> new AssertionError(line + ": no run within the lookback of " + step));
                String expression = fromCards.provenance().expression();
                if (!cluster.isEmpty()) {
                    assertTrue(expression.contains("cluster=\"" + cluster + "\""), expression);
                }
                double expected = PrometheusApi.await(rawApi.instant(new PromQl.Template("raw", expression).plain(),
                        Instant.ofEpochMilli(run))).getFirst().value();
                assertEquals(expected, fromRecords.values()[i], Math.abs(expected) * 1e-12,
                        line + " at " + step + " (the run at " + run + " ms)");
                compared++;
            }
            assertTrue(compared >= 2, line + ": only " + compared + " steps within the history");
        }
    }
}
