package io.hamiobserve.vendors.protocol;

import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.ports.spi.Problem;

import java.util.List;

/** How one backend finds a node's cards: from its register annotation, or from its resources. */
@FunctionalInterface
public interface NodeDecoder {
    /** The node's cards of the backend; never throws on input. */
    Found decode(NodeView node);

    /**
     * What a backend found on a node.
     *
     * @param present  whether the node registers the backend at all, even if nothing decoded
     * @param cards    the cards that decoded
     * @param problems one per part left out
     */
    record Found(boolean present, List<RegisteredCard> cards, List<Problem> problems) {
        private static final Found ABSENT = new Found(false, List.of(), List.of());

        public Found {
            cards = List.copyOf(cards);
            problems = List.copyOf(problems);
        }

        /** Nothing of the backend on the node. */
        public static Found absent() {
            return ABSENT;
        }

        /** The node registers the backend; these cards decoded, these problems were met. */
        public static Found present(List<RegisteredCard> cards, Problems problems) {
            return new Found(true, cards, problems.list());
        }
    }
}
