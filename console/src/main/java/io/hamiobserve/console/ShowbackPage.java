package io.hamiobserve.console;

import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.Choices;
import io.hamiobserve.console.view.Link;
import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Showback;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Card-hours by namespace, workload, node, model or cluster over a window ({@link ShowbackView}: the
 * lines {@code hami-observe showback} prints, summing to every card seen), and the fleet funnel with
 * the workloads that lose the most at each stage.
 */
final class ShowbackPage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.listed("/showback", "Showback", ShowbackPage::new);

    ShowbackPage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        Duration window = window(request, PageContext.CARD_HOURS_WINDOW);
        FleetState state = fleet.state(request.at(), FleetScope.CARDS_ONLY);
        Builder page = page("Showback", request, state);
        CardHours hours = fleet.cardHours(request.at(), window);
        page.describes(hours.to(), context().cardHoursKept(window)).queries(hours.provenance());
        ShowbackView view = ShowbackView.of(hours, request.get("by"), settings.prices());
        ShowbackView.FunnelSection funnel = ShowbackView.FunnelSection.of(hours, request.get("funnel"), links);
        Map<String, Rows<?>> tables = new java.util.HashMap<>(funnel.exports());
        tables.put("showback", rows(view.table(), view.lines()));
        Optional<Result> export = export(request, tables);
        if (export.isPresent()) {
            return export.get();
        }
        page.add(view.tiles(page.anchors()));
        page.add(windowChoices(request, "7d"));
        page.add(new Choices("Rows", ShowbackView.GROUPS.stream().map(by -> new Link(by.label(),
                links.to(request.path(), with(request.parameters(), "by", by.label())), by == view.by())).toList()));
        page.note("info", ShowbackView.RULE);
        page.add(view(view.table(), view.lines(), request, page.anchors(), "", "No card was seen in the window."));
        funnel(page, request, funnel);
        return page.html();
    }
}
