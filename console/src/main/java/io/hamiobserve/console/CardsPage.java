package io.hamiobserve.console;

import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.domain.fleet.Card;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.ports.SourceUnavailableException;

import java.util.Map;
import java.util.Optional;

/**
 * Every card: allocation against use.
 */
final class CardsPage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.listed("/cards", "Cards", CardsPage::new);

    CardsPage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        FleetState state = fleet.state(request.at(), FleetScope.CARDS_ONLY);
        Builder page = page("Cards", request, state);
        Map<Measure, String> queries = page.queries(state.provenance());
        Table<Card> table = withCluster(Columns.cards(links), state::cluster);
        Optional<Result> export = export(request, Map.of("cards", rows(table, state.cards())));
        if (export.isPresent()) {
            return export.get();
        }
        page.add(view(table, state.cards(), request, queries,
                "Memory allocated is the scheduler's view; used is the driver's. Allocation can pass 100 % when "
                        + "a node registers scaled (overcommitted) memory: it is shown as it is.", "No cards."));
        return page.html();
    }
}
