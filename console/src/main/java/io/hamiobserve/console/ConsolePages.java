package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.ChartView;
import io.hamiobserve.console.view.Choices;
import io.hamiobserve.console.view.Facts;
import io.hamiobserve.console.view.Link;
import io.hamiobserve.console.view.ShapeForm;
import io.hamiobserve.console.view.Snippet;
import io.hamiobserve.console.view.TableView;
import io.hamiobserve.console.view.Tiles;
import io.hamiobserve.domain.fleet.AccrualHistory;
import io.hamiobserve.domain.fleet.Capacity;
import io.hamiobserve.domain.fleet.Card;
import io.hamiobserve.domain.fleet.Chargeback;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.Funnel;
import io.hamiobserve.domain.fleet.Showback;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.FleetTotals;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.PodShape;
import io.hamiobserve.domain.fleet.Recommendation;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.Severity;
import io.hamiobserve.domain.fleet.TimeRange;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.Workload;
import io.hamiobserve.domain.fleet.WorkloadRef;
import io.hamiobserve.domain.fleet.WorkloadShare;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The console's pages. Each reads what it needs through {@link FleetCache} (a fixed set of
 * queries per page), lets the domain compute (joins, right-sizing, capacity, chargeback), and lays
 * out sections; a page's tables can also be asked for as CSV or JSON ({@code export=id.csv}).
 */
final class ConsolePages {
    static final List<String> WINDOWS = List.of("24h", "7d", "14d", "30d");
    private static final double MIB = 1024 * 1024;
    private static final int TOP = 10;

    private final FleetCache fleet;
    private final Links links;
    private final ConsoleSettings settings;

    ConsolePages(FleetCache fleet, Links links, ConsoleSettings settings) {
        this.fleet = fleet;
        this.links = links;
        this.settings = settings;
    }

    /** Whether the fleet-wide answers are read again in the background (pages then say how often). */
    private volatile boolean refreshing;

    /**
     * A page over {@code state}, whose figures describe its instant (earlier than the request when
     * served from the cache); it says when the source holds none of the exporters' series.
     */
    private Builder page(String title, Request request, FleetState state) {
        Builder page = new Builder(title, request.path(), links, settings, fleet.history().description(), state.at())
                .failures(fleet::failureOfThisRequest)
                .noData(state.cards().isEmpty() && state.workloads().isEmpty() && !state.health().reported());
        return refreshing ? page.refreshed(settings.refresh(), request.at()) : page;
    }

    /**
     * Reads what the fleet-wide pages need with their default windows and ranges — every container
     * now, the cards, each container's use over the default window, a week's chargeback, the
     * cluster's trends — all at once (as a page sends its reads) through {@code keeper}, and
     * returns when every read has answered; the first failure is thrown.
     */
    void refresh(FleetCache keeper, java.time.Instant at) throws SourceUnavailableException {
        refreshing = true;
        TimeRange range = TimeRange.DAY;
        keeper.all(List.of(
                () -> keeper.usage(at, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING),
                () -> keeper.accruals(at, Duration.ofDays(7)),
                () -> keeper.trends(new TrendScope.Cluster(), at, range.length(), range.step()),
                () -> keeper.state(at, FleetScope.CARDS_ONLY),
                () -> keeper.state(at, FleetScope.EVERYTHING)));
    }

    // ---- Overview ----

