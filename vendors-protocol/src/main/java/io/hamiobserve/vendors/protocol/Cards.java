package io.hamiobserve.vendors.protocol;

import io.hamiobserve.domain.RegisteredCard;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Rules every vendor's card list follows. */
public final class Cards {
    private Cards() {
    }

    /**
     * The cards with distinct UUIDs, the first of each kept: a UUID is the card's identity in
     * every view, and two cards claiming one would be counted twice.
     */
    public static List<RegisteredCard> distinct(List<RegisteredCard> cards, Problems problems) {
        Set<String> seen = new HashSet<>();
        List<RegisteredCard> unique = new ArrayList<>(cards.size());
        for (RegisteredCard card : cards) {
            if (seen.add(card.uuid())) {
                unique.add(card);
            } else {
                problems.add("duplicate_uuid", "card " + card.uuid() + " registered twice");
            }
        }
        return unique;
    }

    /** The problem for a node listing more cards than any node holds. */
    public static void tooMany(long listed, Problems problems) {
        problems.add("too_many_cards", listed + " cards registered; the first " + InputLimits.MAX_CARDS_PER_NODE
                + " are read");
    }

    /** {@code card} with its compute figure replaced (vendors whose plugin's figure HAMi overrides). */
    public static RegisteredCard withCores(RegisteredCard card, long cores) {
        return new RegisteredCard(card.uuid(), card.index(), card.maxShares(), card.memoryMib(), cores, card.type(),
                card.numa(), card.mode(), card.healthy());
    }

    /** {@code card} with its type replaced (vendors whose backend names the type, not the plugin). */
    public static RegisteredCard withType(RegisteredCard card, String type) {
        return new RegisteredCard(card.uuid(), card.index(), card.maxShares(), card.memoryMib(), card.cores(), type,
                card.numa(), card.mode(), card.healthy());
    }
}
