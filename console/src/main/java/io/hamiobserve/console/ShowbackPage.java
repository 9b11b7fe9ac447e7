package io.hamiobserve.console;

import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.Choices;
import io.hamiobserve.console.view.Link;
import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Funnel;
import io.hamiobserve.domain.fleet.Showback;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

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
        Duration window = window(request, Duration.ofDays(7));
        FleetState state = fleet.state(request.at(), FleetScope.CARDS_ONLY);
        Builder page = page("Showback", request, state);
        CardHours hours = fleet.cardHours(request.at(), window);
        page.describes(hours.to()).queries(hours.provenance());
        ShowbackView view = ShowbackView.of(hours, request.get("by"), settings.prices());
        Showback.Grouping funnelBy = request.get("funnel").equals("model") ? Showback.Grouping.MODEL
                : request.get("funnel").equals("cluster") ? Showback.Grouping.CLUSTER : Showback.Grouping.NAMESPACE;
        List<Funnel> funnel = Funnel.of(hours, funnelBy);
        List<Funnel.Loss> losses = Funnel.losses(hours, 10);
        Table<Funnel> funnelTable = ShowbackView.funnelTable("Funnel by " + funnelBy.label() + ", cards' worth");
        Table<Funnel.Loss> lossTable = ShowbackView.lossTable(links);
        Optional<Result> export = export(request, Map.of("showback", rows(view.table(), view.lines()),
                "funnel", rows(funnelTable, funnel), "losses", rows(lossTable, losses)));
        if (export.isPresent()) {
            return export.get();
        }
        page.add(view.tiles(page.anchors()));
        page.add(windowChoices(request, "7d"));
        page.add(new Choices("Rows", ShowbackView.GROUPS.stream().map(by -> new Link(by.label(),
                links.to(request.path(), with(request.parameters(), "by", by.label())), by == view.by())).toList()));
        page.note("info", ShowbackView.RULE);
        page.add(view(view.table(), view.lines(), request, page.anchors(), "", "No card was seen in the window."));
        page.add(new Choices("Funnel by", Stream.of(Showback.Grouping.NAMESPACE, Showback.Grouping.MODEL,
                Showback.Grouping.CLUSTER).map(by -> new Link(by.label(), links.to(request.path(),
                with(request.parameters(), "funnel", by.label())), by == funnelBy)).toList()));
        page.add(view(funnelTable, funnel, request, page.anchors(), "", "No card was seen in the window."));
        page.add(view(lossTable, losses, request, page.anchors(), "",
                "Nothing lost: every allocation is active and effective."));
        return page.html();
    }
}
