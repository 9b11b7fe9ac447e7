package io.hamiobserve.domain.fleet;

import java.util.List;

/** The lines of one chart set over the same range and steps. */
public record TrendSet(TrendScope scope, long start, long step, int steps, List<Trend> trends) {
    public TrendSet {
        trends = List.copyOf(trends);
    }

    public List<Trend> of(Measure measure) {
        return trends.stream().filter(trend -> trend.measure() == measure).toList();
    }
}
