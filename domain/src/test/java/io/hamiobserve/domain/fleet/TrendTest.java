package io.hamiobserve.domain.fleet;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TrendTest {
    private static final Provenance QUERY = new Provenance("q", "up");

    @Test
    void samplesLandOnTheirStepAndStepsWithoutOneAreGapsNotZeros() {
        Trend trend = Trend.aligned(Measure.TREND_MEMORY_USED, "", QUERY, 1000, 60, 4,
                List.of(new double[] {1000, 5}, new double[] {1121, 7}, new double[] {5000, 9}));
        assertEquals(4, trend.size());
        assertEquals(Figure.of(5), trend.at(0));
        assertFalse(trend.at(1).isKnown());
        assertEquals(Figure.of(7), trend.at(2));
        assertFalse(trend.at(3).isKnown());
        assertTrue(trend.hasData());
        assertFalse(Trend.aligned(Measure.TREND_MEMORY_USED, "", QUERY, 0, 60, 3, List.of()).hasData());
    }

    @Test
    void rangesHaveAbout240PointsAndNoStepBelow15Seconds() {
        assertEquals(Duration.ofSeconds(15), TimeRange.HOUR.step());
        assertEquals(Duration.ofMinutes(6), TimeRange.DAY.step());
        assertEquals(TimeRange.WEEK, TimeRange.parse("7D").orElseThrow());
        assertTrue(TimeRange.parse("<script>").isEmpty());
        assertTrue(TimeRange.parse(null).isEmpty());
    }
}
