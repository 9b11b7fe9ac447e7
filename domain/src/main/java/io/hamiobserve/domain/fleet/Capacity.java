package io.hamiobserve.domain.fleet;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How many more pods of a shape fit now, per card model: what HAMi's scheduler would still place
 * if the pods came one after another, counting per card its free memory, free compute and free
 * share slots, and per node that a pod's cards must be distinct cards of one model.
 *
 * <p>Cards that are unhealthy, shared as MIG instances (their shapes are MIG profiles, not
 * memory and cores) or lack a figure are not counted, and the result says how many were left out.
 *
 * <p>Beside what fits now, what would fit with every right-sizing recommendation applied: whether
 * the pods waiting for a GPU call for more cards or for right-sizing the ones held.
 */
public final class Capacity {
    private Capacity() {
    }

    /** What limits a card: the resource that runs out first for the shape. */
    public enum Limit { MEMORY, CORES, SLOTS }

    /**
     * Capacity of one card model.
     *
     * @param cards           cards of the model
     * @param counted         cards counted (healthy, HAMi-Core, every figure known)
     * @param fits            pods of the shape that fit now
     * @param fitsAfterRightSizing pods of the shape that would fit with every recommendation applied
     *                        ({@link #afterRightSizing}); equal to {@code fits} without recommendations
     * @param memoryGivenBack memory the cuts among those recommendations give back on the counted
     *                        cards, bytes
     * @param memoryTaken     memory the raises among them take on the counted cards, bytes: with
     *                        {@code memoryGivenBack}, why {@code fitsAfterRightSizing} moved as it did
     * @param freeMemory      Σ free memory of the counted cards, bytes
     * @param strandedMemory  free memory that no further pod of the shape can use (fragmentation), bytes
     * @param largestFreeMemory the most free memory on any one counted card, bytes
     * @param limitedBy       per resource, how many counted cards it limits first
     */
    public record ModelCapacity(String model, int cards, int counted, long fits, long fitsAfterRightSizing,
                                double memoryGivenBack, double memoryTaken, double freeMemory,
                                double strandedMemory, double largestFreeMemory, Map<Limit, Integer> limitedBy) {
    }

    public static List<ModelCapacity> of(List<Card> cards, PodShape shape) {
        return of(cards, shape, List.of());
    }

    /** Per card model, what fits now and what would fit with {@code recommendations} applied. */
    public static List<ModelCapacity> of(List<Card> cards, PodShape shape, List<Recommendation> recommendations) {
        Map<String, CardChange> change = changes(recommendations);
        List<ModelCapacity> out = new ArrayList<>();
        byModel(cards).forEach((model, ofModel) -> {
            ModelCapacity now = ofModel(model, ofModel, shape);
            long after = ofModel(model, ofModel.stream().map(card -> rightSized(card, change)).toList(), shape).fits();
            double givenBack = 0;
            double taken = 0;
            for (Card card : ofModel) {
                CardChange delta = change.get(card.uuid());
                if (delta != null && countable(card)) {
                    givenBack += delta.givenBack;
                    taken += delta.taken;
                }
            }
            out.add(new ModelCapacity(model, now.cards(), now.counted(), now.fits(), after, givenBack, taken,
                    now.freeMemory(), now.strandedMemory(), now.largestFreeMemory(), now.limitedBy()));
        });
        return out;
    }

    /**
     * The cards as they would be with every recommendation applied: on each card a recommendation
     * names, memory and compute allocated change by its recommended minus its current request per
     * card — a cut gives back, a raise (a limit hit) takes. A figure the recommendation lacks (not
     * enough history) changes nothing; an allocation never goes below zero. Compute changes only
     * on cards counted in percent (a total of 100, HAMi-Core's {@code gpucores}): the recommended
     * compute is a utilisation percentile, not a count of a vendor's cores.
     */
    public static List<Card> afterRightSizing(List<Card> cards, List<Recommendation> recommendations) {
        Map<String, CardChange> change = changes(recommendations);
        return cards.stream().map(card -> rightSized(card, change)).toList();
    }

    /**
     * What every recommendation naming one card would change on it: memory (bytes) and compute,
     * and of the memory, what the cuts give back and the raises take (a card may have both).
     */
    private static final class CardChange {
        double memory;
        double cores;
        double givenBack;
        double taken;
    }

