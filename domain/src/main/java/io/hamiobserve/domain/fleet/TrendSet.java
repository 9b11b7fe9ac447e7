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

    /** The last step, epoch seconds. */
    public long last() {
        return start + (steps - 1) * step;
    }

    /**
     * This set moved onto {@code grid} (same step, a later end), its steps from {@code recent}'s
     * first on taken from {@code recent}, a read of the same chart over its last steps only: what a
     * read of the whole grid answers, as each step of a range query is evaluated on its own. A line
     * that has no sample left on the grid is dropped, as a read would not return its series; a
     * measure left without any line keeps one empty line, as a read of it does.
     *
     * @throws IllegalArgumentException when the steps differ, or {@code recent} leaves a gap after this set
     */
    public TrendSet continuedWith(Grid grid, TrendSet recent) {
        if (grid.step() != step || recent.step != step || recent.start > last() + step
                || recent.last() != grid.at(grid.steps() - 1)) {
            throw new IllegalArgumentException("a chart of step " + step + " s up to " + last()
                    + " cannot be continued by one of step " + recent.step + " s from " + recent.start
                    + " onto a grid of step " + grid.step() + " s");
        }
        java.util.Map<java.util.List<Object>, Trend> kept = new java.util.LinkedHashMap<>();
        trends.forEach(trend -> kept.put(java.util.List.of(trend.measure(), trend.label()), trend));
        java.util.Map<java.util.List<Object>, Trend> read = new java.util.LinkedHashMap<>();
        recent.trends.forEach(trend -> read.put(java.util.List.of(trend.measure(), trend.label()), trend));
        java.util.Set<java.util.List<Object>> lines = new java.util.LinkedHashSet<>(kept.keySet());
        lines.addAll(read.keySet());
        java.util.List<Trend> moved = new java.util.ArrayList<>();
        java.util.Set<Measure> measures = new java.util.LinkedHashSet<>();
        for (java.util.List<Object> line : lines) {
            Trend before = kept.get(line);
            Trend after = read.get(line);
            measures.add((Measure) line.get(0));
            double[] earlier = before == null ? new double[0] : before.values();
            double[] later = after == null ? new double[0] : after.values();
            long[] times = new long[grid.steps()];
            double[] values = new double[grid.steps()];
            for (int i = 0; i < times.length; i++) {
                times[i] = grid.at(i);
                boolean reread = times[i] >= recent.start;
                double[] from = reread ? later : earlier;
                long index = (times[i] - (reread ? recent.start : start)) / step;
                values[i] = index < 0 || index >= from.length ? Double.NaN : from[(int) index];
            }
            Trend trend = new Trend((Measure) line.get(0), (String) line.get(1),
                    (after != null ? after : before).provenance(), times, values);
            if (trend.hasData()) {
                moved.add(trend);
            }
        }
        for (Measure measure : measures) {
            if (moved.stream().noneMatch(trend -> trend.measure() == measure)) {
                Trend any = read.values().stream().filter(trend -> trend.measure() == measure).findFirst()
                        .orElseGet(() -> kept.values().stream().filter(trend -> trend.measure() == measure)
                                .findFirst().orElseThrow());
                moved.add(Trend.aligned(measure, "", any.provenance(), grid.first(), step, grid.steps(),
                        java.util.List.of()));
            }
        }
        return new TrendSet(scope, grid.first(), step, grid.steps(), moved);
    }

    public List<Trend> of(Measure measure) {
        return trends.stream().filter(trend -> trend.measure() == measure).toList();
    }
}
