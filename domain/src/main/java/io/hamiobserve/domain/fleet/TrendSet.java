package io.hamiobserve.domain.fleet;

import java.util.List;

/** The lines of one chart set over the same range and steps. */
public record TrendSet(TrendScope scope, long start, long step, int steps, List<Trend> trends) {
    public TrendSet {
        trends = List.copyOf(trends);
    }

    /**
     * The steps of a chart ending at {@code end}: on whole multiples of the step (reloading a page
     * asks the same question, which any cache can answer), covering {@code range}.
     *
     * @param first the first step, epoch seconds
     */
    public record Grid(long first, long step, int steps) {
        public static Grid of(java.time.Instant end, java.time.Duration range, java.time.Duration step) {
            long seconds = Math.max(1, step.toSeconds());
            long last = Math.floorDiv(end.getEpochSecond(), seconds) * seconds;
            int steps = (int) Math.max(1, range.toSeconds() / seconds) + 1;
            return new Grid(last - (long) (steps - 1) * seconds, seconds, steps);
        }

        public long at(int i) {
            return first + i * step;
        }
    }

    public List<Trend> of(Measure measure) {
        return trends.stream().filter(trend -> trend.measure() == measure).toList();
    }
}