    Result overview(Request request) throws SourceUnavailableException {
        TimeRange range = range(request, TimeRange.DAY);
        fleet.ahead(() -> fleet.trends(new TrendScope.Cluster(), request.at(), range.length(), range.step()));
        FleetState state = fleet.state(request.at(), FleetScope.EVERYTHING);
        Builder page = page("Overview", request, state);
        Map<Measure, String> queries = page.queries(state.provenance());
        List<WorkloadShare> idle = FleetTotals.topIdle(state, Integer.MAX_VALUE);
        List<Card> beyond = FleetTotals.usedBeyondAllocation(state);
        List<Card> attention = PhysicalView.attention(state.cards());
        List<String[]> health = Columns.healthRows(state.health());
        Optional<Result> export = export(request, Map.of("nodes", rows(Columns.nodes(links), state.nodes()),
                "idle", rows(Columns.idleShares(links), idle), "beyond", rows(Columns.beyondAllocation(links), beyond),
                "health", rows(Columns.health(), health), "hardware", rows(PhysicalView.attentionTable(links),
                        attention)));
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
        PhysicalView.noDcgm(state).ifPresent(page::add);
        page.add(rangeChoices(request, range));
        TrendSet trends = fleet.trends(new TrendScope.Cluster(), request.at(), range.length(), range.step());
        charts(page, "cluster", trends, "");
        if (!health.isEmpty()) {
            page.add(view(Columns.health(), health, request, queries, "Sources failing, stale ledgers, skipped "
                    + "inputs and endpoints Prometheus cannot scrape.", ""));
        }
        page.add(view(Columns.nodes(links), state.nodes(), request, queries, "", "No node registers a card."));
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

    // ---- Nodes ----

    Result nodes(Request request) throws SourceUnavailableException {
        FleetState state = fleet.state(request.at(), FleetScope.CARDS_ONLY);
        Builder page = page("Nodes", request, state);
        Map<Measure, String> queries = page.queries(state.provenance());
        Table<FleetState.NodeSummary> table = Columns.nodes(links);
        Optional<Result> export = export(request, Map.of("nodes", rows(table, state.nodes())));
        if (export.isPresent()) {
            return export.get();
        }
        page.add(view(table, state.nodes(), request, queries, "Every node with a registered card, from the metrics "
                + "alone (no node labels needed).", "No node registers a card."));
        return page.html();
    }

    Result node(Request request) throws SourceUnavailableException {
        String name = request.get("name");
        TimeRange range = range(request, TimeRange.DAY);
        fleet.ahead(() -> fleet.trends(new TrendScope.Node(name), request.at(), range.length(), range.step()));
        fleet.ahead(() -> fleet.usage(request.at(), window(request), RightSizing.MIN_HISTORY,
                new FleetScope.OnNode(name)));
        FleetState state = fleet.state(request.at(), new FleetScope.OnNode(name));
        Builder page = page("Node " + name, request, state).crumb("Overview", links.to("/")).crumb("Nodes", links.to("/nodes"));
        Map<Measure, String> queries = page.queries(state.provenance());
        Optional<FleetState.NodeSummary> found = state.node(name);
        List<Card> cards = state.cards().stream().filter(card -> card.node().equals(name)).toList();
        List<Workload> workloads = state.workloads().stream().filter(w -> w.node().equals(name)).toList();
        Map<WorkloadRef, Recommendation> advice = recommendations(request, workloads, page,
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

    // ---- Cards ----

    Result cards(Request request) throws SourceUnavailableException {
        FleetState state = fleet.state(request.at(), FleetScope.CARDS_ONLY);
        Builder page = page("Cards", request, state);
        Map<Measure, String> queries = page.queries(state.provenance());
        Optional<Result> export = export(request, Map.of("cards", rows(Columns.cards(links), state.cards())));
        if (export.isPresent()) {
            return export.get();
        }
        page.add(view(Columns.cards(links), state.cards(), request, queries,
                "Memory allocated is the scheduler's view; used is the driver's. Allocation can pass 100 % when "
                        + "a node registers scaled (overcommitted) memory: it is shown as it is.", "No cards."));
        return page.html();
    }

    Result card(Request request) throws SourceUnavailableException {
        String uuid = request.get("uuid");
        TimeRange range = range(request, TimeRange.DAY);
        fleet.ahead(() -> fleet.trends(new TrendScope.OneCard(uuid), request.at(), range.length(), range.step()));
        FleetState state = fleet.state(request.at(), new FleetScope.OnCard(uuid));
        Optional<Card> found = state.card(uuid);
        String title = found.filter(card -> card.index() >= 0)
                .map(card -> "Card " + card.index() + " of " + card.node()).orElse("Card " + uuid);
        Builder page = page(title, request, state).crumb("Overview", links.to("/"));
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
                figureFact("Used (driver)", card.memoryUsed(), Kind.BYTES, ""),
                figureFact("Used outside HAMi-Core", card.memoryOutsideHamiCore(), Kind.BYTES,
                        " (driver reserve and unmanaged processes)"),
                figureFact("Compute allocated", card.coresAllocated(), Kind.PERCENT, ""),
                figureFact("Compute used", card.utilisation(), Kind.PERCENT, ""),
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

    // ---- Workloads ----

    Result workloads(Request request) throws SourceUnavailableException {
        fleet.ahead(() -> fleet.usage(request.at(), window(request), RightSizing.MIN_HISTORY, FleetScope.EVERYTHING));
        FleetState state = fleet.state(request.at(), FleetScope.EVERYTHING);
        Builder page = page("Workloads", request, state);
        page.queries(state.provenance());
        Map<WorkloadRef, Recommendation> advice = recommendations(request, state.workloads(), page,
                FleetScope.EVERYTHING);
        Table<Workload> table = Columns.workloads(links, advice, windowLabel(request));
        Optional<Result> export = export(request, Map.of("workloads", rows(table, state.workloads())));
        if (export.isPresent()) {
            return export.get();
        }
        page.add(windowChoices(request));
        page.add(view(table, state.workloads(), request, page.anchors(), "Every container holding a GPU share (and "
                + "any with usage the scheduler does not list). Peak and recommendation over the last "
                + windowLabel(request) + ".", "No workloads hold GPU shares."));
        return page.html();
    }

    Result workload(Request request) throws SourceUnavailableException {
        WorkloadRef ref = new WorkloadRef(request.get("namespace"), request.get("pod"), request.get("container"));
        fleet.ahead(() -> fleet.usage(request.at(), window(request), RightSizing.MIN_HISTORY,
                new FleetScope.OfWorkload(ref)));
        FleetState state = fleet.state(request.at(), new FleetScope.OfWorkload(ref));
        Builder page = page("Workload " + ref.pod(), request, state).crumb("Overview", links.to("/"));
        Map<Measure, String> queries = page.queries(state.provenance());
        Optional<Workload> found = state.workload(ref);
        List<WorkloadShare> shares = found.map(Workload::shares).orElse(List.of());
        Optional<Result> export = export(request, Map.of("cards", rows(Columns.workloadCards(links), shares)));
        if (export.isPresent()) {
            return export.get();
        }
        if (found.isPresent()) {
            Workload workload = found.get();
            page.crumb("Node " + workload.node(), links.node(workload.node()));
            if (workload.cards().size() == 1) {
                page.crumb("Card", links.card(workload.cards().getFirst()));
            }
        } else {
            page.note("warn", "This workload holds no GPU share now (it may have finished, or never existed); "
                    + "its history, if Prometheus still has it, is below.");
        }
        Duration window = window(request);
        UsageHistory usage = fleet.usage(request.at(), window, RightSizing.MIN_HISTORY,
                new FleetScope.OfWorkload(ref));
        page.queries(usage.provenance());
        Optional<Recommendation> recommendation = found.map(w -> RightSizing.recommend(w, usage));
        found.ifPresent(workload -> page.add(new Facts(ref.toString(), List.of(
                fact("Namespace", ref.namespace(), links.to("/workloads", Map.of("workloads.q", ref.namespace()))),
                fact("Pod", ref.pod(), null),
                fact("Container", ref.container(), null),
                fact("Node", workload.node(), links.node(workload.node())),
                fact("Cards", workload.cards().size() + " (" + String.join(", ", workload.cards()) + ")",
                        workload.cards().size() == 1 ? links.card(workload.cards().getFirst()) : null),
                figureFact("Memory allocated", workload.memoryAllocated(), Kind.BYTES, ""),
                figureFact("Used now", workload.memoryUsed(), Kind.BYTES, ""),
                figureFact("Peak over " + Format.duration(window), recommendation.map(Recommendation::memoryPeak)
                        .orElse(Figure.missing(io.hamiobserve.domain.fleet.Absence.NOT_ENOUGH_HISTORY)),
                        Kind.BYTES, ""),
                figureFact("Idle", workload.memoryIdle(), Kind.BYTES, ""),
                figureFact("Compute allocated", workload.coresAllocated(), Kind.PERCENT, ""),
                figureFact("Compute used", workload.utilisation(), Kind.PERCENT, ""),
                figureFact("Last kernel", workload.lastKernelSeconds(), Kind.SECONDS, " ago"),
                figureFact("Memory outside HAMi-Core", Figure.of(workload.unmanagedMemory()), Kind.BYTES, "")))));
        recommendation.ifPresent(advice -> recommendationSection(page, advice, window));
        page.add(windowChoices(request));
        TimeRange range = range(request, TimeRange.WEEK);
        page.add(rangeChoices(request, range));
        int index = shares.stream().mapToInt(WorkloadShare::containerIndex).filter(i -> i >= 0).findFirst()
                .orElse(-1);
        TrendSet trends = fleet.trends(new TrendScope.OneWorkload(ref, index), request.at(), range.length(),
                range.step());
        explanationCharts(page, trends, recommendation);
        page.add(view(Columns.workloadCards(links), shares, request, queries, "", "No cards."));
        return page.html();
    }

    private void recommendationSection(Builder page, Recommendation advice, Duration window) {
        List<Facts.Fact> facts = new ArrayList<>();
        facts.add(fact("Severity", advice.severity().name().toLowerCase(Locale.ROOT), null));
        facts.add(new Facts.Fact("nvidia.com/gpumem", Format.figure(advice.currentMemoryMib(), Kind.MIB) + " → "
                + Format.figure(advice.memoryMib(), Kind.MIB), null, advice.memoryMib() instanceof Figure.Missing m
                ? m.why().explanation() : "peak × " + RightSizing.MEMORY_MARGIN + ", at least peak + "
                + RightSizing.CONTEXT_FLOOR_MIB + " MiB, rounded up to " + RightSizing.MEMORY_STEP_MIB + " MiB",
                "recommended"));
        facts.add(new Facts.Fact("nvidia.com/gpucores", Format.figure(advice.currentCores(), Kind.PERCENT) + " → "
                + Format.figure(advice.cores(), Kind.PERCENT), null, "95th percentile of utilisation, rounded up to "
                + RightSizing.CORES_STEP, "recommended"));
        facts.add(fact("Rests on", advice.samples() + " samples over " + Format.duration(window)
                + (advice.idle() ? "; idle for the last " + RightSizing.IDLE_AFTER.toHours() + " h" : ""), null));
        advice.notEnoughData().ifPresent(why -> facts.add(new Facts.Fact("No recommendation",
                "not enough data: " + why + " (needs " + RightSizing.MIN_SAMPLES + " samples and "
                        + RightSizing.MIN_HISTORY.toHours() + " h of history)", null, null, "missing")));
        page.add(new Facts("Right-sizing", facts));
        advice.snippet().ifPresent(text -> page.add(new Snippet("Resources to request", text)));
    }

    /**
     * The explanation graphs: the usage series with the peak, the recommendation and the current
     * request drawn over it, so the numbers above can be checked by eye.
     */
    private void explanationCharts(Builder page, TrendSet trends, Optional<Recommendation> recommendation) {
        long[] times = times(trends);
        page.add(explanation(page, trends, times, "chart-memory", "Memory: use, peak, recommendation and request",
                Charts.Unit.BYTES, Measure.TREND_MEMORY_USED, Measure.TREND_MEMORY_ALLOCATED,
                marks(recommendation.map(Recommendation::memoryPeak), "peak",
                        recommendation.map(advice -> advice.memoryMib().map(mib -> mib * MIB))),
                "Flat lines: the peak over the window and the recommendation computed from it; the allocated "
                        + "line is the current request."));
        page.add(explanation(page, trends, times, "chart-compute", "Compute: utilisation, p95, recommendation and "
                        + "request", Charts.Unit.PERCENT, Measure.TREND_UTILISATION, Measure.TREND_CORES_ALLOCATED,
                marks(recommendation.map(Recommendation::utilisationP95), "p95",
                        recommendation.map(Recommendation::cores)), ""));
    }

    /** One explanation graph: each card's use, the request, and the flat marks. */
    private static ChartView explanation(Builder page, TrendSet trends, long[] times, String id, String title,
                                         Charts.Unit unit, Measure used, Measure allocated, List<Charts.Mark> marks,
                                         String note) {
        List<Charts.Line> lines = new ArrayList<>();
        List<Trend> uses = trends.of(used);
        uses.forEach(trend -> lines.add(new Charts.Line("used" + suffix(trend, uses.size()), "used", trend)));
        trends.of(allocated).stream().limit(1).forEach(trend -> lines.add(new Charts.Line("allocated", "allocated",
                trend)));
        return Charts.chart(id, title, unit, times, lines, marks, anchors(page, trends, used, allocated), note);
    }

    /** The flat lines of an explanation graph: the peak (or percentile) and the recommendation, when known. */
    private static List<Charts.Mark> marks(Optional<Figure> peak, String peakLabel, Optional<Figure> recommended) {
        List<Charts.Mark> marks = new ArrayList<>();
        peak.filter(Figure::isKnown).ifPresent(value -> marks.add(new Charts.Mark(peakLabel, "peak",
                value.orElseThrow())));
        recommended.filter(Figure::isKnown).ifPresent(value -> marks.add(new Charts.Mark("recommended",
                "recommended", value.orElseThrow())));
        return marks;
    }

    // ---- Namespaces ----

    Result namespaces(Request request) throws SourceUnavailableException {
        fleet.ahead(() -> fleet.accruals(request.at(), window(request, Duration.ofDays(7))));
        FleetState state = fleet.state(request.at(), FleetScope.EVERYTHING);
        Builder page = page("Namespaces", request, state);
        page.queries(state.provenance());
        Duration window = window(request, Duration.ofDays(7));
        AccrualHistory accruals = fleet.accruals(request.at(), window);
        page.describes(accruals.at()).queries(accruals.provenance());
        Map<String, Figure> quotas = new LinkedHashMap<>();
        state.namespaces().stream().filter(ns -> ns.memoryQuota().isKnown())
                .forEach(ns -> quotas.put(ns.name(), ns.memoryQuota()));
        Map<String, Chargeback> bills = Chargeback.of(accruals.namespaces(), window, quotas).stream()
                .collect(Collectors.toMap(Chargeback::namespace, Function.identity()));
        List<FleetState.NamespaceSummary> namespaces = new ArrayList<>(state.namespaces());
        for (String billed : bills.keySet()) {
            if (namespaces.stream().noneMatch(ns -> ns.name().equals(billed))) {
                Figure none = Figure.missing(io.hamiobserve.domain.fleet.Absence.NOT_REPORTED);
                // A namespace that held GPUs in the window but holds none now still gets its bill.
                namespaces.add(new FleetState.NamespaceSummary(billed, 0, Figure.of(0), none, Figure.of(0), none,
                        none, none));
            }
        }
        Table<FleetState.NamespaceSummary> table = Columns.namespaces(links, bills);
        Optional<Result> export = export(request, Map.of("namespaces", rows(table, namespaces)));
        if (export.isPresent()) {
            return export.get();
        }
        double allocated = bills.values().stream().map(Chargeback::memoryAllocatedGibHours).filter(Figure::isKnown)
                .mapToDouble(Figure::orElseThrow).sum();
        double used = bills.values().stream().map(Chargeback::memoryUsedGibHours).filter(Figure::isKnown)
                .mapToDouble(Figure::orElseThrow).sum();
        page.add(new Tiles(List.of(
                PageKit.tile("GPU memory held", Figure.of(allocated), Kind.HOURS, "GiB-hours over "
                        + Format.duration(window), "", page.anchors().get(Measure.NAMESPACE_MEMORY_ALLOCATED_SECONDS)),
                PageKit.tile("GPU memory used", Figure.of(used), Kind.HOURS, "GiB-hours over "
                        + Format.duration(window), "", page.anchors().get(Measure.NAMESPACE_MEMORY_USED_SECONDS)),
                PageKit.tile("Efficiency", Figure.of(used).fractionOf(Figure.of(allocated)), Kind.FRACTION,
                        "used ÷ held", "", null))));
        page.add(windowChoices(request, "7d"));
        page.add(view(table, namespaces, request, page.anchors(), "Now: allocation and use against each quota. Over "
                + "the window: GPU-memory-hours and card-hours held and used (chargeback); export as CSV for a "
                + "spreadsheet.", "No namespace holds GPU shares."));
        return page.html();
    }

    // ---- Right-sizing ----

    Result rightsizing(Request request) throws SourceUnavailableException {
        fleet.ahead(() -> fleet.usage(request.at(), window(request), RightSizing.MIN_HISTORY, FleetScope.EVERYTHING));
        FleetState state = fleet.state(request.at(), FleetScope.EVERYTHING);
        Builder page = page("Right-sizing", request, state);
        page.queries(state.provenance());
        Duration window = window(request);
        UsageHistory usage = fleet.usage(request.at(), window, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
        page.describes(usage.at()).queries(usage.provenance());
        List<Recommendation> recommendations = RightSizing.recommendAll(state.workloads(), usage);
        Table<Recommendation> table = Columns.recommendations(links);
        Optional<Result> export = export(request, Map.of("rightsizing", rows(table, recommendations)));
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
        page.note("info", "Per workload over the last " + Format.duration(window) + ": nvidia.com/gpumem = peak × "
                + RightSizing.MEMORY_MARGIN + ", never below peak + " + RightSizing.CONTEXT_FLOOR_MIB
                + " MiB (room for a CUDA context), rounded up to " + RightSizing.MEMORY_STEP_MIB
                + " MiB; nvidia.com/gpucores = 95th percentile of utilisation, rounded up to " + RightSizing.CORES_STEP
                + " (at least " + RightSizing.CORES_STEP + ", at most 100). Severity by absolute difference. Open a "
                + "workload for its explanation graph and a resources block to copy.");
        page.add(view(table, recommendations, request, page.anchors(), "", "No workloads hold GPU shares."));
        return page.html();
    }

    // ---- Showback ----

    /** Card-hours by namespace, workload, node or model over a window: {@link ShowbackReport}'s lines and export. */
    Result showback(Request request) throws SourceUnavailableException {
        Duration window = window(request, Duration.ofDays(7));
        FleetState state = fleet.state(request.at(), FleetScope.CARDS_ONLY);
        Builder page = page("Showback", request, state);
        io.hamiobserve.domain.fleet.CardHours hours = fleet.cardHours(request.at(), window);
        page.describes(hours.to()).queries(hours.provenance());
        ShowbackPage view = ShowbackPage.of(hours, request.get("by"), settings.prices());
        Showback.Grouping funnelBy = request.get("funnel").equals("model") ? Showback.Grouping.MODEL
                : request.get("funnel").equals("cluster") ? Showback.Grouping.CLUSTER : Showback.Grouping.NAMESPACE;
        List<Funnel> funnel = Funnel.of(hours, funnelBy);
        List<Funnel.Loss> losses = Funnel.losses(hours, 10);
        Table<Funnel> funnelTable = ShowbackPage.funnelTable("Funnel by " + funnelBy.label() + ", cards' worth");
        Table<Funnel.Loss> lossTable = ShowbackPage.lossTable(links);
        Optional<Result> export = export(request, Map.of("showback", rows(view.table(), view.lines()),
                "funnel", rows(funnelTable, funnel), "losses", rows(lossTable, losses)));
        if (export.isPresent()) {
            return export.get();
        }
        page.add(view.tiles(page.anchors()));
        page.add(windowChoices(request, "7d"));
        page.add(new Choices("Rows", ShowbackPage.GROUPS.stream().map(by -> new Link(by.label(),
                links.to(request.path(), with(request.parameters(), "by", by.label())), by == view.by())).toList()));
        page.note("info", ShowbackPage.RULE);
        page.add(view(view.table(), view.lines(), request, page.anchors(), "", "No card was seen in the window."));
        page.add(new Choices("Funnel by", java.util.stream.Stream.of(Showback.Grouping.NAMESPACE, Showback.Grouping.MODEL,
                Showback.Grouping.CLUSTER).map(by -> new Link(by.label(), links.to(request.path(),
                with(request.parameters(), "funnel", by.label())), by == funnelBy)).toList()));
        page.add(view(funnelTable, funnel, request, page.anchors(), "", "No card was seen in the window."));
        page.add(view(lossTable, losses, request, page.anchors(), "", "Nothing lost: every allocation is active and effective."));
        return page.html();
    }

    // ---- Capacity ----

    Result capacity(Request request) throws SourceUnavailableException {
        FleetState state = fleet.state(request.at(), FleetScope.CARDS_ONLY);
        Builder page = page("Capacity", request, state);
        Map<Measure, String> queries = page.queries(state.provenance());
        String memory = request.get("memory").isBlank() ? "4096" : request.get("memory");
        String cores = request.get("cores").isBlank() ? "10" : request.get("cores");
        String cards = request.get("cards").isBlank() ? "1" : request.get("cards");
        PodShape shape;
        try {
            shape = new PodShape(Long.parseLong(memory.trim()), Long.parseLong(cores.trim()),
                    Integer.parseInt(cards.trim()));
        } catch (IllegalArgumentException bad) {
            String message = bad instanceof NumberFormatException ? "memory, cores and cards are whole numbers"
                    : bad.getMessage();
            page.add(new ShapeForm(links.to("/capacity"), memory, cores, cards, message));
            return page.html(400);
        }
        List<Capacity.ModelCapacity> models = Capacity.of(state.cards(), shape);
        Optional<Result> export = export(request, Map.of("capacity", rows(Columns.capacity(), models)));
        if (export.isPresent()) {
            return export.get();
        }
        page.add(new ShapeForm(links.to("/capacity"), memory, cores, cards, null));
        long fits = models.stream().mapToLong(Capacity.ModelCapacity::fits).sum();
        page.add(new Tiles(List.of(
                new Tiles.Tile("Pods that fit now", Long.toString(fits), shape.memoryMib() + " MiB × " + shape.cores()
                        + " % on " + shape.cards() + " card" + (shape.cards() == 1 ? "" : "s") + " each", fits > 0
                        ? "good" : "bad", null, queries.get(Measure.CARD_MEMORY_ALLOCATED)))));
        page.note("info", "Per card model, as HAMi's scheduler would place them one after another: each card takes "
                + "as many as its free memory, free compute and free share slots allow; a pod of several cards "
                + "needs distinct cards of one node. Unhealthy cards, MIG cards and cards lacking a figure are not "
                + "counted.");
        page.add(view(Columns.capacity(), models, request, queries, "", "No cards."));
        return page.html();
    }

    // ---- Shared parts ----

    private Map<WorkloadRef, Recommendation> recommendations(Request request, List<Workload> workloads, Builder page,
                                                             FleetScope scope) throws SourceUnavailableException {
        UsageHistory usage = fleet.usage(request.at(), window(request), RightSizing.MIN_HISTORY, scope);
        page.describes(usage.at()).queries(usage.provenance());
        Map<WorkloadRef, Recommendation> byRef = new LinkedHashMap<>();
        RightSizing.recommendAll(workloads, usage).forEach(r -> byRef.put(r.workload(), r));
        return byRef;
    }

    private static Duration window(Request request) {
        return window(request, RightSizing.DEFAULT_WINDOW);
    }

    private static Duration window(Request request, Duration fallback) {
        return PageKit.window(request.get("window")).orElse(fallback);
    }

    private static String windowLabel(Request request) {
        return Format.duration(window(request));
    }

    private Choices windowChoices(Request request) {
        return windowChoices(request, Format.duration(RightSizing.DEFAULT_WINDOW));
    }

    private Choices windowChoices(Request request, String fallback) {
        String current = request.get("window").isEmpty() ? fallback : request.get("window");
        return new Choices("Window", WINDOWS.stream().map(label -> new Link(label,
                links.to(request.path(), with(request.parameters(), "window", label)), label.equals(current)))
                .toList());
    }

    private static TimeRange range(Request request, TimeRange fallback) {
        return TimeRange.parse(request.get("range")).orElse(fallback);
    }

    private Choices rangeChoices(Request request, TimeRange current) {
        List<Link> options = new ArrayList<>();
        for (TimeRange range : TimeRange.values()) {
            options.add(new Link(range.label(), links.to(request.path(), with(request.parameters(), "range",
                    range.label())), range == current));
        }
        return new Choices("Trend range", options);
    }

    private static Map<String, String> with(Map<String, String> parameters, String key, String value) {
        Map<String, String> copy = new LinkedHashMap<>(parameters);
        copy.put(key, value);
        copy.remove("export");
        return copy;
    }

    /** Memory and compute charts (plus temperature and power for a card) of a trend set. */
    private void charts(Builder page, String id, TrendSet trends, String note) {
        long[] times = times(trends);
        page.add(Charts.chart(id + "-memory", "Memory: allocated vs used", Charts.Unit.BYTES, times,
                lines(trends, Measure.TREND_MEMORY_TOTAL, "total", "total", Measure.TREND_MEMORY_ALLOCATED,
                        "allocated", "allocated", Measure.TREND_MEMORY_USED, "used", "used"), List.of(),
                anchors(page, trends, Measure.TREND_MEMORY_TOTAL, Measure.TREND_MEMORY_ALLOCATED,
                        Measure.TREND_MEMORY_USED), note));
        page.add(Charts.chart(id + "-compute", "Compute: allocated vs used", Charts.Unit.PERCENT, times,
                lines(trends, Measure.TREND_CORES_ALLOCATED, "allocated", "allocated", Measure.TREND_UTILISATION,
                        "used", "used"), List.of(),
                anchors(page, trends, Measure.TREND_CORES_ALLOCATED, Measure.TREND_UTILISATION), ""));
        if (!trends.of(Measure.TREND_TEMPERATURE).isEmpty()) {
            page.add(Charts.chart(id + "-temperature", "Temperature", Charts.Unit.CELSIUS, times,
                    lines(trends, Measure.TREND_TEMPERATURE, "temperature", "temperature"), List.of(),
                    anchors(page, trends, Measure.TREND_TEMPERATURE), ""));
            page.add(Charts.chart(id + "-power", "Power", Charts.Unit.WATTS, times,
                    lines(trends, Measure.TREND_POWER, "power", "power"), List.of(),
                    anchors(page, trends, Measure.TREND_POWER), ""));
        }
    }

    /** Lines of a trend set: triples of measure, label and style. */
    private static List<Charts.Line> lines(TrendSet trends, Object... triples) {
        List<Charts.Line> lines = new ArrayList<>();
        for (int i = 0; i < triples.length; i += 3) {
            for (Trend trend : trends.of((Measure) triples[i])) {
                lines.add(new Charts.Line((String) triples[i + 1], (String) triples[i + 2], trend));
            }
        }
        return lines;
    }

    private static List<String> anchors(Builder page, TrendSet trends, Measure... measures) {
        List<String> anchors = new ArrayList<>();
        for (Measure measure : measures) {
            trends.of(measure).stream().findFirst().ifPresent(trend -> anchors.add(page.anchor(trend.provenance())));
        }
        return anchors;
    }

    private static long[] times(TrendSet trends) {
        long[] times = new long[trends.steps()];
        for (int i = 0; i < times.length; i++) {
            times[i] = trends.start() + i * trends.step();
        }
        return times;
    }

    private static String suffix(Trend trend, int lines) {
        return lines > 1 && !trend.label().isEmpty() ? " " + trend.label() : "";
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

    private static Facts.Fact fact(String label, String value, String href) {
        return new Facts.Fact(label, value, href, null, "");
    }

    private static Facts.Fact figureFact(String label, Figure figure, Kind kind, String suffix) {
        if (figure instanceof Figure.Missing missing) {
            return new Facts.Fact(label, "no data — " + missing.why().explanation(), null, null, "missing");
        }
        return new Facts.Fact(label, kind.format(figure.orElseThrow()) + suffix, null, null, "");
    }

    private <R> TableView view(Table<R> table, List<R> rows, Request request, Map<Measure, String> queries,
                               String caption, String empty) {
        return table.view(rows, request.parameters(), links, request.path(), queries, caption, empty);
    }

    /** A table and its rows, for export. */
    private record Rows<R>(Table<R> table, List<R> rows) {
        String export(String format, Map<String, String> parameters) {
            return format.equals("csv") ? table.csv(rows, parameters) : table.json(rows, parameters);
        }
    }

    private static <R> Rows<R> rows(Table<R> table, List<R> rows) {
        return new Rows<>(table, rows);
    }

    /** The export the request asks for, when it names one of the page's tables. */
    private static Optional<Result> export(Request request, Map<String, Rows<?>> tables) {
        return request.export().flatMap(export -> Optional.ofNullable(tables.get(export[0])).map(rows ->
                new Result.Export(rows.export(export[1], request.parameters()), export[1].equals("csv")
                        ? "text/csv; charset=utf-8" : "application/json", export[0] + "." + export[1])));
    }
}
