package io.hamiobserve.console;

import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Recommendation;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.Workload;
import io.hamiobserve.domain.fleet.WorkloadRecommendation;
import io.hamiobserve.ports.SourceUnavailableException;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every container holding a GPU share, with its peak and recommendation over the window.
 */
final class WorkloadsPage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.listed("/workloads", "Workloads", WorkloadsPage::new);

    WorkloadsPage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        fleet.ahead(() -> fleet.usage(request.at(), window(request), RightSizing.MIN_HISTORY, FleetScope.EVERYTHING));
        FleetState state = fleet.state(request.at(), FleetScope.EVERYTHING);
        Builder page = page("Workloads", request, state);
        page.queries(state.provenance());
        Map<Workload, Recommendation> advice = recommendations(request, state.workloads(), page,
                FleetScope.EVERYTHING);
        Table<Workload> table = withCluster(Columns.workloads(links, advice, windowLabel(request)), state::cluster);
        // The same cached read as the recommendations above: one row per controller and container.
        List<WorkloadRecommendation> byWorkload = RightSizing.byWorkload(state.workloads(), fleet.usage(request.at(),
                window(request), RightSizing.MIN_HISTORY, FleetScope.EVERYTHING));
        Table<WorkloadRecommendation> workloadTable = clusterColumnWhereSpanning(
                WorkloadColumns.recommendations(links));
        Optional<Result> export = export(request, Map.of("workloads", rows(table, state.workloads()),
                "byworkload", rows(workloadTable, byWorkload)));
        if (export.isPresent()) {
            return export.get();
        }
        page.add(windowChoices(request));
        page.add(view(workloadTable, byWorkload, request, page.anchors(), WorkloadColumns.CAPTION,
                "No workloads hold GPU shares."));
        page.add(view(table, state.workloads(), request, page.anchors(), "Per pod: every container holding a GPU share (and "
                + "any with usage the scheduler does not list). Peak and recommendation over the last "
                + windowLabel(request) + ".", "No workloads hold GPU shares."));
        return page.html();
    }
}
