package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.view.TableView;
import io.hamiobserve.domain.fleet.Capacity;
import io.hamiobserve.domain.fleet.Card;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.Showback;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.FleetTotals;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Recommendation;
import io.hamiobserve.domain.fleet.Workload;
import io.hamiobserve.domain.fleet.WorkloadShare;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static io.hamiobserve.console.Table.column;

/** The tables of the console, each defined once and used on every page that lists the same things. */
final class Columns {
    /** The key of a row's cluster column, in the tables and their exports. */
    static final String CLUSTER = "cluster";

    private Columns() {
    }

    /**
     * {@code table} with each row's cluster as its first column, for a page that spans several
     * clusters (the rows of all of them, each of one cluster; several names only where clusters
     * share a card's UUID), and each row's links opened in its cluster ({@code carry}: the link
     * of a row, as the row's cluster opens it).
     */
    static <R> Table<R> withCluster(Table<R> table, Function<R, String> cluster,
                                    java.util.function.BiFunction<String, String, String> carry) {
        List<Table.Column<R>> columns = new java.util.ArrayList<>();
        columns.add(Table.<R>column(CLUSTER, "Cluster", row -> Value.text(cluster.apply(row)))
                .explained("the cluster that registers it, by the label that tells clusters apart"));
        for (Table.Column<R> column : table.columns()) {
            columns.add(column.href() == null ? column
                    : column.linked(row -> carry.apply(column.href().apply(row), cluster.apply(row))));
        }
        return new Table<>(table.id(), table.title(), columns, table.defaultSort(), table.defaultDescending());
    }

    /** One cluster's totals, a row of the overview when the source holds several. */
    record ClusterTotals(String name, FleetTotals totals) {
    }

    static Table<ClusterTotals> clusters(Links links) {
        return new Table<>("clusters", "Clusters", List.of(
                Table.<ClusterTotals>column("cluster", "Cluster", row -> Value.text(row.name()))
                        .linked(row -> links.to(OverviewPage.PAGE.path(), Map.of(Links.CLUSTER, row.name()))),
                column("cards", "Cards", row -> Value.of(row.totals().cards(), Kind.COUNT)),
                column("nodes", "Nodes", row -> Value.of(row.totals().nodes(), Kind.COUNT)),
                Table.<ClusterTotals>column("memory_total", "Memory",
                        row -> Value.of(row.totals().memoryTotal(), Kind.BYTES)).from(Measure.CARD_MEMORY_TOTAL),
                Table.<ClusterTotals>column("memory_allocated_fraction", "Alloc %",
                        row -> Value.of(row.totals().memoryAllocatedFraction(), Kind.FRACTION))
                        .from(Measure.CARD_MEMORY_ALLOCATED),
                Table.<ClusterTotals>column("memory_used_fraction", "Used %",
                        row -> Value.of(row.totals().memoryUsedFraction(), Kind.FRACTION))
                        .from(Measure.CARD_MEMORY_USED),
                Table.<ClusterTotals>column("cores_allocated", "Compute alloc %",
                        row -> Value.of(row.totals().coresAllocatedFraction(), Kind.FRACTION))
                        .from(Measure.CARD_CORES_ALLOCATED_PERCENT),
                Table.<ClusterTotals>column("utilisation", "Compute used %",
                        row -> Value.of(row.totals().coresUsedFraction(), Kind.FRACTION))
                        .from(Measure.CARD_UTILISATION)),
                "cluster", false);
    }

