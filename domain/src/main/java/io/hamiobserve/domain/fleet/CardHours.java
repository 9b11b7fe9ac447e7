package io.hamiobserve.domain.fleet;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** What {@link Showback} reads: every card and every container's share of one, over a window, with the queries behind them. */
public record CardHours(Instant from, Instant to, List<CardAccrual> cards, List<ShareAccrual> shares,
                        Map<Measure, Provenance> provenance) {
    public CardHours {
        cards = List.copyOf(cards);
        shares = List.copyOf(shares);
        provenance = Map.copyOf(provenance);
    }

    /**
     * These card-hours' part of one cluster, as a read narrowed to that cluster answers it: its cards
     * and its shares, from the same queries (their provenance is the read's, over every cluster).
     * Empty where a card or share names no cluster (series without the cluster label beside
     * labelled ones): only a narrowed read can tell what it holds of them.
     */
    public Optional<CardHours> inCluster(String cluster) {
        Objects.requireNonNull(cluster);
        if (cards.stream().anyMatch(card -> card.cluster().isEmpty())
                || shares.stream().anyMatch(share -> share.cluster().isEmpty())) {
            return Optional.empty();
        }
        return Optional.of(new CardHours(from, to,
                cards.stream().filter(card -> card.cluster().equals(cluster)).toList(),
                shares.stream().filter(share -> share.cluster().equals(cluster)).toList(), provenance));
    }

    public Showback report(Showback.Grouping by, Prices prices) {
        return Showback.of(from, to, cards, shares, by, prices);
    }
}
