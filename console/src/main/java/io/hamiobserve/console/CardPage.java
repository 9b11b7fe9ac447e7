package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.Facts;
import io.hamiobserve.domain.fleet.Card;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.TimeRange;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.Workload;
import io.hamiobserve.ports.SourceUnavailableException;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One card: its facts, its shares, and its trends.
 */
final class CardPage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.unlisted("/card", CardPage::new);

    CardPage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        String uuid = request.get("uuid");
        TimeRange range = range(request, TimeRange.DAY);
        fleet.ahead(() -> fleet.trends(new TrendScope.OneCard(uuid), request.at(), range.length(), range.step()));
        FleetState state = fleet.state(request.at(), new FleetScope.OnCard(uuid));
        Optional<Card> found = state.card(uuid);
        String title = found.filter(card -> card.index() >= 0)
                .map(card -> "Card " + card.index() + " of " + card.node()).orElse("Card " + uuid);
        Builder page = page(title, request, state).crumb("Overview", links.to(OverviewPage.PAGE));
        Map<Measure, String> queries = page.queries(state.provenance());
        Optional<Result> export = export(request, Map.of("shares", rows(Columns.shares(links),
                found.map(Card::shares).orElse(List.of()))));
        if (export.isPresent()) {
            return export.get();
        }
        if (found.isEmpty()) {
            List<Workload> holders = state.workloads().stream().filter(w -> w.cards().contains(uuid)).toList();
            if (holders.isEmpty()) {
                page.note("warn", "No card \"" + uuid + "\" is in the metrics now.");
                return page.html(404);
            }
            // Containers hold shares on it, so pages link here: answer with what the metrics have.
            page.note("warn", "Card \"" + uuid + "\" is not registered in the metrics now (its node's exporter may "
                    + "not report it, or it was removed); the containers that hold shares on it, and its history "
                    + "if Prometheus still has it, are below.");
            page.add(view(Columns.workloads(links, Map.of(), windowLabel(request)), holders, request, queries, "",
                    "No workloads hold shares here."));
            page.add(rangeChoices(request, range));
            charts(page, "card", fleet.trends(new TrendScope.OneCard(uuid), request.at(), range.length(),
                    range.step()), "");
            return page.html();
        }
        Card card = found.get();
        page.crumb("Node " + card.node(), links.node(card.node()));
        page.add(new Facts(card.model().isEmpty() ? uuid : card.model(), List.of(
                fact("Card", card.uuid(), null),
                fact("Node", card.node(), links.node(card.node())),
                fact("Index", card.index() < 0 ? "not registered" : Integer.toString(card.index()), null),
                fact("Mode", Columns.mode(card), null),
                fact("Health", Columns.health(card.healthy()), null),
                figureFact("Slots used", card.slotsUsed(), Kind.COUNT, " of " + Format.figure(card.slotsTotal(),
                        Kind.COUNT)),
                figureFact("Memory", card.memoryTotal(), Kind.BYTES, ""),
                figureFact("Allocated", card.memoryAllocated(), Kind.BYTES, card.memoryAllocated()
                        .fractionOf(card.memoryTotal()).isKnown() ? " (" + Format.fraction(card.memoryAllocated()
                        .fractionOf(card.memoryTotal()).orElseThrow()) + ")" : ""),
                figureFact(UsageOriginView.cardUsedLabel(card), card.memoryUsed(), Kind.BYTES,
                        UsageOriginView.cardMemoryNote(card)),
                figureFact("Used outside HAMi-Core", card.memoryOutsideHamiCore(), Kind.BYTES,
                        " (driver reserve and unmanaged processes)"),
                figureFact("Compute allocated", card.coresAllocated(), Kind.PERCENT, ""),
                figureFact("Compute used", card.utilisation(), Kind.PERCENT, UsageOriginView.cardComputeNote(card)),
                PhysicalView.sourcedFacts(card).get(0),
                PhysicalView.sourcedFacts(card).get(1))));
        PhysicalView.disagreementNote(card).ifPresent(page::add);
        PhysicalView.cardFacts(card).ifPresent(page::add);
        PhysicalView.noDcgm(state).ifPresent(page::add);
        if (card.mig()) {
            page.note("info", "This card is shared as MIG instances: its containers are held by MIG profiles, not "
                    + "HAMi-Core's memory and compute limits.");
        }
        page.add(Bars.card(card, links));
        page.add(view(Columns.shares(links), card.shares(), request, queries, "", "No container holds a share."));
        page.add(rangeChoices(request, range));
        TrendSet trends = fleet.trends(new TrendScope.OneCard(uuid), request.at(), range.length(), range.step());
        charts(page, "card", trends, "");
        return page.html();
    }
}