    static Table<FleetState.NodeSummary> nodes(Links links) {
        return new Table<>("nodes", "Nodes", List.of(
                Table.<FleetState.NodeSummary>column("node", "Node", node -> Value.text(node.name()))
                        .linked(node -> links.node(node.name())),
                column("cards", "Cards", node -> Value.of(node.cards(), Kind.COUNT)),
                column("workloads", "Workloads", node -> Value.of(node.workloads(), Kind.COUNT)),
                Table.<FleetState.NodeSummary>column("memory_total", "Memory",
                        node -> Value.of(node.memoryTotal(), Kind.BYTES)).from(Measure.CARD_MEMORY_TOTAL),
                Table.<FleetState.NodeSummary>column("memory_allocated", "Allocated",
                        node -> bar(node.memoryAllocated(), node.memoryAllocated(), node.memoryUsed(),
                                node.memoryTotal())).from(Measure.CARD_MEMORY_ALLOCATED),
                column("memory_allocated_fraction", "Alloc %",
                        node -> Value.of(node.memoryAllocated().fractionOf(node.memoryTotal()), Kind.FRACTION)),
                Table.<FleetState.NodeSummary>column("memory_used", "Used",
                        node -> Value.of(node.memoryUsed(), Kind.BYTES)).from(Measure.CARD_MEMORY_USED),
                column("memory_used_fraction", "Used %",
                        node -> Value.of(node.memoryUsed().fractionOf(node.memoryTotal()), Kind.FRACTION)),
                Table.<FleetState.NodeSummary>column("cores_allocated", "Compute alloc %",
                        node -> Value.of(node.coresAllocatedFraction(), Kind.FRACTION))
                        .from(Measure.CARD_CORES_ALLOCATED_PERCENT),
                Table.<FleetState.NodeSummary>column("utilisation", "Compute used %",
                        node -> Value.of(node.utilisation().fractionOf(node.coresTotal()), Kind.FRACTION))
                        .from(Measure.CARD_UTILISATION),
                column("cards_without_usage", "Cards without usage",
                        node -> Value.of(node.cardsWithoutUsage(), Kind.COUNT)),
                Table.<FleetState.NodeSummary>column("sources_failing", "Sources failing",
                        node -> Value.of(node.sourcesFailing(), Kind.COUNT)).from(Measure.SOURCE_HEALTH)),
                "memory_allocated", true);
    }

    static Table<Card> cards(Links links) {
        return new Table<>("cards", "Cards", List.of(
                Table.<Card>column("node", "Node", card -> Value.text(card.node()))
                        .linked(card -> links.node(card.node())),
                column("index", "#", card -> Value.of(card.index(), Kind.COUNT)),
                Table.<Card>column("uuid", "Card", card -> Value.text(card.uuid())).linked(card -> links.card(card.uuid())),
                column("model", "Model", card -> Value.text(card.model())),
                Table.<Card>column("mode", "Mode", card -> Value.text(mode(card))).from(Measure.CARD_HEALTH),
                Table.<Card>column("health", "Health", card -> Value.text(health(card.healthy())))
                        .from(Measure.CARD_HEALTH),
                Table.<Card>column("slots_used", "Slots used", card -> Value.of(card.slotsUsed(), Kind.COUNT))
                        .from(Measure.CARD_SLOTS_USED),
                Table.<Card>column("slots_total", "Slots", card -> Value.of(card.slotsTotal(), Kind.COUNT))
                        .from(Measure.CARD_SLOTS_TOTAL),
                Table.<Card>column("memory_total", "Memory", card -> Value.of(card.memoryTotal(), Kind.BYTES))
                        .from(Measure.CARD_MEMORY_TOTAL),
                Table.<Card>column("memory_allocated", "Allocated",
                        card -> bar(card.memoryAllocated(), card.memoryAllocated(), card.memoryUsed(),
                                card.memoryTotal())).from(Measure.CARD_MEMORY_ALLOCATED)
                        .explained("the bar: allocated (light) and in use on the card (dark) of its memory"),
                Table.<Card>column("memory_used", "Used", card -> Value.of(card.memoryUsed(), Kind.BYTES))
                        .from(Measure.CARD_MEMORY_USED).explained("in use on the card, as its driver reports"),
                Table.<Card>column("cores_allocated", "Compute alloc",
                        card -> Value.of(card.coresAllocated(), Kind.PERCENT)).from(Measure.CARD_CORES_ALLOCATED),
                Table.<Card>column("utilisation", "Compute used",
                        card -> Value.of(card.utilisation(), Kind.PERCENT)).from(Measure.CARD_UTILISATION),
                Table.<Card>column("temperature", "Temp", card -> Value.of(card.temperatureShown().figure(),
                        Kind.CELSIUS)).from(Measure.CARD_TEMPERATURE).explained(PHYSICAL_SOURCE),
                Table.<Card>column("power", "Power", card -> Value.of(card.powerShown().figure(), Kind.WATTS))
                        .from(Measure.CARD_POWER).explained(PHYSICAL_SOURCE),
                Table.<Card>column("throttle", "Throttled by", card -> Value.text(PhysicalView.throttle(card)))
                        .from(Measure.DCGM_CLOCK_EVENTS).explained("clock-event reasons of heat or power, from DCGM"),
                Table.<Card>column("xid", "Xid", card -> Value.text(PhysicalView.xid(card)))
                        .from(Measure.DCGM_XID).explained("the last Xid error DCGM reports")),
                "node", false);
    }

