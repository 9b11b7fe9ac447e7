package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.Tiles;
import io.hamiobserve.domain.fleet.Card;
import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.Funnel;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.FleetTotals;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.TimeRange;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.WorkloadShare;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The overview: the fleet's headline tiles, its trends, the exporters' health, and what needs
 * attention now (idle shares, hardware, use beyond allocation).
 */
final class OverviewPage extends FleetPage {
    static final ConsolePage PAGE = ConsolePage.listed("/", "Overview", OverviewPage::new);
    private static final int TOP = 10;
    /** The most clusters whose totals the overview reads (each a cards-only read of its own). */
    static final int MAX_CLUSTER_ROWS = 16;
    /** The funnel's window: the Showback page's default, so both read the same card-hours. */
    static final Duration FUNNEL_WINDOW = Duration.ofDays(7);
    /**
     * How long the page waits for the funnel's card-hours when none are kept yet, before it says they
     * are still being read: the rest of the page is served within a second of being asked.
     */
    static final Duration SUMMARY_WAIT = Duration.ofMillis(500);

    OverviewPage(PageContext context) {
        super(context);
    }

    @Override
    public Result build(Request request) throws SourceUnavailableException {
        TimeRange range = range(request, TimeRange.DAY);
        fleet.ahead(() -> fleet.trends(new TrendScope.Cluster(), request.at(), range.length(), range.step()));
        fleet.ahead(() -> fleet.cardHours(request.at(), FUNNEL_WINDOW));
        FleetState state = fleet.state(request.at(), FleetScope.EVERYTHING);
        Builder page = page("Overview", request, state);
        Map<Measure, String> queries = page.queries(state.provenance());
        List<WorkloadShare> idle = FleetTotals.topIdle(state, Integer.MAX_VALUE);
        List<Card> beyond = FleetTotals.usedBeyondAllocation(state);
        List<Card> attention = PhysicalView.attention(state.cards());
        List<String[]> health = Columns.healthRows(state.health());
        List<Columns.ClusterTotals> clusters = clusterTotals(request, state);
        // The Showback page's funnel over its default window: the card-hours the background refresh
        // keeps. Until they are first kept (a console started moments ago, an engine slow at weeks)
        // the page is not held for them: it says they are still being read. An export waits for them.
        Optional<CardHours> hours = request.export().isPresent()
                ? Optional.of(fleet.cardHours(request.at(), FUNNEL_WINDOW))
                : fleet.within(SUMMARY_WAIT, () -> fleet.cardHours(request.at(), FUNNEL_WINDOW));
        hours.ifPresent(kept -> page.queries(kept.provenance()));
        Optional<ShowbackView.FunnelSection> funnel = hours.map(kept -> ShowbackView.FunnelSection.of(kept,
                request.get("funnel"), links));
        Table<FleetState.NodeSummary> nodes = withCluster(Columns.nodes(links), state::cluster);
        Map<String, Rows<?>> tables = new java.util.HashMap<>(funnel.map(ShowbackView.FunnelSection::exports)
                .orElse(Map.of()));
        tables.putAll(Map.of("clusters", rows(Columns.clusters(links), clusters),
                "nodes", rows(nodes, state.nodes()),
                "idle", rows(Columns.idleShares(links), idle), "beyond", rows(Columns.beyondAllocation(links), beyond),
                "health", rows(Columns.health(), health), "hardware", rows(PhysicalView.attentionTable(links),
                        attention)));
        Optional<Result> export = export(request, tables);
        if (export.isPresent()) {
            return export.get();
        }
        FleetTotals totals = FleetTotals.of(state);
        String idleCards = totals.memoryIdleCards().isKnown()
                ? "≈ " + Format.number(totals.memoryIdleCards().orElseThrow(), 1) + " cards' worth allocated but unused"
                : "";
        page.add(new Tiles(List.of(
                PageKit.tile("Cards", Figure.of(totals.cards()), Kind.COUNT, "on " + totals.nodes() + " nodes", "",
                        queries.get(Measure.CARD_MEMORY_TOTAL)),
                PageKit.tile("Workloads", Figure.of(totals.workloads()), Kind.COUNT, "containers holding GPU shares",
                        "", queries.get(Measure.CONTAINER_MEMORY_ALLOCATED)),
                PageKit.tile("Memory allocated", totals.memoryAllocatedFraction(), Kind.FRACTION,
                        Format.figure(totals.memoryAllocated(), Kind.BYTES) + " of "
                                + Format.figure(totals.memoryTotal(), Kind.BYTES), tone(totals.memoryAllocatedFraction()),
                        queries.get(Measure.CARD_MEMORY_ALLOCATED)),
                PageKit.tile("Memory used", totals.memoryUsedFraction(), Kind.FRACTION,
                        Format.figure(totals.memoryUsed(), Kind.BYTES) + " in use"
                                + (totals.cardsWithoutUsage() > 0 ? "; " + totals.cardsWithoutUsage()
                                + " cards report no usage and are left out" : ""),
                        tone(totals.memoryUsedFraction()), queries.get(Measure.CARD_MEMORY_USED)),
                PageKit.tile("Compute allocated", totals.coresAllocatedFraction(), Kind.FRACTION,
                        "mean of " + Format.count(totals.cards()) + " cards", tone(totals.coresAllocatedFraction()),
                        queries.get(Measure.CARD_CORES_ALLOCATED_PERCENT)),
                PageKit.tile("Compute used", totals.coresUsedFraction(), Kind.FRACTION, "average card utilisation",
                        tone(totals.coresUsedFraction()), queries.get(Measure.CARD_UTILISATION)),
                PageKit.tile("The gap", totals.memoryIdle(), Kind.BYTES, idleCards, "warn",
                        queries.get(Measure.CONTAINER_MEMORY_USED)),
                healthTile(state.health(), health.size(), queries.get(Measure.SOURCE_HEALTH)))));
        page.add(new Tiles(PhysicalView.overviewTiles(state, queries)));
        if (!clusters.isEmpty()) {
            page.add(view(Columns.clusters(links), clusters, request, queries, "The figures above are summed across "
                    + "the clusters; each cluster's own, from its cards" + (context().clusters().size() > clusters.size()
                    ? " (the first " + clusters.size() + " of " + context().clusters().size() + "; choose one above "
                    + "for the others)" : "") + ". Open one for its pages.", "No cluster."));
        }
        PhysicalView.noDcgm(state).ifPresent(page::add);
        page.add(rangeChoices(request, range));
        TrendSet trends = fleet.trends(new TrendScope.Cluster(), request.at(), range.length(), range.step());
        charts(page, "cluster", trends, "");
        page.add(Charts.chart("cluster-funnel", "Funnel: cards' worth", Charts.Unit.CARDS, times(trends),
                lines(trends, Measure.TREND_FUNNEL_TOTAL, "total", "total", Measure.TREND_FUNNEL_ALLOCATED,
                        "allocated", "allocated", Measure.TREND_FUNNEL_ACTIVE, "active", "active",
                        Measure.TREND_FUNNEL_EFFECTIVE, "effective", "effective"), List.of(),
                anchors(page, trends, Measure.TREND_FUNNEL_TOTAL, Measure.TREND_FUNNEL_ALLOCATED,
                        Measure.TREND_FUNNEL_ACTIVE, Measure.TREND_FUNNEL_EFFECTIVE),
                "At each step: active is some use in the " + Funnel.ACTIVE.toMinutes() + " minutes before it, "
                        + "effective a share using at least " + Math.round(Funnel.EFFECTIVE * 100)
                        + " % of its allocation at that step."));
        if (funnel.isPresent()) {
            page.note("info", "The funnel over the last " + Format.duration(FUNNEL_WINDOW) + ", in cards' worth: "
                    + "total (registered, healthy), allocated (what shares block), active (shares with some use in the "
                    + "last " + Funnel.ACTIVE.toMinutes() + " minutes), effective (of those, shares that used at least "
                    + Math.round(Funnel.EFFECTIVE * 100) + " % of their allocation over it). An average over the "
                    + "window: a card seen for part of it counts as that part of a card. The Showback page has its "
                    + "card-hours.");
            funnel(page, request, funnel.get());
        } else {
            page.note("info", "The funnel over the last " + Format.duration(FUNNEL_WINDOW) + " is still being "
                    + "read (its card-hours, which the console keeps once read): reload the page in a few seconds.");
        }
        if (!health.isEmpty()) {
            page.add(view(Columns.health(), health, request, queries, "Sources failing, stale ledgers, skipped "
                    + "inputs and endpoints Prometheus cannot scrape.", ""));
        }
        page.add(view(nodes, state.nodes(), request, queries, "", "No node registers a card."));
        page.add(view(Columns.idleShares(links), idle.subList(0, Math.min(TOP, idle.size())), request, queries,
                "Allocated but unused now: what right-sizing could give back (see Right-sizing for the "
                        + "recommendations over time).", "No container leaves memory idle."));
        if (state.dcgmScraped()) {
            page.add(view(PhysicalView.attentionTable(links), attention, request, queries, "From DCGM's exporter: "
                    + "clocks held by heat or power, the last Xid error, uncorrectable ECC errors, and HAMi's and "
                    + "DCGM's memory used differing beyond the tolerance.", "No card is throttled or reports an error."));
        }
        page.add(view(Columns.beyondAllocation(links), beyond, request, queries,
                "Use above everything the scheduler allocated on the card: a container runs outside HAMi-Core "
                        + "(CUDA_DISABLE_CONTROL=true) or outside Kubernetes.",
                "No card is used beyond its allocation."));
        return page.html();
    }

