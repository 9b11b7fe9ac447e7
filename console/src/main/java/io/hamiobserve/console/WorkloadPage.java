package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.ChartView;
import io.hamiobserve.console.view.Facts;
import io.hamiobserve.console.view.Snippet;
import io.hamiobserve.domain.fleet.Card;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Recommendation;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.Severity;
import io.hamiobserve.domain.fleet.TimeRange;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.Workload;
import io.hamiobserve.domain.fleet.WorkloadRef;
import io.hamiobserve.domain.fleet.WorkloadShare;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One container: its facts, its right-sizing and the graphs that explain it, and its cards.
 */
final class WorkloadPage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.unlisted("/workload", WorkloadPage::new);
    private static final double MIB = 1024 * 1024;

    WorkloadPage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        WorkloadRef ref = new WorkloadRef(request.get("namespace"), request.get("pod"), request.get("container"));
        // The whole fleet's history, as the right-sizing page reads it (one cached read): the pod's
        // workload rests on every pod its controller had, which no pod-scoped read names.
        fleet.ahead(() -> fleet.usage(request.at(), window(request), RightSizing.MIN_HISTORY, FleetScope.EVERYTHING));
        FleetState state = fleet.state(request.at(), new FleetScope.OfWorkload(ref));
        Builder page = page("Workload " + ref.pod(), request, state).crumb("Overview", links.to(OverviewPage.PAGE));
        Map<Measure, String> queries = page.queries(state.provenance());
        Optional<Workload> found = state.workload(ref);
        List<WorkloadShare> shares = found.map(Workload::shares).orElse(List.of());
        Optional<Result> export = export(request, Map.of("cards", rows(Columns.workloadCards(links), shares)));
        if (export.isPresent()) {
            return export.get();
        }
        if (found.isPresent()) {
            Workload workload = found.get();
            page.crumb("Node " + workload.node(), links.node(workload.node()));
            if (workload.cards().size() == 1) {
                page.crumb("Card", links.card(workload.cards().getFirst()));
            }
        } else {
            page.note("warn", "This workload holds no GPU share now (it may have finished, or never existed); "
                    + "its history, if Prometheus still has it, is below.");
        }
        Duration window = window(request);
        UsageHistory usage = fleet.usage(request.at(), window, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
        page.queries(usage.provenance());
        Optional<Recommendation> recommendation = found.map(w -> RightSizing.recommend(w, usage));
        found.ifPresent(workload -> page.add(new Facts(ref.toString(), List.of(
                fact("Namespace", ref.namespace(), links.to(WorkloadsPage.PAGE, Map.of("workloads.q", ref.namespace()))),
                fact("Pod", ref.pod(), null),
                fact("Container", ref.container(), null),
                fact("Node", workload.node(), links.node(workload.node())),
                fact("Cards", workload.cards().size() + " (" + String.join(", ", workload.cards()) + ")",
                        workload.cards().size() == 1 ? links.card(workload.cards().getFirst()) : null),
                figureFact("Memory allocated, all cards", workload.memoryAllocated(), Kind.BYTES, ""),
                figureFact("Used now, all cards", workload.memoryUsed(), Kind.BYTES, ""),
                figureFact("Peak per card over " + Format.duration(window), recommendation.map(Recommendation::memoryPeak)
                        .orElse(Figure.missing(io.hamiobserve.domain.fleet.Absence.NOT_ENOUGH_HISTORY)),
                        Kind.BYTES, ""),
                figureFact("Idle, all cards", workload.memoryIdle(), Kind.BYTES, ""),
                figureFact("Compute allocated, all cards", workload.coresAllocated(), Kind.PERCENT, ""),
                figureFact("Compute used, all cards", workload.utilisation(), Kind.PERCENT, ""),
                figureFact("Last kernel", workload.lastKernelSeconds(), Kind.SECONDS, " ago"),
                figureFact("Memory outside HAMi-Core", Figure.of(workload.unmanagedMemory()), Kind.BYTES, "")))));
        recommendation.ifPresent(advice -> recommendationSection(page, advice, window));
        WorkloadSection.of(ref, found, usage).ifPresent(advice -> WorkloadSection.add(page, links, ref, advice,
                window));
        page.add(windowChoices(request));
        TimeRange range = range(request, TimeRange.WEEK);
        page.add(rangeChoices(request, range));
        int index = shares.stream().mapToInt(WorkloadShare::containerIndex).filter(i -> i >= 0).findFirst()
                .orElse(-1);
        TrendSet trends = fleet.trends(new TrendScope.OneWorkload(ref, index), request.at(), range.length(),
                range.step());
        explanationCharts(page, trends, recommendation);
        page.add(view(Columns.workloadCards(links), shares, request, queries, "", "No cards."));
        return page.html();
    }

    private void recommendationSection(Builder page, Recommendation advice, Duration window) {
        List<Facts.Fact> facts = new ArrayList<>();
        facts.add(fact("Severity", advice.severity().name().toLowerCase(Locale.ROOT), null));
        facts.add(new Facts.Fact(advice.resources().memory(), Format.figure(advice.currentMemoryMib(), Kind.MIB) + " → "
                + Format.figure(advice.memoryMib(), Kind.MIB), null, advice.memoryMib() instanceof Figure.Missing m
                ? m.why().explanation() : "peak × " + RightSizing.MEMORY_MARGIN + ", at least peak + "
                + RightSizing.CONTEXT_FLOOR_MIB + " MiB, rounded up to " + RightSizing.MEMORY_STEP_MIB + " MiB",
                "recommended"));
        facts.add(new Facts.Fact(advice.resources().cores().isEmpty() ? "compute (not requested in percent)"
                : advice.resources().cores(), Format.figure(advice.currentCores(), Kind.PERCENT) + " → "
                + Format.figure(advice.cores(), Kind.PERCENT), null, "95th percentile of utilisation, rounded up to "
                + RightSizing.CORES_STEP, "recommended"));
        facts.add(fact("Rests on", advice.samples() + " samples over " + Format.duration(window)
                + (advice.idle() ? "; idle for the last " + RightSizing.IDLE_AFTER.toHours() + " h" : ""), null));
        advice.notEnoughData().ifPresent(why -> facts.add(new Facts.Fact("No recommendation",
                "not enough data: " + why + " (needs " + RightSizing.MIN_SAMPLES + " samples and "
                        + RightSizing.MIN_HISTORY.toHours() + " h of history)", null, null, "missing")));
        page.add(new Facts("Right-sizing", facts));
        advice.snippet().ifPresent(text -> page.add(new Snippet("Resources to request", text)));
    }

    /**
     * The explanation graphs: the usage series with the peak, the recommendation and the current
     * request drawn over it, so the numbers above can be checked by eye.
     */
    private void explanationCharts(Builder page, TrendSet trends, Optional<Recommendation> recommendation) {
        long[] times = times(trends);
        page.add(explanation(page, trends, times, "chart-memory", "Memory: use, peak, recommendation and request",
                Charts.Unit.BYTES, Measure.TREND_MEMORY_USED, Measure.TREND_MEMORY_ALLOCATED,
                marks(recommendation.map(Recommendation::memoryPeak), "peak",
                        recommendation.map(advice -> advice.memoryMib().map(mib -> mib * MIB))),
                "Flat lines: the peak over the window and the recommendation computed from it; the allocated "
                        + "line is the current request."));
        page.add(explanation(page, trends, times, "chart-compute", "Compute: utilisation, p95, recommendation and "
                        + "request", Charts.Unit.PERCENT, Measure.TREND_UTILISATION, Measure.TREND_CORES_ALLOCATED,
                marks(recommendation.map(Recommendation::utilisationP95), "p95",
                        recommendation.map(Recommendation::cores)), ""));
    }

    /** One explanation graph: each card's use, the request, and the flat marks. */
    private static ChartView explanation(Builder page, TrendSet trends, long[] times, String id, String title,
                                         Charts.Unit unit, Measure used, Measure allocated, List<Charts.Mark> marks,
                                         String note) {
        List<Charts.Line> lines = new ArrayList<>();
        List<Trend> uses = trends.of(used);
        uses.forEach(trend -> lines.add(new Charts.Line("used" + suffix(trend, uses.size()), "used", trend)));
        trends.of(allocated).stream().limit(1).forEach(trend -> lines.add(new Charts.Line("allocated", "allocated",
                trend)));
        return Charts.chart(id, title, unit, times, lines, marks, anchors(page, trends, used, allocated), note);
    }

    /** The flat lines of an explanation graph: the peak (or percentile) and the recommendation, when known. */
    private static List<Charts.Mark> marks(Optional<Figure> peak, String peakLabel, Optional<Figure> recommended) {
        List<Charts.Mark> marks = new ArrayList<>();
        peak.filter(Figure::isKnown).ifPresent(value -> marks.add(new Charts.Mark(peakLabel, "peak",
                value.orElseThrow())));
        recommended.filter(Figure::isKnown).ifPresent(value -> marks.add(new Charts.Mark("recommended",
                "recommended", value.orElseThrow())));
        return marks;
    }

    private static String suffix(Trend trend, int lines) {
        return lines > 1 && !trend.label().isEmpty() ? " " + trend.label() : "";
    }
}