    private static final String PHYSICAL_SOURCE = "DCGM exporter's where it reports the card, else the node "
            + "role's (NVML); the card's page names the source";

    /**
     * Workloads, with their peak and recommendation over the window when {@code recommendations}
     * has them (by workload).
     */
    static Table<Workload> workloads(Links links, Map<Workload, Recommendation> recommendations, String window) {
        Function<Workload, Recommendation> advice = recommendations::get;
        return new Table<>("workloads", "Workloads", List.of(
                column("namespace", "Namespace", (Workload w) -> Value.text(w.ref().namespace())),
                Table.<Workload>column("pod", "Pod", w -> Value.text(w.ref().pod()))
                        .linked(w -> links.workload(w.ref().namespace(), w.ref().pod(), w.ref().container())),
                Table.<Workload>column("container", "Container", w -> Value.text(w.ref().container()))
                        .linked(w -> links.workload(w.ref().namespace(), w.ref().pod(), w.ref().container()))
                        .from(Measure.CONTAINER_NAMES),
                Table.<Workload>column("node", "Node", w -> Value.text(w.node())).linked(w -> links.node(w.node())),
                Table.<Workload>column("cards", "Cards", w -> Value.of(w.cards().size(), Kind.COUNT))
                        .linked(w -> w.cards().size() == 1 ? links.card(w.cards().getFirst()) : null),
                Table.<Workload>column("memory_allocated", "Mem alloc, all cards",
                        w -> bar(w.memoryAllocated(), w.memoryAllocated(), w.memoryUsed(), w.memoryAllocated()))
                        .from(Measure.CONTAINER_MEMORY_ALLOCATED),
                Table.<Workload>column("memory_used", "Used now, all cards", w -> Value.of(w.memoryUsed(), Kind.BYTES))
                        .from(Measure.CONTAINER_MEMORY_USED).explained("the sum over the container's cards; the peak and "
                                + "the recommendation are per card"),
                Table.<Workload>column("memory_peak", "Peak per card " + window,
                        w -> Value.of(advice.apply(w) == null ? Figure.missing(
                                io.hamiobserve.domain.fleet.Absence.NOT_ENOUGH_HISTORY)
                                : advice.apply(w).memoryPeak(), Kind.BYTES)).from(Measure.CONTAINER_MEMORY_PEAK),
                Table.<Workload>column("memory_idle", "Idle, all cards", w -> Value.of(w.memoryIdle(), Kind.BYTES))
                        .explained("allocated minus used now"),
                Table.<Workload>column("cores_allocated", "Compute alloc, all cards",
                        w -> Value.of(w.coresAllocated(), Kind.PERCENT)).from(Measure.CONTAINER_CORES_ALLOCATED),
                Table.<Workload>column("utilisation", "Compute used, all cards", w -> Value.of(w.utilisation(), Kind.PERCENT))
                        .from(Measure.CONTAINER_UTILISATION),
                Table.<Workload>column("last_kernel", "Last kernel",
                        w -> Value.of(w.lastKernelSeconds(), Kind.SECONDS)).from(Measure.CONTAINER_LAST_KERNEL)
                        .explained("time since the container's last GPU kernel"),
                Table.<Workload>column("recommended_memory", "Recommended mem per card",
                        w -> Value.of(advice.apply(w) == null ? Figure.missing(
                                io.hamiobserve.domain.fleet.Absence.NOT_ENOUGH_HISTORY)
                                : advice.apply(w).memoryMib(), Kind.MIB)).from(Measure.CONTAINER_MEMORY_PEAK),
                column("severity", "Severity", (Workload w) -> new Value.Graded(advice.apply(w) == null
                        ? io.hamiobserve.domain.fleet.Severity.UNKNOWN : advice.apply(w).severity()))),
                "memory_idle", true);
    }

