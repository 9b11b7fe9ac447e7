package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.Provenance;
import io.hamiobserve.domain.fleet.TrendSet;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Which steps of a chart a rule group's records serve: those with a run of the group within the
 * records' lookback ({@link RecordingRules#FUNNEL_LOOKBACK}) before the step, as its marker
 * ({@link RecordingRules#EVALUATED}) says. A chart reads the records at those steps and the raw
 * series at the others — what {@code recorded or raw} gives at each step, without asking the engine
 * for the raw expression where the records answer it. The rules start later than the history
 * (deployed last week; a six-hour chart in the first hours after), stop, or skip: a chart whose
 * records cover part of its steps reads that part from them, not the whole range raw.
 */
final class RecordedSteps {
    private final TrendSet.Grid grid;
    private final boolean[] served;

    private RecordedSteps(TrendSet.Grid grid, boolean[] served) {
        this.grid = grid;
        this.served = served;
    }

    /** No step recorded: every step reads the raw series. */
    static RecordedSteps none(TrendSet.Grid grid) {
        return new RecordedSteps(grid, new boolean[grid.steps()]);
    }

    /**
     * Asks {@code api} when {@code group} ran at each step of {@code grid}: one small range query
     * (the marker, one series per engine that runs the rules), sent now. Any series with a run
     * counts, as where each cluster's Prometheus runs the rules and writes its own marker.
     */
    static CompletableFuture<RecordedSteps> asked(PrometheusApi api, RecordingRules.Group group, TrendSet.Grid grid) {
        PromQl.Query runs = FleetQueries.RULE_RUNS.bind("group", group.label,
                "range", Duration.ofSeconds(RecordingRules.FUNNEL_LOOKBACK_SECONDS));
        return api.range(runs, Instant.ofEpochSecond(grid.first()), Instant.ofEpochSecond(grid.at(grid.steps() - 1)),
                Duration.ofSeconds(grid.step())).thenApply(series -> {
                    boolean[] recorded = new boolean[grid.steps()];
                    for (PrometheusApi.Series each : series) {
                        for (double[] point : each.points()) {
                            int step = stepOf(grid, point[0]);
                            if (step >= 0 && point[1] > 0) {
                                recorded[step] = true;
                            }
                        }
                    }
                    return new RecordedSteps(grid, recorded);
                });
    }

    /** Whether every step is recorded. */
    boolean all() {
        return first(false) < 0;
    }

    /** Whether no step is recorded. */
    boolean none() {
        return first(true) < 0;
    }

    /**
     * The chart's line from the two reads: {@code raw} sent over the steps the records miss (from
     * the first such step to the last), {@code recorded} over those they serve, each step taken from
     * the read that serves it. A read not needed is not sent.
     */
    CompletableFuture<List<PrometheusApi.Series>> read(PrometheusApi api, PromQl.Query raw, PromQl.Query recorded) {
        if (none()) {
            return range(api, raw, 0, served.length - 1);
        }
        if (all()) {
            return range(api, recorded, 0, served.length - 1);
        }
        CompletableFuture<List<PrometheusApi.Series>> fromRecords = range(api, recorded, first(true), last(true));
        CompletableFuture<List<PrometheusApi.Series>> fromRaw = range(api, raw, first(false), last(false));
        return fromRecords.thenCombine(fromRaw, this::spliced);
    }

    /**
     * What a line read by {@link #read} is: the raw expression where no step is recorded, the
     * records' where every step is, else {@link #expression}.
     */
    Provenance provenance(PromQl.Query raw, PromQl.Query recorded) {
        if (none()) {
            return new Provenance(raw.name(), raw.expression());
        }
        return new Provenance(recorded.name(), all() ? recorded.expression() : expression(raw, recorded));
    }

    /** {@code recorded or raw}: what the spliced line equals at every step, as a reader can paste it. */
    static String expression(PromQl.Query raw, PromQl.Query recorded) {
        return "(" + recorded.expression() + ") or (" + raw.expression() + ")";
    }

    private List<PrometheusApi.Series> spliced(List<PrometheusApi.Series> fromRecords, List<PrometheusApi.Series> fromRaw) {
        Map<Map<String, String>, List<double[]>> lines = new LinkedHashMap<>();
        keep(fromRecords, true, lines);
        keep(fromRaw, false, lines);
        List<PrometheusApi.Series> series = new ArrayList<>();
        lines.forEach((labels, points) -> {
            points.sort((a, b) -> Double.compare(a[0], b[0]));
            series.add(new PrometheusApi.Series(labels, points));
        });
        return series;
    }

    /** The points of {@code read} at the steps whose recorded state is {@code fromRecords}. */
    private void keep(List<PrometheusApi.Series> read, boolean fromRecords, Map<Map<String, String>, List<double[]>> lines) {
        for (PrometheusApi.Series each : read) {
            for (double[] point : each.points()) {
                int step = stepOf(grid, point[0]);
                if (step >= 0 && served[step] == fromRecords) {
                    lines.computeIfAbsent(each.labels(), labels -> new ArrayList<>()).add(point);
                }
            }
        }
    }

    private CompletableFuture<List<PrometheusApi.Series>> range(PrometheusApi api, PromQl.Query query, int from, int to) {
        return api.range(query, Instant.ofEpochSecond(grid.at(from)), Instant.ofEpochSecond(grid.at(to)),
                Duration.ofSeconds(grid.step()));
    }

    private int first(boolean state) {
        for (int i = 0; i < served.length; i++) {
            if (served[i] == state) {
                return i;
            }
        }
        return -1;
    }

    private int last(boolean state) {
        for (int i = served.length - 1; i >= 0; i--) {
            if (served[i] == state) {
                return i;
            }
        }
        return -1;
    }

    /** The step a point's time falls on, or -1 off the grid (engines answer on the steps asked). */
    private static int stepOf(TrendSet.Grid grid, double time) {
        if (!Double.isFinite(time)) {
            return -1;
        }
        long offset = Math.round((time - grid.first()) / grid.step());
        return offset >= 0 && offset < grid.steps() ? (int) offset : -1;
    }
}
