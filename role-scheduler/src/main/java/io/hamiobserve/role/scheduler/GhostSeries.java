package io.hamiobserve.role.scheduler;

import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.AllocationView.CardAllocation;
import io.hamiobserve.domain.CardUse;
import io.hamiobserve.domain.Ghost;
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

    /** Adds a section with one segment per node that holds ghosts, keyed by those pods and the cards they hold. */
    static void describe(AllocationView view, Segments into) {
        var section = into.section("ghosts", families -> {
            families.of(SINCE);
            families.of(CARDS);
        });
        Map<String, CardAllocation> cards = new HashMap<>();
        for (CardAllocation card : view.cards()) {
            cards.put(card.card().uuid(), card);
        }
        List<PodPlacement> pods = view.pods();
        for (int from = 0; from < pods.size(); ) {
            int to = from + 1;
            while (to < pods.size() && pods.get(to).node().equals(pods.get(from).node())) {
                to++;
            }
            List<PodPlacement> ghosts = new ArrayList<>();
            Map<String, CardAllocation> held = new HashMap<>();
            // The key holds what a size reads of a card (its figures and units), not its allocated
            // totals: another pod's change on the card does not render the ghosts again.
            Map<String, List<Object>> sizes = new HashMap<>();
            for (PodPlacement pod : pods.subList(from, to)) {
                if (Ghost.of(pod).isPresent()) {
                    ghosts.add(pod);
                    for (CardUse use : CardUse.of(pod)) {
                        CardAllocation card = cards.get(use.uuid());
                        if (card != null) {
                            held.put(use.uuid(), card);
                            sizes.put(use.uuid(), List.of(card.card(), card.units()));
                        }
                    }
                }
            }
            if (!ghosts.isEmpty()) {
                section.segment(List.of(List.copyOf(ghosts), Map.copyOf(sizes)),
                        families -> ghosts.forEach(pod -> add(pod, held, families)));
            }
            from = to;
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