    /** The containers holding shares of one card. */
    static Table<WorkloadShare> shares(Links links) {
        List<Table.Column<WorkloadShare>> columns = new java.util.ArrayList<>(List.of(
                column("namespace", "Namespace", (WorkloadShare s) -> Value.text(s.workload().namespace())),
                Table.<WorkloadShare>column("pod", "Pod", s -> Value.text(s.workload().pod()))
                        .linked(s -> links.workload(s.workload().namespace(), s.workload().pod(),
                                s.workload().container())),
                column("container", "Container", (WorkloadShare s) -> Value.text(s.workload().container()))));
        columns.addAll(shareFigures(true));
        return new Table<>("shares", "Containers on the card", columns, "memory_allocated", true);
    }

    /** A workload's shares, one per card. */
    static Table<WorkloadShare> workloadCards(Links links) {
        List<Table.Column<WorkloadShare>> columns = new java.util.ArrayList<>(List.of(
                Table.<WorkloadShare>column("uuid", "Card", s -> Value.text(s.uuid())).linked(s -> links.card(s.uuid())),
                column("model", "Model", (WorkloadShare s) -> Value.text(s.model())),
                Table.<WorkloadShare>column("node", "Node", s -> Value.text(s.node())).linked(s -> links.node(s.node()))));
        columns.addAll(shareFigures(false));
        return new Table<>("cards", "Its cards", columns, "uuid", false);
    }

    /** A share's figures: allocated, used, idle, compute, memory outside HAMi-Core, last kernel. */
    private static List<Table.Column<WorkloadShare>> shareFigures(boolean bar) {
        return List.of(
                Table.<WorkloadShare>column("memory_allocated", "Mem alloc", s -> bar
                        ? bar(s.memoryAllocated(), s.memoryAllocated(), s.memoryUsed(), s.memoryAllocated())
                        : Value.of(s.memoryAllocated(), Kind.BYTES)).from(Measure.CONTAINER_MEMORY_ALLOCATED),
                Table.<WorkloadShare>column("memory_used", "Used", s -> Value.of(s.memoryUsed(), Kind.BYTES))
                        .from(Measure.CONTAINER_MEMORY_USED),
                column("memory_idle", "Idle", (WorkloadShare s) -> Value.of(s.memoryIdle(), Kind.BYTES)),
                Table.<WorkloadShare>column("cores_allocated", "Compute alloc",
                        s -> Value.of(s.coresAllocated(), Kind.PERCENT)).from(Measure.CONTAINER_CORES_ALLOCATED),
                Table.<WorkloadShare>column("utilisation", "Compute used",
                        s -> Value.of(s.utilisation(), Kind.PERCENT)).from(Measure.CONTAINER_UTILISATION),
                UsageOriginView.column(),
                Table.<WorkloadShare>column("unmanaged", "Outside HAMi-Core",
                        s -> Value.of(s.unmanagedMemory(), Kind.BYTES)).from(Measure.CONTAINER_UNMANAGED_MEMORY),
                Table.<WorkloadShare>column("last_kernel", "Last kernel",
                        s -> Value.of(s.lastKernelSeconds(), Kind.SECONDS)).from(Measure.CONTAINER_LAST_KERNEL));
    }

