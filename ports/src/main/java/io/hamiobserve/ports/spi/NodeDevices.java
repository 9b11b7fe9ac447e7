package io.hamiobserve.ports.spi;

import io.hamiobserve.domain.VendorCard;

import java.util.ArrayList;
import java.util.List;

/**
 * A node's cards of one provider.
 *
 * @param present  whether the node registers this vendor's devices at all (its annotation is
 *                 there, or its resources are above zero), even when none of them decoded; a
 *                 node that no provider finds present has no cards
 * @param cards    the cards that decoded, UUIDs distinct, in the order the node lists them
 * @param problems one per part left out
 */
public record NodeDevices(boolean present, List<VendorCard> cards, List<Problem> problems) {
    private static final NodeDevices ABSENT = new NodeDevices(false, List.of(), List.of());

    public NodeDevices {
        cards = List.copyOf(cards);
        problems = List.copyOf(problems);
    }

    /** The node has no devices of this vendor. */
    public static NodeDevices absent() {
        return ABSENT;
    }

    /** This result followed by {@code other}'s (a provider with several backends). */
    public NodeDevices and(NodeDevices other) {
        if (!other.present && other.problems.isEmpty()) {
            return this;
        }
        if (!present && problems.isEmpty()) {
            return other;
        }
        List<VendorCard> allCards = new ArrayList<>(cards);
        allCards.addAll(other.cards);
        List<Problem> allProblems = new ArrayList<>(problems);
        allProblems.addAll(other.problems);
        return new NodeDevices(present || other.present, allCards, allProblems);
    }
}
