package io.hamiobserve.console;

import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.ports.SourceUnavailableException;

import java.util.Map;
import java.util.Optional;

/**
 * Every node with a registered card.
 */
final class NodesPage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.listed("/nodes", "Nodes", NodesPage::new);

    NodesPage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        FleetState state = fleet.state(request.at(), FleetScope.CARDS_ONLY);
        Builder page = page("Nodes", request, state);
        Map<Measure, String> queries = page.queries(state.provenance());
        Table<FleetState.NodeSummary> table = withCluster(Columns.nodes(links), state::cluster);
        Optional<Result> export = export(request, Map.of("nodes", rows(table, state.nodes())));
        if (export.isPresent()) {
            return export.get();
        }
        page.add(view(table, state.nodes(), request, queries, "Every node with a registered card, from the metrics "
                + "alone (no node labels needed).", "No node registers a card."));
        return page.html();
    }
}