    static Table<Recommendation> recommendations(Links links) {
        return new Table<>("rightsizing", "Recommendations", List.of(
                column("severity", "Severity", (Recommendation r) -> new Value.Graded(r.severity())),
                column("namespace", "Namespace", (Recommendation r) -> Value.text(r.workload().namespace())),
                Table.<Recommendation>column("pod", "Pod", r -> Value.text(r.workload().pod()))
                        .linked(r -> links.workload(r.workload().namespace(), r.workload().pod(),
                                r.workload().container())),
                Table.<Recommendation>column("container", "Container", r -> Value.text(r.workload().container()))
                        .linked(r -> links.workload(r.workload().namespace(), r.workload().pod(),
                                r.workload().container())),
                Table.<Recommendation>column("node", "Node", r -> Value.text(r.node())).linked(r -> links.node(r.node())),
                column("cards", "Cards", (Recommendation r) -> Value.of(r.cards(), Kind.COUNT)),
                Table.<Recommendation>column("memory_now", "gpumem now", r -> Value.of(r.currentMemoryMib(), Kind.MIB))
                        .from(Measure.CONTAINER_MEMORY_ALLOCATED).explained("per card, MiB"),
                Table.<Recommendation>column("memory_recommended", "gpumem recommended",
                        r -> Value.of(r.memoryMib(), Kind.MIB)).from(Measure.CONTAINER_MEMORY_PEAK)
                        .explained("peak × 1.15, at least peak + 300 MiB, rounded up to 256 MiB"),
                column("memory_change", "Change", (Recommendation r) -> Value.of(r.memoryChangeMib(), Kind.MIB_CHANGE)),
                Table.<Recommendation>column("cores_now", "gpucores now", r -> Value.of(r.currentCores(), Kind.PERCENT))
                        .from(Measure.CONTAINER_CORES_ALLOCATED),
                Table.<Recommendation>column("cores_recommended", "gpucores recommended",
                        r -> Value.of(r.cores(), Kind.PERCENT)).from(Measure.CONTAINER_UTILISATION_P95)
                        .explained("p95 of utilisation, rounded up to 5, between 5 and 100"),
                column("cores_change", "Change", (Recommendation r) -> Value.of(r.coresChange(), Kind.PERCENT_CHANGE)),
                Table.<Recommendation>column("memory_peak", "Peak", r -> Value.of(r.memoryPeak(), Kind.BYTES))
                        .from(Measure.CONTAINER_MEMORY_PEAK),
                Table.<Recommendation>column("utilisation_p95", "p95 used", r -> Value.of(r.utilisationP95(),
                        Kind.PERCENT)).from(Measure.CONTAINER_UTILISATION_P95),
                Table.<Recommendation>column("samples", "Samples", r -> Value.of(r.samples(), Kind.COUNT))
                        .from(Measure.CONTAINER_SAMPLES),
                Table.<Recommendation>column("idle", "Idle", r -> Value.text(r.idle() ? "idle" : ""))
                        .from(Measure.CONTAINER_UTILISATION_RECENT_MAX).explained("no GPU use in the last 3 h"),
                column("note", "Note", (Recommendation r) -> Value.text(r.notEnoughData().map(
                        why -> "not enough data: " + why).orElse("")))),
                "severity", true);
    }

