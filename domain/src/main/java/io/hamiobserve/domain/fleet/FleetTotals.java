package io.hamiobserve.domain.fleet;

import java.util.Comparator;
import java.util.List;

/**
 * The overview's arithmetic: the cluster's memory and compute allocated and used, the gap between
 * them in bytes and in cards' worth, the largest idle allocations and the cards used beyond what
 * was allocated on them.
 *
 * <p>"Used" percentages are taken over the cards that report usage only, and say how many do not:
 * dividing the use of 5 cards by the memory of 7 would understate use by the two silent ones.
 *
 * @param memoryTotal           Σ registered memory, bytes
 * @param memoryAllocated       Σ allocated memory, bytes
 * @param memoryUsed            Σ driver-reported memory in use over the cards that report it
 * @param memoryTotalReporting  Σ registered memory of the cards that report usage
 * @param coresTotal            Σ compute, percent of a card (100 per card)
 * @param coresAllocated        Σ compute allocated
 * @param utilisation           Σ card utilisation over the cards that report it
 * @param coresTotalReporting   Σ compute of the cards that report utilisation
 * @param cardsWithoutUsage     cards with no driver reading
 * @param memoryIdle            Σ (allocated − used) over containers where both are known: the gap
 * @param meanCardMemory        average registered memory of a card, to express the gap in cards
 * @param coresAllocatedShare   the cards' mean allocated percent as a fraction: comparable across vendors,
 *                              where {@code coresAllocated / coresTotal} would mix their units
 */
public record FleetTotals(int cards, int nodes, int workloads, Figure memoryTotal, Figure memoryAllocated,
                          Figure memoryUsed, Figure memoryTotalReporting, Figure coresTotal, Figure coresAllocated,
                          Figure utilisation, Figure coresTotalReporting, int cardsWithoutUsage, Figure memoryIdle,
                          Figure meanCardMemory, Figure coresAllocatedShare) {

    public static FleetTotals of(FleetState state) {
        return of(state.cards(), state.nodes().size(), state.workloads());
    }

    /**
     * Each cluster's totals from the fleet-wide state, as a read of that cluster's cards alone
     * ({@link FleetScope.CardsOnly}) gives them: its cards and its nodes, no workloads. Empty where
     * a card or a node names no cluster (a source without the cluster label) or several (clusters
     * registering the same card UUID, or a cluster whose name holds the separator): how those split
     * between clusters only each cluster's own read knows.
     */
    public static java.util.Optional<java.util.Map<String, FleetTotals>> byCluster(FleetState state) {
        java.util.Map<String, List<Card>> cards = new java.util.TreeMap<>();
        java.util.Map<String, Integer> nodes = new java.util.HashMap<>();
        for (Card card : state.cards()) {
            String cluster = state.cluster(card);
            if (!oneCluster(cluster)) {
                return java.util.Optional.empty();
            }
            cards.computeIfAbsent(cluster, name -> new java.util.ArrayList<>()).add(card);
        }
        for (FleetState.NodeSummary node : state.nodes()) {
            if (!oneCluster(node.cluster())) {
                return java.util.Optional.empty();
            }
            nodes.merge(node.cluster(), 1, Integer::sum);
        }
        java.util.Map<String, FleetTotals> totals = new java.util.TreeMap<>();
        cards.forEach((cluster, its) -> totals.put(cluster, of(its, nodes.getOrDefault(cluster, 0), List.of())));
        return java.util.Optional.of(totals);
    }

    private static boolean oneCluster(String cluster) {
        return !cluster.isEmpty() && !cluster.contains(", ");
    }

    private static FleetTotals of(List<Card> cards, int nodes, List<Workload> workloads) {
        List<Card> reporting = cards.stream().filter(card -> card.memoryUsed().isKnown()).toList();
        List<Card> reportingUtilisation = cards.stream().filter(card -> card.utilisation().isKnown()).toList();
        Figure.Total memory = Figure.Total.of(cards.stream().map(Card::memoryTotal).toList());
        return new FleetTotals(cards.size(), nodes, workloads.size(), memory.figure(),
                FleetState.total(cards, Card::memoryAllocated), FleetState.total(reporting, Card::memoryUsed),
                FleetState.total(reporting, Card::memoryTotal), FleetState.total(cards, Card::coresTotal),
                FleetState.total(cards, Card::coresAllocated),
                FleetState.total(reportingUtilisation, Card::utilisation),
                FleetState.total(reportingUtilisation, Card::coresTotal), cards.size() - reporting.size(),
                FleetState.total(workloads, Workload::memoryIdle),
                memory.known() > 0 ? Figure.of(memory.sum() / memory.known()) : Figure.missing(Absence.NOT_REPORTED),
                FleetState.coresAllocatedFraction(cards));
    }

    public Figure memoryAllocatedFraction() {
        return memoryAllocated.fractionOf(memoryTotal);
    }

    public Figure memoryUsedFraction() {
        return memoryUsed.fractionOf(memoryTotalReporting);
    }

    /** The mean of the cards' allocated percents ({@link FleetState#coresAllocatedFraction}). */
    public Figure coresAllocatedFraction() {
        return coresAllocatedShare;
    }

    public Figure coresUsedFraction() {
        return utilisation.fractionOf(coresTotalReporting);
    }

    /** The idle allocated memory in cards' worth: how many average cards it would fill. */
    public Figure memoryIdleCards() {
        return memoryIdle.fractionOf(meanCardMemory);
    }

    /** The {@code limit} shares with the most allocated-but-unused memory, largest first. */
    public static List<WorkloadShare> topIdle(FleetState state, int limit) {
        return state.workloads().stream().flatMap(workload -> workload.shares().stream())
                .filter(share -> share.memoryIdle().isKnown() && share.memoryIdle().orElseThrow() > 0)
                .sorted(Comparator.comparingDouble((WorkloadShare share) -> share.memoryIdle().orElseThrow())
                        .reversed().thenComparing(WorkloadShare::workload))
                .limit(limit)
                .toList();
    }

    /** Cards whose use exceeds everything allocated on them: containers outside HAMi-Core's control. */
    public static List<Card> usedBeyondAllocation(FleetState state) {
        return state.cards().stream().filter(Card::usedBeyondAllocation).toList();
    }
}
