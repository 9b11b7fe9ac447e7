package io.hamiobserve.domain.fleet;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShowbackTest {
    private static final Instant TO = Instant.parse("2026-11-30T00:00:00Z");
    private static final Instant FROM = TO.minus(Duration.ofDays(7));
    private static final double HOUR = 3600;

    @Test
    void aShareBlocksTheLargerOfItsMemoryAndCoreFractions() {
        assertEquals(0.5, ShareSize.cardFraction(0.25, 0.5));
        assertEquals(0.75, ShareSize.cardFraction(0.75, 0.1));
        assertEquals(1.0, ShareSize.cardFraction(3, 0));
        assertEquals(0.2, ShareSize.cardFraction(Double.NaN, 0.2));
        assertEquals(0.0, ShareSize.cardFraction(-1, Double.NaN));
    }

    /**
     * A simulated week of 40 cards, some unhealthy or unregistered for a while, and 200 shares of
     * every size: every card-second lands in exactly one of used, allocated but idle, unallocated
     * and unhealthy / unregistered, and the rows' allocations sum to used plus idle, exactly.
     */
    @Test
    void theRowsOfAWeekAddUpToTheFleetExactly() {
        SplittableRandom random = new SplittableRandom(32);
        List<CardAccrual> cards = new ArrayList<>();
        List<ShareAccrual> shares = new ArrayList<>();
        double week = Duration.ofDays(7).toSeconds();
        for (int card = 0; card < 40; card++) {
            double seen = card % 7 == 0 ? week / 3 : week;
            double unavailable = card % 5 == 0 ? random.nextDouble() * seen : 0;
            cards.add(new CardAccrual("c1", "node-" + card / 8, "GPU-" + card, card % 2 == 0 ? "A100-SXM4-80GB" : "L4",
                    seen, unavailable));
        }
        for (int share = 0; share < 200; share++) {
            double size = ShareSize.cardFraction(random.nextDouble() * 0.4, random.nextDouble() * 0.4);
            double held = size * week * random.nextDouble();
            shares.add(new ShareAccrual("c1", "ns-" + share % 6, "Deployment", "app-" + share % 17, "pod-" + share,
                    "main", "node-" + share % 5, "GPU-" + share % 45, held, held * random.nextDouble() * 1.2,
                    held * 8e9, held * 40));
        }
        for (Showback.Grouping by : Showback.Grouping.values()) {
            Showback report = Showback.of(FROM, TO, cards, shares, by, Prices.NONE);
            Showback.Fleet fleet = report.fleet();
            assertEquals(fleet.seen(), fleet.used() + fleet.allocatedIdle() + fleet.unallocated() + fleet.unavailable(), by.label());
            assertEquals(fleet.used() + fleet.allocatedIdle(),
                    report.rows().stream().mapToLong(Showback.Row::allocatedTicks).sum(), by.label());
            assertEquals(fleet.used(), report.rows().stream().mapToLong(Showback.Row::usedTicks).sum(), by.label());
            assertTrue(fleet.unallocated() >= 0 && fleet.allocatedIdle() >= 0);
        }
        // Cards GPU-40..44 are seen by no source: counted as seen for as long as their shares held them.
        double seen = cards.stream().mapToDouble(CardAccrual::seenSeconds).sum()
                + shares.stream().filter(share -> Integer.parseInt(share.cardUuid().substring(4)) >= 40)
                .mapToDouble(ShareAccrual::allocatedCardSeconds).sum();
        Showback report = Showback.of(FROM, TO, cards, shares, Showback.Grouping.NAMESPACE, Prices.NONE);
        assertEquals(seen / HOUR, Showback.Fleet.hours(report.fleet().seen()), 1e-3);
        assertEquals(6, report.rows().size());
    }

    @Test
    void sharesBeyondTheirCardAreScaledToItAndTheExcessReported() {
        // 60 % memory + 10 % cores beside 10 % memory + 60 % cores: 1.2 cards blocked on one card for an hour.
        List<CardAccrual> cards = List.of(new CardAccrual("", "n", "GPU-a", "L4", HOUR, 0));
        List<ShareAccrual> shares = List.of(
                share("a", "GPU-a", ShareSize.cardFraction(0.6, 0.1) * HOUR, 0),
                share("b", "GPU-a", ShareSize.cardFraction(0.1, 0.6) * HOUR, 0.3 * HOUR));
        Showback report = Showback.of(FROM, TO, cards, shares, Showback.Grouping.NAMESPACE, Prices.NONE);
        assertEquals(0.5, report.rows().get(0).allocatedCardHours(), 1e-9);
        assertEquals(0.5, report.rows().get(1).allocatedCardHours(), 1e-9);
        assertEquals(0.2, Showback.Fleet.hours(report.fleet().overbooked()), 1e-9);
        assertEquals(0, report.fleet().unallocated());
        assertEquals(report.fleet().seen(), report.fleet().used() + report.fleet().allocatedIdle());
    }

    @Test
    void scaledPartsSumToTheWholeExactly() {
        long[] parts = Showback.scaled(new long[] {1, 1, 1}, 10);
        assertEquals(10, parts[0] + parts[1] + parts[2]);
        assertEquals(List.of(4L, 3L, 3L), List.of(parts[0], parts[1], parts[2]));
    }

    @Test
    void pricesTurnHoursIntoCostAndIdleCost() {
        Prices prices = Prices.parse(List.of("# per card-hour", "", "A100-SXM4-80GB = 2.10", "L4=0.50"), "prices.txt");
        List<CardAccrual> cards = List.of(
                new CardAccrual("", "n", "GPU-a", "NVIDIA-NVIDIA A100-SXM4-80GB", 10 * HOUR, 0),
                new CardAccrual("", "n", "GPU-b", "L4", 10 * HOUR, 2 * HOUR));
        List<ShareAccrual> shares = List.of(share("team", "GPU-a", 4 * HOUR, 1 * HOUR), share("team", "GPU-b", 2 * HOUR, 2 * HOUR));
        Showback report = Showback.of(FROM, TO, cards, shares, Showback.Grouping.NAMESPACE, prices);
        Showback.Row team = report.rows().getFirst();
        assertEquals(4 * 2.10 + 2 * 0.50, team.cost().orElseThrow(), 1e-9);
        assertEquals(3 * 2.10, team.idleCost().orElseThrow(), 1e-9);
        assertEquals(10 * 2.10 + 10 * 0.50, report.fleet().seenCost().orElseThrow(), 1e-9);
        assertEquals(6 * 2.10 + 6 * 0.50, report.fleet().unallocatedCost().orElseThrow(), 1e-9);
        assertEquals(2 * 0.50, report.fleet().unavailableCost().orElseThrow(), 1e-9);
        // Without a price for a model, costs that include its hours are missing, never partial.
        Showback partly = Showback.of(FROM, TO, cards, shares, Showback.Grouping.NAMESPACE,
                new Prices(Map.of("L4", 0.5)));
        assertFalse(partly.rows().getFirst().cost().isPresent());
        assertEquals(1.0, partly.fleet().unavailableCost().orElseThrow(), 1e-9);
    }

    @Test
    void theLongestMatchingModelWinsAndCaseIsIgnored() {
        Prices prices = new Prices(Map.of("80GB", 1.0, "a100-sxm4-80gb", 2.0));
        assertEquals(2.0, prices.of("NVIDIA A100-SXM4-80GB").orElseThrow());
        assertEquals(1.0, prices.of("H100-80GB").orElseThrow());
        assertTrue(prices.of("X80GB").isEmpty(), "a suffix inside a word is not the model");
    }

    @Test
    void aHostilePriceFileIsRefusedNamingItsLine() {
        assertEquals("p.txt:2: expected MODEL=PRICE, like A100-80GB=2.10, not 'A100 2.10'",
                refused(List.of("L4=1", "A100 2.10")));
        assertEquals("p.txt:1: the price of 'L4' is not a number: 'cheap'", refused(List.of("L4=cheap")));
        assertEquals("p.txt:1: the price of 'L4' must be a decimal from 0 to 1000000 per card-hour, not 'NaN'",
                refused(List.of("L4=NaN")));
        assertEquals("p.txt:1: the price of 'L4' must be a decimal from 0 to 1000000 per card-hour, not '-1'",
                refused(List.of("L4=-1")));
        assertEquals("p.txt:3: a second price for 'L4'", refused(List.of("L4=1", "#", "L4=2")));
        assertEquals("p.txt:1: no card model before '='", refused(List.of("=2")));
        assertEquals("p.txt:1: a card model of at most 256 printable characters", refused(List.of("L4\u001b[2J=2")));
    }

    private static String refused(List<String> lines) {
        return assertThrows(IllegalArgumentException.class, () -> Prices.parse(lines, "p.txt")).getMessage();
    }

    private static ShareAccrual share(String namespace, String card, double allocated, double used) {
        return new ShareAccrual("", namespace, "Pod", namespace + "-pod", namespace + "-pod", "main", "n", card,
                allocated, used, 0, 0);
    }
}