    /**
     * Namespaces now and their showback over the window ({@link Showback} grouped by namespace: the
     * same card-hours the Showback page sums to the fleet); a namespace's quota held is its GPU
     * memory held on average over the window ÷ its memory quota now.
     */
    static Table<FleetState.NamespaceSummary> namespaces(Links links, Showback report) {
        Map<String, Showback.Row> rows = new java.util.HashMap<>();
        report.rows().forEach(row -> rows.put(row.key(), row));
        double windowHours = java.time.Duration.between(report.from(), report.to()).toSeconds() / 3600.0;
        long allocatedTotal = report.rows().stream().mapToLong(Showback.Row::allocatedTicks).sum();
        Function<Function<Showback.Row, Figure>, Function<FleetState.NamespaceSummary, Figure>> billed =
                f -> ns -> rows.get(ns.name()) == null ? Figure.missing(io.hamiobserve.domain.fleet.Absence.NOT_REPORTED)
                        : f.apply(rows.get(ns.name()));
        List<Table.Column<FleetState.NamespaceSummary>> columns = new java.util.ArrayList<>(List.of(
                Table.<FleetState.NamespaceSummary>column("namespace", "Namespace", ns -> Value.text(ns.name()))
                        .linked(ns -> links.to(WorkloadsPage.PAGE, Map.of("workloads.q", ns.name()))),
                column("workloads", "Workloads", (FleetState.NamespaceSummary ns) -> Value.of(ns.workloads(),
                        Kind.COUNT)),
                Table.<FleetState.NamespaceSummary>column("memory_allocated", "Mem alloc",
                        ns -> bar(ns.memoryAllocated(), ns.memoryAllocated(), ns.memoryUsed(), ns.memoryQuota()))
                        .explained("the bar: allocated (light) and used (dark) of the namespace's memory quota")
                        .from(Measure.CONTAINER_MEMORY_ALLOCATED),
                Table.<FleetState.NamespaceSummary>column("memory_used", "Used",
                        ns -> Value.of(ns.memoryUsed(), Kind.BYTES)).from(Measure.CONTAINER_MEMORY_USED),
                Table.<FleetState.NamespaceSummary>column("memory_quota", "Mem quota",
                        ns -> Value.of(ns.memoryQuota(), Kind.BYTES)).from(Measure.QUOTA_LIMIT),
                column("memory_quota_used", "Of quota", (FleetState.NamespaceSummary ns) ->
                        Value.of(ns.memoryAllocated().fractionOf(ns.memoryQuota()), Kind.FRACTION)),
                Table.<FleetState.NamespaceSummary>column("cores_allocated", "Compute alloc",
                        ns -> Value.of(ns.coresAllocated(), Kind.PERCENT)).from(Measure.CONTAINER_CORES_ALLOCATED),
                Table.<FleetState.NamespaceSummary>column("utilisation", "Compute used",
                        ns -> Value.of(ns.utilisation(), Kind.PERCENT)).from(Measure.CONTAINER_UTILISATION),
                Table.<FleetState.NamespaceSummary>column("cores_quota", "Compute quota",
                        ns -> Value.of(ns.coresQuota(), Kind.PERCENT)).from(Measure.QUOTA_LIMIT),
                Table.<FleetState.NamespaceSummary>column("card_hours_allocated", "Card·h alloc",
                        ns -> Value.of(billed.apply(row -> Figure.of(row.allocatedCardHours())).apply(ns), Kind.HOURS))
                        .from(Measure.SHARE_CARD_SECONDS_ALLOCATED)
                        .explained("cards blocked over the window: each share's larger of memory and core fraction"),
                Table.<FleetState.NamespaceSummary>column("card_hours_used", "Card·h used",
                        ns -> Value.of(billed.apply(row -> Figure.of(row.usedCardHours())).apply(ns), Kind.HOURS))
                        .from(Measure.SHARE_CARD_SECONDS_USED)
                        .explained("each share's utilisation of its card, at most its size"),
                column("efficiency", "Efficiency", (FleetState.NamespaceSummary ns) ->
                        Value.of(billed.apply(row -> optional(row.efficiency())).apply(ns), Kind.FRACTION)),
                Table.<FleetState.NamespaceSummary>column("memory_gib_hours_allocated", "GiB·h alloc",
                        ns -> Value.of(billed.apply(row -> Figure.of(row.memoryGibHours())).apply(ns), Kind.HOURS))
                        .from(Measure.SHARE_MEMORY_SECONDS)
                        .explained("GPU memory held over the window, GiB-hours"),
                Table.<FleetState.NamespaceSummary>column("core_hours_allocated", "Core·h alloc",
                        ns -> Value.of(billed.apply(row -> Figure.of(row.coreHours())).apply(ns), Kind.HOURS))
                        .from(Measure.SHARE_CORE_SECONDS)
                        .explained("compute held over the window, in whole-card hours"),
                column("share", "Share of fleet", (FleetState.NamespaceSummary ns) -> Value.of(billed.apply(
                        row -> Figure.of(row.allocatedTicks()).fractionOf(Figure.of(allocatedTotal))).apply(ns),
                        Kind.FRACTION)),
                Table.<FleetState.NamespaceSummary>column("quota_held", "Quota held", ns -> Value.of(billed.apply(
                        row -> Figure.of(row.memoryGibHours()).fractionOf(ns.memoryQuota().map(
                                bytes -> bytes / (1024.0 * 1024 * 1024) * windowHours))).apply(ns), Kind.FRACTION))
                        .explained("GPU memory held on average over the window ÷ the memory quota")));
        // With prices, what each namespace's blocked hours cost and their idle part (as on the Showback page).
        if (report.rows().stream().anyMatch(row -> row.cost().isPresent())) {
            columns.add(column("cost", "Cost", (FleetState.NamespaceSummary ns) ->
                    Value.of(billed.apply(row -> optional(row.cost())).apply(ns), Kind.DECIMAL)));
            columns.add(column("idle_cost", "Idle cost", (FleetState.NamespaceSummary ns) ->
                    Value.of(billed.apply(row -> optional(row.idleCost())).apply(ns), Kind.DECIMAL)));
        }
        return new Table<>("namespaces", "Namespaces", columns, "card_hours_allocated", true);
    }

