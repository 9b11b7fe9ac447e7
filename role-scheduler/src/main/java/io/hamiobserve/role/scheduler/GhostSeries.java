package io.hamiobserve.role.scheduler;

import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.AllocationView.CardAllocation;
import io.hamiobserve.domain.CardUse;
import io.hamiobserve.domain.Ghost;
import io.hamiobserve.domain.NodeStamps;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.exposition.Families;
import io.hamiobserve.exposition.MetricFamily;
import io.hamiobserve.exposition.Segments;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.hamiobserve.exposition.MetricFamily.gauge;

/**
 * Ghost allocations' series: per card share held by a pod with no live owner ({@link Ghost}), when
 * that began and how much of the card it blocks. Both are facts of the ledger, not of its clock:
 * the age is {@code time() - since} and the card-hours held {@code cards * age / 3600}, told by the
 * reader (the alert's threshold, the console's minimum age), so a node's ghost segment is rendered
 * again only when its pods change, like its other segments.
 */
final class GhostSeries {
    static final MetricFamily SINCE = gauge("hami_observe_ghost_allocation_since_timestamp_seconds",
            "When the share's owner stopped being live, unix seconds: reason deleting, the pod's deletionTimestamp "
                    + "(its grace's end); never_started, its placement (no container has run since). time() minus "
                    + "this is the ghost's age; a moment in the future is a deletion still within its grace",
            "namespace", "node", "pod", "device_uuid", "reason");
    static final MetricFamily CARDS = gauge("hami_observe_ghost_allocation_cards",
            "How much of the card the ghost's share blocks, in cards: the larger of its memory and core fractions",
            "namespace", "node", "pod", "device_uuid", "reason");

    private GhostSeries() {
    }

    /**
     * Adds a section with one segment per node that holds ghosts, keyed by {@code stamps} when given
     * ({@link NodeStamps}), else by those pods and the sizes of the cards they hold: keyed by a
     * stamp, a node's ghost segment is rendered again only when its stamp changes. A ghost's
     * series read the node's pods and the sizes of the cards they hold, which change only with a
     * registration, and every stamp changes with one. Only the nodes {@code runs} count ghosts on
     * have a segment.
     *
     * @param runs the view's pods split into nodes, with their ghosts counted
     */
    static void describe(AllocationView view, NodeStamps stamps, NodeRuns runs, Segments into) {
        var section = into.section("ghosts", families -> {
            families.of(SINCE);
            families.of(CARDS);
        });
        Cards cards = new Cards(view.cards());
        List<PodPlacement> pods = view.pods();
        for (int run = 0; run < runs.count(); run++) {
            if (runs.ghosts(run) == 0) {
                continue;
            }
            List<PodPlacement> node = pods.subList(runs.from(run), runs.to(run));
            if (stamps != null) {
                section.segment(stamps.of(runs.node(run)), families -> {
                    List<PodPlacement> ghosts = ghosts(node);
                    Map<String, CardAllocation> held = held(ghosts, cards.byUuid());
                    ghosts.forEach(pod -> add(pod, held, families));
                });
                continue;
            }
            List<PodPlacement> ghosts = ghosts(node);
            Map<String, CardAllocation> held = held(ghosts, cards.byUuid());
            // The key holds what a size reads of a card (its figures and units), not its allocated
            // totals: another pod's change on the card does not render the ghosts again.
            Map<String, List<Object>> sizes = new HashMap<>();
            held.forEach((uuid, card) -> sizes.put(uuid, List.of(card.card(), card.units())));
            section.segment(List.of(List.copyOf(ghosts), Map.copyOf(sizes)),
                    families -> ghosts.forEach(pod -> add(pod, held, families)));
        }
    }

    /** The pods of {@code pods} that are ghosts, in their order. */
    private static List<PodPlacement> ghosts(List<PodPlacement> pods) {
        List<PodPlacement> ghosts = new ArrayList<>();
        for (PodPlacement pod : pods) {
            if (Ghost.of(pod).isPresent()) {
                ghosts.add(pod);
            }
        }
        return ghosts;
    }

    /** The registered cards that {@code ghosts} hold shares of, by uuid. */
    private static Map<String, CardAllocation> held(List<PodPlacement> ghosts, Map<String, CardAllocation> cards) {
        Map<String, CardAllocation> held = new HashMap<>();
        for (PodPlacement pod : ghosts) {
            for (CardUse use : CardUse.of(pod)) {
                CardAllocation card = cards.get(use.uuid());
                if (card != null) {
                    held.put(use.uuid(), card);
                }
            }
        }
        return held;
    }

    /**
     * The view's cards by uuid, indexed the first time a segment asks (segments render in
     * parallel): a scrape that renders no ghost segment indexes none of the cards.
     */
    private static final class Cards {
        private final List<CardAllocation> cards;
        private Map<String, CardAllocation> byUuid;

        Cards(List<CardAllocation> cards) {
            this.cards = cards;
        }

        synchronized Map<String, CardAllocation> byUuid() {
            if (byUuid == null) {
                Map<String, CardAllocation> index = new HashMap<>(cards.size() * 4 / 3 + 1);
                for (CardAllocation card : cards) {
                    index.put(card.card().uuid(), card);
                }
                byUuid = index;
            }
            return byUuid;
        }
    }

    private static void add(PodPlacement pod, Map<String, CardAllocation> cards, Families families) {
        Ghost ghost = Ghost.of(pod).orElseThrow();
        String namespace = pod.pod().namespace();
        String name = pod.pod().name();
        String reason = ghost.reason().label();
        for (CardUse use : CardUse.of(pod)) {
            families.get(SINCE).add(ghost.sinceEpochSeconds(), namespace, pod.node(), name, use.uuid(), reason);
            CardAllocation card = cards.get(use.uuid());
            // A card no node registers has no size to divide by: its share is reported apart
            // (hami_observe_unregistered_gpu_memory_allocated_bytes), its ghost without a size.
            if (card != null) {
                families.get(CARDS).add(card.shareSize(use.memoryMib(), use.cores()), namespace, pod.node(), name,
                        use.uuid(), reason);
            }
        }
    }
}