    /**
     * Each cluster's totals from its cards, when the page shows all of several clusters; none for
     * one cluster or a page of one. From the fleet-wide {@code state} the page has read where every
     * card and node in it names one cluster ({@link FleetTotals#byCluster}): no read more, where each
     * cluster's own read would ask the engine for its cards (up to {@link #MAX_CLUSTER_ROWS} reads at
     * every visit whose answers are not kept, queued behind whatever the engine is reading). Otherwise
     * read through each cluster's own answers, all at once.
     */
    private List<Columns.ClusterTotals> clusterTotals(Request request, FleetState state)
            throws SourceUnavailableException {
        if (context().cluster().isPresent() || context().clusters().size() < 2) {
            return List.of();
        }
        List<String> shown = context().clusters().stream().limit(MAX_CLUSTER_ROWS).toList();
        Optional<Map<String, FleetTotals>> fromState = FleetTotals.byCluster(state);
        if (fromState.isPresent() && fromState.get().keySet().containsAll(shown)) {
            return shown.stream().map(name -> new Columns.ClusterTotals(name, fromState.get().get(name))).toList();
        }
        List<PageContext> each = shown.stream().map(name -> context().inCluster(name)).flatMap(Optional::stream)
                .toList();
        each.forEach(one -> one.fleet().ahead(() -> one.fleet().state(request.at(), FleetScope.CARDS_ONLY)));
        List<Columns.ClusterTotals> rows = new java.util.ArrayList<>();
        for (PageContext one : each) {
            rows.add(new Columns.ClusterTotals(one.cluster().orElseThrow(),
                    FleetTotals.of(one.fleet().state(request.at(), FleetScope.CARDS_ONLY))));
        }
        return rows;
    }

    /**
     * The exporters' health: "no data" while no exporter has reported its sources (Prometheus has
     * not scraped one yet), never "healthy" on the strength of nothing.
     */
    private static Tiles.Tile healthTile(FleetState.Health health, int problems, String query) {
        if (!health.reported()) {
            return new Tiles.Tile("Exporter health", "no data", "no exporter has reported its sources yet", "",
                    "Prometheus holds no hami_observe_scrape_source_success series: it has not scraped an "
                            + "exporter yet, or scrapes none", query);
        }
        return new Tiles.Tile("Exporter health", health.healthy() ? "healthy"
                : problems + " problem" + (problems == 1 ? "" : "s"), health.sourcesReporting()
                + " sources reporting", health.healthy() ? "good" : "bad", null, query);
    }

    private static String tone(Figure fraction) {
        if (!fraction.isKnown()) {
            return "";
        }
        double value = fraction.orElseThrow();
        return value >= 0.8 ? "bad" : value >= 0.5 ? "warn" : "good";
    }
}