    private static Figure optional(java.util.OptionalDouble value) {
        return value.isPresent() ? Figure.of(value.getAsDouble())
                : Figure.missing(io.hamiobserve.domain.fleet.Absence.NOT_REPORTED);
    }

    static Table<Capacity.ModelCapacity> capacity() {
        return new Table<>("capacity", "What still fits", List.of(
                column("model", "Card model", (Capacity.ModelCapacity m) -> Value.text(m.model())),
                column("cards", "Cards", (Capacity.ModelCapacity m) -> Value.of(m.cards(), Kind.COUNT)),
                Table.<Capacity.ModelCapacity>column("counted", "Counted", m -> Value.of(m.counted(), Kind.COUNT))
                        .explained("healthy cards shared through HAMi-Core with every figure known"),
                column("fits", "Pods that fit", (Capacity.ModelCapacity m) -> Value.of(m.fits(), Kind.COUNT)),
                Table.<Capacity.ModelCapacity>column("fits_after_rightsizing", "After right-sizing",
                        m -> Value.of(m.fitsAfterRightSizing(), Kind.COUNT))
                        .explained("pods of this shape that would fit with every right-sizing recommendation "
                                + "applied"),
                Table.<Capacity.ModelCapacity>column("memory_given_back", "Cuts give back",
                        m -> Value.of(m.memoryGivenBack(), Kind.BYTES))
                        .explained("memory the recommended cuts free on the counted cards"),
                Table.<Capacity.ModelCapacity>column("memory_taken", "Raises take",
                        m -> Value.of(m.memoryTaken(), Kind.BYTES))
                        .explained("memory the recommended raises (limits hit, use beyond the share) take on "
                                + "the counted cards: with the cuts, why the pods that fit moved as they did"),
                Table.<Capacity.ModelCapacity>column("free_memory", "Free memory",
                        m -> Value.of(m.freeMemory(), Kind.BYTES)).from(Measure.CARD_MEMORY_ALLOCATED),
                Table.<Capacity.ModelCapacity>column("stranded_memory", "Stranded",
                        m -> Value.of(m.strandedMemory(), Kind.BYTES))
                        .explained("free memory no further pod of this shape can use (fragmentation)"),
                column("largest_free", "Largest free on a card",
                        (Capacity.ModelCapacity m) -> Value.of(m.largestFreeMemory(), Kind.BYTES)),
                column("limited_by", "Limited by", (Capacity.ModelCapacity m) -> Value.text(m.limitedBy().entrySet()
                        .stream().sorted(Map.Entry.comparingByKey())
                        .map(e -> e.getKey().name().toLowerCase(Locale.ROOT) + " on " + e.getValue())
                        .collect(Collectors.joining(", "))))),
                "fits", true);
    }

    /** Exporter sources that fail, stale ledgers, skipped inputs and unreachable endpoints. */
    static Table<String[]> health() {
        return new Table<>("health", "Exporter health", List.of(
                column("problem", "Problem", (String[] row) -> Value.text(row[0])),
                column("where", "Where", (String[] row) -> Value.text(row[1])),
                column("detail", "Detail", (String[] row) -> Value.text(row[2]))),
                "problem", false);
    }

    static List<String[]> healthRows(FleetState.Health health) {
        List<String[]> rows = new java.util.ArrayList<>();
        for (FleetReadings.SourceStatus source : health.failing()) {
            rows.add(new String[] {"source failing", source.instance() + (source.node().isEmpty() ? ""
                    : " (" + source.node() + (source.cluster().isEmpty() ? "" : " in " + source.cluster()) + ")"),
                    source.source()});
        }
        for (FleetReadings.LedgerAge age : health.ledgerAges()) {
            if (age.seconds() > FleetState.LEDGER_STALE_SECONDS) {
                rows.add(new String[] {"ledger stale", age.instance(), "last confirmed complete "
                        + Format.seconds(age.seconds()) + " ago"});
            }
        }
        for (FleetReadings.TargetDown down : health.targetsDown()) {
            rows.add(new String[] {"endpoint not scraped", down.instance(), "job " + down.job()});
        }
        for (FleetReadings.Skip skip : health.skips()) {
            rows.add(new String[] {"inputs skipped", skip.source() + " " + skip.kind(), Format.count(Math.round(
                    skip.count())) + " in the last hour: " + skip.reason()});
        }
        return rows;
    }

