package io.hamiobserve.domain.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fleet funnel over a window, in cards' worth (card-seconds ÷ the window's seconds): <b>total</b>
 * (registered, healthy cards), <b>allocated</b> (what shares blocked, {@link ShareSize}),
 * <b>active</b> (the allocation of shares that used their card in the window's last
 * {@link #ACTIVE}) and <b>effective</b> (the allocation of shares that used at least
 * {@link #EFFECTIVE} of it over the window, and are active). Per group (cluster, card model, namespace), and, for
 * each stage, the workloads that lose the most between it and the next.
 */
public record Funnel(String group, double total, double allocated, double active, double effective) {
    /** How recent "some use" must be for a share to be active. */
    public static final Duration ACTIVE = Duration.ofMinutes(15);
    /** The part of its allocation a share must use over the window to be effective. */
    public static final double EFFECTIVE = 0.5;

    /**
     * A workload's loss at one stage, in cards' worth: allocated but not active, or active but not
     * effective (its allocation, since the stage counts a share all or nothing).
     */
    public record Loss(String stage, String namespace, String workload, double cards) {
    }

    /**
     * The funnel of every group of {@code by} ({@link Showback.Grouping#CLUSTER}, {@link Showback.Grouping#MODEL}
     * or {@link Showback.Grouping#NAMESPACE}; a namespace has no cards of its own, so its total is its allocation),
     * the whole fleet first under the name {@code "fleet"}.
     */
    public static List<Funnel> of(CardHours hours, Showback.Grouping by) {
        double seconds = Math.max(1, Duration.between(hours.from(), hours.to()).toSeconds());
        Map<String, String> modelOf = new HashMap<>();
        Map<String, double[]> groups = new TreeMap<>();
        double[] fleet = new double[4];
        for (CardAccrual card : hours.cards()) {
            modelOf.put(card.cluster() + "\u0000" + card.uuid(), card.model());
            double available = Math.max(0, card.seenSeconds() - Math.max(0, card.unavailableSeconds()));
            fleet[0] += available;
            if (by != Showback.Grouping.NAMESPACE) {
                groups.computeIfAbsent(by == Showback.Grouping.MODEL ? card.model() : card.cluster(),
                        any -> new double[4])[0] += available;
            }
        }
        for (ShareAccrual share : hours.shares()) {
            String key = switch (by) {
                case MODEL -> modelOf.getOrDefault(share.cluster() + "\u0000" + share.cardUuid(), "");
                case CLUSTER -> share.cluster();
                default -> share.namespace();
            };
            double[] group = groups.computeIfAbsent(key, any -> new double[4]);
            double allocated = positive(share.allocatedCardSeconds());
            for (double[] sums : List.of(group, fleet)) {
                sums[1] += allocated;
                sums[2] += share.active() ? allocated : 0;
                // Each stage is within the one before: an idle share is not effective, whatever it did earlier.
                sums[3] += share.active() && effective(share) ? allocated : 0;
            }
            if (by == Showback.Grouping.NAMESPACE) {
                group[0] += allocated;
            }
        }
        List<Funnel> funnels = new ArrayList<>();
        funnels.add(new Funnel("fleet", fleet[0] / seconds, fleet[1] / seconds, fleet[2] / seconds, fleet[3] / seconds));
        groups.forEach((key, sums) -> funnels.add(new Funnel(key, sums[0] / seconds, sums[1] / seconds,
                sums[2] / seconds, sums[3] / seconds)));
        return funnels;
    }

    /** The workloads that lose the most at each stage, largest first, at most {@code limit} per stage. */
    public static List<Loss> losses(CardHours hours, int limit) {
        double seconds = Math.max(1, Duration.between(hours.from(), hours.to()).toSeconds());
        Map<List<String>, Double> idle = new HashMap<>();
        Map<List<String>, Double> ineffective = new HashMap<>();
        for (ShareAccrual share : hours.shares()) {
            List<String> workload = List.of(share.namespace(), share.workload());
            double cards = positive(share.allocatedCardSeconds()) / seconds;
            if (!share.active()) {
                idle.merge(workload, cards, Double::sum);
            } else if (!effective(share)) {
                ineffective.merge(workload, cards, Double::sum);
            }
        }
        List<Loss> losses = new ArrayList<>();
        losses.addAll(ranked("allocated → active", idle, limit));
        losses.addAll(ranked("active → effective", ineffective, limit));
        return losses;
    }

    private static List<Loss> ranked(String stage, Map<List<String>, Double> cards, int limit) {
        return cards.entrySet().stream().filter(entry -> entry.getValue() > 0)
                .sorted(Map.Entry.<List<String>, Double>comparingByValue().reversed()
                        .thenComparing(entry -> String.join("/", entry.getKey())))
                .limit(limit).map(entry -> new Loss(stage, entry.getKey().get(0), entry.getKey().get(1), entry.getValue()))
                .toList();
    }

    private static boolean effective(ShareAccrual share) {
        double allocated = positive(share.allocatedCardSeconds());
        return allocated > 0 && positive(share.usedCardSeconds()) >= EFFECTIVE * allocated;
    }

    private static double positive(double value) {
        return value > 0 ? value : 0;
    }

    /** For tests and callers that hold several: the groups by name. */
    static Map<String, Funnel> byGroup(Collection<Funnel> funnels) {
        Map<String, Funnel> map = new TreeMap<>(Comparator.naturalOrder());
        funnels.forEach(funnel -> map.put(funnel.group(), funnel));
        return map;
    }
}
