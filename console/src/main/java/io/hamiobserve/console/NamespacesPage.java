package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.Tiles;
import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Showback;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every namespace: allocation against quota now, and its showback (card-hours, memory and compute
 * held, cost) over the window.
 */
final class NamespacesPage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.listed("/namespaces", "Namespaces", NamespacesPage::new);

    NamespacesPage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        Duration window = window(request, PageContext.CARD_HOURS_WINDOW);
        fleet.ahead(() -> fleet.cardHours(request.at(), window));
        FleetState state = fleet.state(request.at(), FleetScope.EVERYTHING);
        Builder page = page("Namespaces", request, state);
        page.queries(state.provenance());
        // The Showback page's card-hours, grouped by namespace: one accounting for both pages.
        CardHours hours = fleet.cardHours(request.at(), window);
        page.describes(hours.to(), context().cardHoursKept(window)).queries(hours.provenance());
        Showback report = hours.report(Showback.Grouping.NAMESPACE, settings.prices());
        List<FleetState.NamespaceSummary> namespaces = new ArrayList<>(state.namespaces());
        for (Showback.Row row : report.rows()) {
            if (namespaces.stream().noneMatch(ns -> ns.name().equals(row.key()))) {
                Figure none = Figure.missing(io.hamiobserve.domain.fleet.Absence.NOT_REPORTED);
                // A namespace that held GPUs in the window but holds none now still gets its line.
                namespaces.add(new FleetState.NamespaceSummary(row.key(), 0, Figure.of(0), none, Figure.of(0), none,
                        none, none));
            }
        }
        Table<FleetState.NamespaceSummary> table = Columns.namespaces(links, report);
        Optional<Result> export = export(request, Map.of("namespaces", rows(table, namespaces)));
        if (export.isPresent()) {
            return export.get();
        }
        double allocated = report.rows().stream().mapToDouble(Showback.Row::allocatedCardHours).sum();
        double used = report.rows().stream().mapToDouble(Showback.Row::usedCardHours).sum();
        page.add(new Tiles(List.of(
                PageKit.tile("Card-hours allocated", Figure.of(allocated), Kind.HOURS, "blocked by shares over "
                        + Format.duration(window), "", page.anchors().get(Measure.SHARE_CARD_SECONDS_ALLOCATED)),
                PageKit.tile("Card-hours used", Figure.of(used), Kind.HOURS, "at most each share's size, over "
                        + Format.duration(window), "", page.anchors().get(Measure.SHARE_CARD_SECONDS_USED)),
                PageKit.tile("Efficiency", Figure.of(used).fractionOf(Figure.of(allocated)), Kind.FRACTION,
                        "used ÷ allocated", "", null))));
        page.add(windowChoices(request, "7d"));
        page.add(view(table, namespaces, request, page.anchors(), "Now: allocation and use against each quota. Over "
                + "the window: the Showback page's card-hours by namespace (allocated, used, memory and compute held, "
                + "cost with prices); export as CSV for a spreadsheet.", "No namespace holds GPU shares."));
        return page.html();
    }
}
