package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.Tiles;
import io.hamiobserve.domain.fleet.Card;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Recommendation;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.TimeRange;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.Workload;
import io.hamiobserve.ports.SourceUnavailableException;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One node: its cards, the containers holding shares on it, and its trends.
 */
final class NodePage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.unlisted("/node", NodePage::new);

    NodePage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        String name = request.get("name");
        TimeRange range = range(request, TimeRange.DAY);
        fleet.ahead(() -> fleet.trends(new TrendScope.Node(name), request.at(), range.length(), range.step()));
        fleet.ahead(() -> fleet.usage(request.at(), window(request), RightSizing.MIN_HISTORY,
                new FleetScope.OnNode(name)));
        FleetState state = fleet.state(request.at(), new FleetScope.OnNode(name));
        Builder page = page("Node " + name, request, state).crumb("Overview", links.to(OverviewPage.PAGE)).crumb("Nodes", links.to(NodesPage.PAGE));
        Map<Measure, String> queries = page.queries(state.provenance());
        Optional<FleetState.NodeSummary> found = state.node(name);
        // The node's own cluster's cards and workloads (all of them without clusters): a page of All
        // opened without cluster= for a name two clusters share shows the first cluster's node alone.
        String cluster = found.map(FleetState.NodeSummary::cluster).orElse("");
        List<Card> cards = state.cards().stream()
                .filter(card -> card.node().equals(name) && state.cluster(card).equals(cluster)).toList();
        List<Workload> workloads = state.workloads().stream()
                .filter(w -> w.node().equals(name) && state.cluster(w).equals(cluster)).toList();
        Map<Workload, Recommendation> advice = recommendations(request, workloads, page,
                new FleetScope.OnNode(name));
        Table<Workload> workloadTable = Columns.workloads(links, advice, windowLabel(request));
        Optional<Result> export = export(request, Map.of("cards", rows(Columns.cards(links), cards),
                "workloads", rows(workloadTable, workloads)));
        if (export.isPresent()) {
            return export.get();
        }
        if (found.isEmpty()) {
            if (workloads.isEmpty()) {
                page.note("warn", "No card on a node named \"" + name + "\" is in the metrics now.");
                return page.html(404);
            }
            // Containers hold shares here, but no card of the node is registered now: show what there is.
            page.note("warn", "No card of node \"" + name + "\" is registered in the metrics now (its exporter may "
                    + "be down, or the node was drained); the containers that hold shares on it are below.");
            page.add(view(workloadTable, workloads, request, page.anchors(), "", "No workloads hold shares here."));
            return page.html();
        }
        FleetState.NodeSummary node = found.get();
        page.add(new Tiles(List.of(
                PageKit.tile("Cards", Figure.of(node.cards()), Kind.COUNT, node.cardsWithoutUsage() > 0
                        ? node.cardsWithoutUsage() + " without usage data" : "", "", queries.get(Measure.CARD_MEMORY_TOTAL)),
                PageKit.tile("Workloads", Figure.of(node.workloads()), Kind.COUNT, "", "",
                        queries.get(Measure.CONTAINER_MEMORY_ALLOCATED)),
                PageKit.tile("Memory allocated", node.memoryAllocated().fractionOf(node.memoryTotal()), Kind.FRACTION,
                        Format.figure(node.memoryAllocated(), Kind.BYTES) + " of "
                                + Format.figure(node.memoryTotal(), Kind.BYTES), "",
                        queries.get(Measure.CARD_MEMORY_ALLOCATED)),
                PageKit.tile("Memory used", node.memoryUsed().fractionOf(node.memoryTotal()), Kind.FRACTION,
                        Format.figure(node.memoryUsed(), Kind.BYTES), "", queries.get(Measure.CARD_MEMORY_USED)),
                PageKit.tile("Compute allocated", node.coresAllocatedFraction(), Kind.FRACTION,
                        "mean of its cards", "", queries.get(Measure.CARD_CORES_ALLOCATED_PERCENT)),
                PageKit.tile("Compute used", node.utilisation().fractionOf(node.coresTotal()), Kind.FRACTION, "", "",
                        queries.get(Measure.CARD_UTILISATION)),
                new Tiles.Tile("Sources failing", Integer.toString(node.sourcesFailing()), "",
                        node.sourcesFailing() > 0 ? "bad" : "good", null, queries.get(Measure.SOURCE_HEALTH)))));
        PhysicalView.noDcgm(state).ifPresent(page::add);
        page.add(view(Columns.cards(links), cards, request, queries, "", "No cards."));
        page.add(view(workloadTable, workloads, request, page.anchors(), "", "No workloads hold shares here."));
        page.add(rangeChoices(request, range));
        charts(page, "node", fleet.trends(new TrendScope.Node(name), request.at(), range.length(), range.step()), "");
        return page.html();
    }
}