    /** The largest idle allocations: a container's share of a card it does not use. */
    static Table<WorkloadShare> idleShares(Links links) {
        return new Table<>("idle", "Largest idle allocations", List.of(
                column("namespace", "Namespace", (WorkloadShare s) -> Value.text(s.workload().namespace())),
                Table.<WorkloadShare>column("pod", "Pod", s -> Value.text(s.workload().pod()))
                        .linked(s -> links.workload(s.workload().namespace(), s.workload().pod(),
                                s.workload().container())),
                column("container", "Container", (WorkloadShare s) -> Value.text(s.workload().container())),
                Table.<WorkloadShare>column("card", "Card", s -> Value.text(s.uuid())).linked(s -> links.card(s.uuid())),
                Table.<WorkloadShare>column("memory_allocated", "Allocated",
                        s -> Value.of(s.memoryAllocated(), Kind.BYTES)).from(Measure.CONTAINER_MEMORY_ALLOCATED),
                Table.<WorkloadShare>column("memory_used", "Used", s -> Value.of(s.memoryUsed(), Kind.BYTES))
                        .from(Measure.CONTAINER_MEMORY_USED),
                column("memory_idle", "Idle", (WorkloadShare s) -> Value.of(s.memoryIdle(), Kind.BYTES))),
                "memory_idle", true);
    }

    /** Cards whose use exceeds what was allocated on them, with who runs outside HAMi-Core. */
    static Table<Card> beyondAllocation(Links links) {
        return new Table<>("beyond", "Cards used beyond their allocation", List.of(
                Table.<Card>column("node", "Node", card -> Value.text(card.node())).linked(card -> links.node(card.node())),
                Table.<Card>column("card", "Card", card -> Value.text(card.uuid())).linked(card -> links.card(card.uuid())),
                column("model", "Model", (Card card) -> Value.text(card.model())),
                Table.<Card>column("memory_allocated", "Allocated", card -> Value.of(card.memoryAllocated(), Kind.BYTES))
                        .from(Measure.CARD_MEMORY_ALLOCATED),
                Table.<Card>column("memory_used", "Used", card -> Value.of(card.memoryUsed(), Kind.BYTES))
                        .from(Measure.CARD_MEMORY_USED),
                Table.<Card>column("beyond", "Beyond allocation", card -> Value.of(card.beyondAllocation(), Kind.BYTES))
                        .from(Measure.CARD_MEMORY_BEYOND_ALLOCATION),
                Table.<Card>column("outside", "Outside HAMi-Core", card -> Value.text(card.shares().stream()
                        .filter(share -> share.unmanagedMemory() > 0)
                        .map(UsageOriginView::outside)
                        .collect(Collectors.joining(", ")))).from(Measure.CONTAINER_UNMANAGED_MEMORY)),
                "beyond", true);
    }

    static String mode(Card card) {
        return switch (card.mode()) {
            case "hami-core" -> "HAMi-Core";
            case "mig" -> "MIG";
            case "" -> "";
            default -> card.mode();
        };
    }

    static String health(Figure healthy) {
        return healthy.isKnown() ? (healthy.orElseThrow() > 0 ? "healthy" : "unhealthy") : "no data";
    }

    /** A figure with a bar of allocated and used against a whole. */
    static Value bar(Figure shown, Figure allocated, Figure used, Figure whole) {
        if (!whole.isKnown() || whole.orElseThrow() <= 0) {
            return Value.of(shown, Kind.BYTES);
        }
        double total = whole.orElseThrow();
        double allocatedFraction = allocated.isKnown() ? allocated.orElseThrow() / total : 0;
        double usedFraction = used.isKnown() ? used.orElseThrow() / total : 0;
        return new Value.Bar(shown, Kind.BYTES, new TableView.MiniBar(allocatedFraction, usedFraction,
                used.isKnown() && allocated.isKnown() && used.orElseThrow() > allocated.orElseThrow()));
    }
}
