package io.hamiobserve.domain.fleet;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A kept chart continued by a read of its last steps is the chart a read of the whole range gives. */
class TrendSetTest {
    private static final Provenance QUERY = new Provenance("q", "sum(up)");
    private static final long STEP = 360;

    /**
     * A source whose lines come and go: line "a" always, "b" only before {@code gone}, "c" only
     * from {@code born} on, and the utilisation measure never, as a range query returns them. A
     * step within two minutes of the read is not settled yet: its samples are not all in.
     */
    private record Source(long seed, long gone, long born) {
        double value(String label, long t, long readAt) {
            return new Random(seed ^ label.hashCode() * 31L ^ t).nextInt(1000) + (t > readAt - 120 ? 5000 : 0);
        }

        TrendSet read(Instant end, Duration range) {
            TrendSet.Grid grid = TrendSet.Grid.of(end, range, Duration.ofSeconds(STEP));
            List<Trend> trends = new ArrayList<>();
            for (String label : List.of("a", "b", "c")) {
                List<double[]> samples = new ArrayList<>();
                for (int i = 0; i < grid.steps(); i++) {
                    long t = grid.at(i);
                    boolean present = label.equals("a") || (label.equals("b") && t < gone)
                            || (label.equals("c") && t >= born);
                    if (present) {
                        samples.add(new double[] {t, value(label, t, end.getEpochSecond())});
                    }
                }
                if (!samples.isEmpty()) {
                    trends.add(Trend.aligned(Measure.TREND_MEMORY_USED, label, QUERY, grid.first(), STEP, grid.steps(),
                            samples));
                }
            }
            trends.add(Trend.aligned(Measure.TREND_UTILISATION, "", QUERY, grid.first(), STEP, grid.steps(), List.of()));
            return new TrendSet(new TrendScope.Cluster(), grid.first(), STEP, grid.steps(), trends);
        }
    }

    @Test
    void aKeptChartContinuedByItsLastStepsEqualsTheWholeRangeRead() {
        Random random = new Random(7);
        Duration range = Duration.ofHours(24);
        for (int round = 0; round < 200; round++) {
            long start = 1_796_000_000L + random.nextInt(100_000);
            Instant keptAt = Instant.ofEpochSecond(start);
            Instant now = keptAt.plusSeconds(random.nextInt(4 * 3600));
            long gone = start - 86_400 + random.nextInt(2 * 86_400);
            long born = start - 86_400 + random.nextInt(2 * 86_400);
            Source source = new Source(round, gone, born);
            TrendSet kept = source.read(keptAt, range);
            TrendSet.Grid grid = TrendSet.Grid.of(now, range, Duration.ofSeconds(STEP));
            // Read again from the first step not settled when the kept chart was read (or from
            // any step before it), to the new end.
            long unsettled = kept.last() + STEP;
            for (long t = kept.last(); t >= kept.start() && t > keptAt.getEpochSecond() - 120; t -= STEP) {
                unsettled = t;
            }
            long from = Math.max(grid.first(), Math.min(unsettled, kept.last() + STEP) - STEP * random.nextInt(3));
            TrendSet recent = source.read(now, Duration.ofSeconds(grid.at(grid.steps() - 1) - from));
            assertEquals(source.read(now, range), kept.continuedWith(grid, recent), "round " + round);
        }
    }

    @Test
    void aReadThatLeavesAGapAfterTheKeptChartIsRefused() {
        Source source = new Source(1, Long.MAX_VALUE, 0);
        Instant keptAt = Instant.ofEpochSecond(1_796_000_000L);
        TrendSet kept = source.read(keptAt, Duration.ofHours(24));
        Instant now = keptAt.plusSeconds(3600);
        TrendSet.Grid grid = TrendSet.Grid.of(now, Duration.ofHours(24), Duration.ofSeconds(STEP));
        TrendSet recent = source.read(now, Duration.ofSeconds(STEP * 2));
        assertThrows(IllegalArgumentException.class, () -> kept.continuedWith(grid, recent));
    }
}
