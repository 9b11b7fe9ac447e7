package io.hamiobserve.domain.fleet;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** What {@link Showback} reads: every card and every container's share of one, over a window, with the queries behind them. */
public record CardHours(Instant from, Instant to, List<CardAccrual> cards, List<ShareAccrual> shares,
                        Map<Measure, Provenance> provenance) {
    public CardHours {
        cards = List.copyOf(cards);
        shares = List.copyOf(shares);
        provenance = Map.copyOf(provenance);
    }

    public Showback report(Showback.Grouping by, Prices prices) {
        return Showback.of(from, to, cards, shares, by, prices);
    }
}