    /** Per card uuid, its {@link CardChange}. */
    private static Map<String, CardChange> changes(List<Recommendation> recommendations) {
        Map<String, CardChange> change = new java.util.HashMap<>();
        for (Recommendation recommendation : recommendations) {
            double memory = recommendation.memoryChangeMib().isKnown()
                    ? recommendation.memoryChangeMib().orElseThrow() * MIB : 0;
            double cores = recommendation.coresChange().isKnown() ? recommendation.coresChange().orElseThrow() : 0;
            for (String uuid : new java.util.LinkedHashSet<>(recommendation.uuids())) {
                CardChange delta = change.computeIfAbsent(uuid, card -> new CardChange());
                delta.memory += memory;
                delta.cores += cores;
                delta.givenBack += Math.max(0, -memory);
                delta.taken += Math.max(0, memory);
            }
        }
        return change;
    }

    private static Card rightSized(Card card, Map<String, CardChange> change) {
        CardChange delta = change.get(card.uuid());
        if (delta == null) {
            return card;
        }
        boolean percent = card.coresTotal().isKnown() && card.coresTotal().orElseThrow() == 100;
        return card.withAllocation(card.memoryAllocated().map(allocated -> Math.max(0, allocated + delta.memory)),
                percent ? card.coresAllocated().map(allocated -> Math.max(0, allocated + delta.cores))
                        : card.coresAllocated());
    }

    private static final double MIB = 1024.0 * 1024.0;

    private static Map<String, List<Card>> byModel(List<Card> cards) {
        Map<String, List<Card>> byModel = new TreeMap<>();
        cards.forEach(card -> byModel.computeIfAbsent(card.model().isEmpty() ? "(unregistered)" : card.model(),
                model -> new ArrayList<>()).add(card));
        return byModel;
    }

    private static ModelCapacity ofModel(String model, List<Card> cards, PodShape shape) {
        double shapeBytes = shape.memoryMib() * 1024.0 * 1024.0;
        Map<String, List<Long>> unitsByNode = new TreeMap<>();
        Map<Limit, Integer> limitedBy = new java.util.EnumMap<>(Limit.class);
        int counted = 0;
        double free = 0;
        double largest = 0;
        for (Card card : cards) {
            if (!countable(card)) {
                continue;
            }
            counted++;
            double freeMemory = card.memoryFree().orElseThrow();
            free += freeMemory;
            largest = Math.max(largest, freeMemory);
            long byMemory = (long) Math.floor(freeMemory / shapeBytes);
            long byCores = shape.cores() == 0 ? Long.MAX_VALUE
                    : (long) Math.floor(card.coresFree().orElseThrow() / shape.cores());
            long bySlots = (long) card.slotsFree().orElseThrow();
            long units = Math.min(byMemory, Math.min(byCores, bySlots));
            Limit limit = units == byMemory ? Limit.MEMORY : units == byCores ? Limit.CORES : Limit.SLOTS;
            limitedBy.merge(limit, 1, Integer::sum);
            unitsByNode.computeIfAbsent(card.node(), node -> new ArrayList<>()).add(units);
        }
        long fits = unitsByNode.values().stream().mapToLong(units -> podsOnNode(units, shape.cards())).sum();
        double usable = fits * shape.cards() * shapeBytes;
        return new ModelCapacity(model, cards.size(), counted, fits, fits, 0, 0, free, Math.max(0, free - usable),
                largest, Map.copyOf(limitedBy));
    }

    /**
     * Pods of {@code cardsPerPod} distinct cards that fit on one node whose cards can each take
     * {@code units[i]} more shares: the largest t with Σ min(units[i], t) ≥ cardsPerPod · t
     * (each pod takes one share on each of cardsPerPod different cards).
     */
    static long podsOnNode(List<Long> units, int cardsPerPod) {
        long total = units.stream().mapToLong(Long::longValue).sum();
        long low = 0;
        long high = total / cardsPerPod;
        while (low < high) {
            long middle = (low + high + 1) >>> 1;
            long available = 0;
            for (long each : units) {
                available += Math.min(each, middle);
            }
            if (available >= (long) cardsPerPod * middle) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        return low;
    }

    private static boolean countable(Card card) {
        return !card.mig() && card.healthy().isKnown() && card.healthy().orElseThrow() > 0
                && card.memoryFree().isKnown() && card.coresFree().isKnown() && card.slotsFree().isKnown();
    }
}
