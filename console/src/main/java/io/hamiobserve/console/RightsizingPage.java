package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.Tiles;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.FleetTotals;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Recommendation;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.Severity;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.WorkloadRecommendation;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The right-sizing recommendations of every container, and what they would free.
 */
final class RightsizingPage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.listed("/rightsizing", "Right-sizing", RightsizingPage::new);

    RightsizingPage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        fleet.ahead(() -> fleet.usage(request.at(), window(request), RightSizing.MIN_HISTORY, FleetScope.EVERYTHING));
        FleetState state = fleet.state(request.at(), FleetScope.EVERYTHING);
        Builder page = page("Right-sizing", request, state);
        page.queries(state.provenance());
        Duration window = window(request);
        UsageHistory usage = fleet.usage(request.at(), window, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
        page.describes(usage.at(), context().usageKept(window, FleetScope.EVERYTHING)).queries(usage.provenance());
        List<Recommendation> recommendations = RightSizing.recommendAll(state.workloads(), usage);
        Table<Recommendation> table = Columns.recommendations(links);
        List<WorkloadRecommendation> byWorkload = RightSizing.byWorkload(state.workloads(), usage);
        Table<WorkloadRecommendation> workloadTable = clusterColumnWhereSpanning(
                WorkloadColumns.recommendations(links));
        Optional<Result> export = export(request, Map.of("rightsizing", rows(table, recommendations),
                "byworkload", rows(workloadTable, byWorkload)));
        if (export.isPresent()) {
            return export.get();
        }
        RightSizing.Savings savings = RightSizing.Savings.of(recommendations, FleetTotals.of(state).meanCardMemory());
        Map<Severity, Long> bySeverity = new EnumMap<>(Severity.class);
        recommendations.forEach(r -> bySeverity.merge(r.severity(), 1L, Long::sum));
        page.add(new Tiles(List.of(
                PageKit.tile("Memory right-sizing frees", Figure.of(savings.memoryBytes()), Kind.BYTES,
                        savings.memoryCards().isKnown() ? "≈ " + Format.number(savings.memoryCards().orElseThrow(), 1)
                                + " cards' worth" : "", "good", page.anchors().get(Measure.CONTAINER_MEMORY_PEAK)),
                PageKit.tile("Compute it frees", Figure.of(savings.cores() / 100), Kind.DECIMAL, "cards' worth of compute",
                        "good", page.anchors().get(Measure.CONTAINER_UTILISATION_P95)),
                new Tiles.Tile("Critical", Long.toString(bySeverity.getOrDefault(Severity.CRITICAL, 0L)),
                        "differ by ≥ " + Severity.MEMORY_CRITICAL_MIB / 1024 + " GiB or ≥ " + Severity.CORES_CRITICAL
                                + " cores", "bad", null, null),
                new Tiles.Tile("Warning", Long.toString(bySeverity.getOrDefault(Severity.WARNING, 0L)),
                        "≥ " + Severity.MEMORY_WARNING_MIB / 1024 + " GiB or ≥ " + Severity.CORES_WARNING + " cores",
                        "warn", null, null),
                new Tiles.Tile("Not enough data", Long.toString(bySeverity.getOrDefault(Severity.UNKNOWN, 0L)),
                        "< " + RightSizing.MIN_SAMPLES + " samples or < " + RightSizing.MIN_HISTORY.toHours() + " h",
                        "", null, page.anchors().get(Measure.CONTAINER_SAMPLES)))));
        page.add(windowChoices(request));
        page.note("info", "Per workload over the last " + Format.duration(window) + ": memory per card "
                + "(nvidia.com/gpumem, or the card's vendor's resource) = peak × " + RightSizing.MEMORY_MARGIN
                + ", never below peak + " + RightSizing.CONTEXT_FLOOR_MIB
                + " MiB (room for a CUDA context), rounded up to " + RightSizing.MEMORY_STEP_MIB
                + " MiB; compute (nvidia.com/gpucores, or the vendor's where it is a percent of the card) = 95th "
                + "percentile of utilisation, rounded up to " + RightSizing.CORES_STEP
                + " (at least " + RightSizing.CORES_STEP + ", at most 100). Severity by absolute difference. Open a "
                + "workload for its explanation graph and a resources block to copy.");
        page.add(view(workloadTable, byWorkload, request, page.anchors(), WorkloadColumns.CAPTION,
                "No workloads hold GPU shares."));
        page.add(view(table, recommendations, request, page.anchors(), "Per pod and container, as the pods run now "
                + "(bare pods, debugging): the same rules on one pod's history.", "No workloads hold GPU shares."));
        return page.html();
    }
}
