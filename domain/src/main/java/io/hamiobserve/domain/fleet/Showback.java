package io.hamiobserve.domain.fleet;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Card-hours that add up to the fleet: who held how much of the fleet's cards over a window, how
 * much of it they used, and where the rest went.
 *
 * <p>Every card-second the fleet's cards were seen is counted in exactly one of four places:
 * <b>used</b> (a share's use, at most its size), <b>allocated but idle</b> (the rest of what the
 * shares blocked), <b>unallocated</b> (registered, healthy, held by no share) and <b>unhealthy /
 * unregistered</b> (seen by the node or DCGM but not registered in the ledger, or registered
 * unhealthy). The rows' allocated card-hours sum to used plus allocated but idle. The sums are
 * kept in whole micro-card-seconds ({@link #TICKS_PER_CARD_SECOND}), integers, so the identity
 * holds exactly, not to a rounding error.
 *
 * <p>A card whose shares blocked more than it had available over the window (sizes by
 * {@link ShareSize} can add up to more than a card: 60 % memory + 10 % cores beside 10 % memory +
 * 60 % cores) has its shares scaled down in proportion to what was available, and the excess is
 * reported as {@link Fleet#overbooked}: a card cannot be paid for twice. A share on a card no
 * source saw is counted as a card seen for as long as its shares held it.
 */
public record Showback(Instant from, Instant to, Grouping by, List<Row> rows, Fleet fleet, Prices prices) {
    /** The unit of every sum: a millionth of a card-second. */
    public static final long TICKS_PER_CARD_SECOND = 1_000_000;
    private static final double TICKS_PER_CARD_HOUR = TICKS_PER_CARD_SECOND * 3600.0;
    private static final double GIB_HOUR = 1024.0 * 1024 * 1024 * 3600;
    private static final double CARD_CORE_HOUR = 100.0 * 3600;

    /**
     * Steps per window when integrating: hourly over a week, two-hourly over KRR's 14 days. A
     * subquery's cost grows with its steps times the series (measured in docs/benchmarks.md); a pod
     * shorter than a step is counted to the nearest step.
     */
    public static final int STEPS_PER_WINDOW = 168;

    /** The integration step for a window: about {@value #STEPS_PER_WINDOW} per window, whole minutes. */
    public static java.time.Duration step(java.time.Duration window) {
        return java.time.Duration.ofMinutes(Math.max(1, (window.toSeconds() / STEPS_PER_WINDOW + 59) / 60));
    }

    public Showback {
        Objects.requireNonNull(from);
        Objects.requireNonNull(to);
        Objects.requireNonNull(by);
        rows = List.copyOf(rows);
        Objects.requireNonNull(fleet);
        Objects.requireNonNull(prices);
    }

    /** What a report's rows are. */
    public enum Grouping {
        CLUSTER(share -> share.cluster()),
        NAMESPACE(ShareAccrual::namespace),
        WORKLOAD(share -> share.namespace() + "/" + share.workload()),
        POD(share -> share.namespace() + "/" + share.pod()),
        CONTAINER(share -> share.namespace() + "/" + share.pod() + "/" + share.container()),
        NODE(ShareAccrual::node),
        MODEL(null);

        private final Function<ShareAccrual, String> key;

        Grouping(Function<ShareAccrual, String> key) {
            this.key = key;
        }

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One row: the card-hours its shares blocked and used, the memory and cores beside them, and,
     * with prices, what the blocked hours cost and what their idle part cost (missing where a
     * card's model has no price).
     */
    public record Row(String key, long allocatedTicks, long usedTicks, double memoryGibHours, double coreHours,
                      OptionalDouble cost, OptionalDouble idleCost) {
        public double allocatedCardHours() {
            return allocatedTicks / TICKS_PER_CARD_HOUR;
        }

        public double usedCardHours() {
            return usedTicks / TICKS_PER_CARD_HOUR;
        }

        public double idleCardHours() {
            return (allocatedTicks - usedTicks) / TICKS_PER_CARD_HOUR;
        }

        /** Used ÷ allocated, missing without an allocation. */
        public OptionalDouble efficiency() {
            return allocatedTicks == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) usedTicks / allocatedTicks);
        }
    }

    /**
     * The fleet's card-seconds, in ticks: {@code used + allocatedIdle + unallocated + unavailable == seen}.
     *
     * @param overbooked what shares blocked beyond their cards' availability, scaled away
     */
    public record Fleet(long seen, long used, long allocatedIdle, long unallocated, long unavailable, long overbooked,
                        OptionalDouble seenCost, OptionalDouble idleCost, OptionalDouble unallocatedCost,
                        OptionalDouble unavailableCost) {
        public static double hours(long ticks) {
            return ticks / TICKS_PER_CARD_HOUR;
        }
    }

    /** The report of {@code shares} on {@code cards}, one row per {@code by}, largest allocation first. */
    public static Showback of(Instant from, Instant to, Collection<CardAccrual> cards, Collection<ShareAccrual> shares,
                              Grouping by, Prices prices) {
        Map<String, CardAccrual> byUuid = new HashMap<>();
        for (CardAccrual card : cards) {
            byUuid.merge(key(card.cluster(), card.uuid()), card, (one, other) -> one.seenSeconds() >= other.seenSeconds() ? one : other);
        }
        Map<String, List<ShareAccrual>> sharesByCard = new TreeMap<>();
        for (ShareAccrual share : shares) {
            sharesByCard.computeIfAbsent(key(share.cluster(), share.cardUuid()), any -> new ArrayList<>()).add(share);
        }
        Map<String, Accumulator> rows = new TreeMap<>();
        Accumulator total = new Accumulator();
        long seen = 0;
        long unallocated = 0;
        long unavailable = 0;
        long overbooked = 0;
        Cost seenCost = new Cost();
        Cost unallocatedCost = new Cost();
        Cost unavailableCost = new Cost();
        TreeMap<String, CardAccrual> every = new TreeMap<>(byUuid);
        for (String card : sharesByCard.keySet()) {
            if (!every.containsKey(card)) {
                ShareAccrual first = sharesByCard.get(card).getFirst();
                double held = sharesByCard.get(card).stream().mapToDouble(ShareAccrual::allocatedCardSeconds).sum();
                every.put(card, new CardAccrual(first.cluster(), first.node(), first.cardUuid(), "", held, 0));
            }
        }
        for (var entry : every.entrySet()) {
            CardAccrual card = entry.getValue();
            List<ShareAccrual> onCard = sharesByCard.getOrDefault(entry.getKey(), List.of());
            long cardSeen = ticks(card.seenSeconds());
            long cardUnavailable = Math.min(cardSeen, ticks(card.unavailableSeconds()));
            long available = cardSeen - cardUnavailable;
            long[] allocated = onCard.stream().mapToLong(share -> ticks(share.allocatedCardSeconds())).toArray();
            long blocked = java.util.Arrays.stream(allocated).sum();
            if (blocked > available) {
                overbooked += blocked - available;
                allocated = scaled(allocated, available);
                blocked = available;
            }
            OptionalDouble price = prices.of(card.model()).map(OptionalDouble::of).orElse(OptionalDouble.empty());
            seen += cardSeen;
            unavailable += cardUnavailable;
            unallocated += available - blocked;
            seenCost.add(cardSeen, price);
            unallocatedCost.add(available - blocked, price);
            unavailableCost.add(cardUnavailable, price);
            for (int index = 0; index < onCard.size(); index++) {
                ShareAccrual share = onCard.get(index);
                long used = Math.min(allocated[index], ticks(share.usedCardSeconds()));
                String key = by == Grouping.MODEL ? (card.model().isEmpty() ? "(unseen card)" : card.model())
                        : by.key.apply(share);
                rows.computeIfAbsent(key, any -> new Accumulator()).add(allocated[index], used, share, price);
                total.add(allocated[index], used, share, price);
            }
        }
        List<Row> result = rows.entrySet().stream().map(row -> row.getValue().row(row.getKey()))
                .sorted(Comparator.comparingLong(Row::allocatedTicks).reversed().thenComparing(Row::key))
                .toList();
        Fleet fleet = new Fleet(seen, total.used, total.allocated - total.used, unallocated, unavailable, overbooked,
                seenCost.value(), total.idleCost.value(), unallocatedCost.value(), unavailableCost.value());
        return new Showback(from, to, by, result, fleet, prices);
    }

    private static String key(String cluster, String uuid) {
        return cluster + "\u0000" + uuid;
    }

    /** Seconds to ticks, a negative or not-a-number figure as none. */
    static long ticks(double seconds) {
        if (Double.isNaN(seconds) || seconds <= 0) {
            return 0;
        }
        return Math.round(Math.min(seconds, Long.MAX_VALUE / (4.0 * TICKS_PER_CARD_SECOND)) * TICKS_PER_CARD_SECOND);
    }

    /**
     * {@code parts} scaled to sum to exactly {@code whole}: each its proportional floor, the ticks
     * left over given to the largest remainders (ties to the earlier part), so nothing is lost to rounding.
     */
    static long[] scaled(long[] parts, long whole) {
        long sum = java.util.Arrays.stream(parts).sum();
        long[] result = new long[parts.length];
        if (sum == 0) {
            return result;
        }
        java.math.BigInteger total = java.math.BigInteger.valueOf(sum);
        long[] remainders = new long[parts.length];
        long given = 0;
        for (int index = 0; index < parts.length; index++) {
            java.math.BigInteger[] division = java.math.BigInteger.valueOf(parts[index])
                    .multiply(java.math.BigInteger.valueOf(whole)).divideAndRemainder(total);
            result[index] = division[0].longValueExact();
            remainders[index] = division[1].longValueExact();
            given += result[index];
        }
        Integer[] order = new Integer[parts.length];
        for (int index = 0; index < order.length; index++) {
            order[index] = index;
        }
        java.util.Arrays.sort(order, Comparator.comparingLong((Integer index) -> remainders[index]).reversed());
        for (int index = 0; given < whole; index++) {
            result[order[index]]++;
            given++;
        }
        return result;
    }

    /** A sum of costs: missing as soon as one part with hours has no price. */
    private static final class Cost {
        private double sum;
        private boolean unpriced;

        void add(long ticks, OptionalDouble price) {
            if (ticks == 0) {
                return;
            }
            if (price.isEmpty()) {
                unpriced = true;
            } else {
                sum += ticks / TICKS_PER_CARD_HOUR * price.getAsDouble();
            }
        }

        OptionalDouble value() {
            return unpriced ? OptionalDouble.empty() : OptionalDouble.of(sum);
        }
    }

    private static final class Accumulator {
        private long allocated;
        private long used;
        private double memoryByteSeconds;
        private double corePercentSeconds;
        private final Cost cost = new Cost();
        private final Cost idleCost = new Cost();

        void add(long allocatedTicks, long usedTicks, ShareAccrual share, OptionalDouble price) {
            allocated += allocatedTicks;
            used += usedTicks;
            memoryByteSeconds += share.memoryByteSeconds() > 0 ? share.memoryByteSeconds() : 0;
            corePercentSeconds += share.corePercentSeconds() > 0 ? share.corePercentSeconds() : 0;
            cost.add(allocatedTicks, price);
            idleCost.add(allocatedTicks - usedTicks, price);
        }

        Row row(String key) {
            return new Row(key, allocated, used, memoryByteSeconds / GIB_HOUR, corePercentSeconds / CARD_CORE_HOUR,
                    cost.value(), idleCost.value());
        }
    }
}
