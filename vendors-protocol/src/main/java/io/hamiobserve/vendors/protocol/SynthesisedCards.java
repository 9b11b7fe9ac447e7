package io.hamiobserve.vendors.protocol;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.spi.NodeView;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.IntUnaryOperator;

/**
 * Cards that HAMi builds from a node's {@code status.capacity} instead of reading a register
 * annotation (Cambricon, Moore Threads, MetaX and Enflame whole cards, Kunlunxin XPU, AWS
 * Neuron): one count resource says whether and how many, and each card is named after the node,
 * {@code <node>-<vendor>-<i>}.
 */
public final class SynthesisedCards {
    private SynthesisedCards() {
    }

    /** The cards of a node whose count resource is above zero. */
    @FunctionalInterface
    public interface Maker {
        /**
         * @param node     the node (its name checked: 1 to 253 characters)
         * @param quantity the count resource's whole value, above zero
         * @param problems where to note what was left out (under the count resource; use
         *                 {@link Problems#about} for another resource)
         */
        List<RegisteredCard> cards(NodeView node, long quantity, Problems problems);
    }

    /**
     * A decoder that finds the node's {@code countResource}, absent when the node has none (or 0,
     * which is how a device plugin withdraws), and otherwise makes the cards. A count that is not
     * a whole number registers the backend with no cards, as HAMi's {@code AsInt64} check does.
     */
    public static NodeDecoder from(String countResource, Maker maker) {
        return node -> {
            Problems problems = new Problems(countResource);
            String text = node.capacity().get(countResource);
            if (text == null) {
                return NodeDecoder.Found.absent();
            }
            OptionalLong quantity = ResourceQuantity.whole(text, "capacity " + countResource, Long.MAX_VALUE, problems);
            if (quantity.isPresent() && quantity.getAsLong() == 0) {
                return NodeDecoder.Found.absent();
            }
            if (quantity.isEmpty() || !nameable(node, problems)) {
                return NodeDecoder.Found.present(List.of(), problems);
            }
            return NodeDecoder.Found.present(maker.cards(node, quantity.getAsLong(), problems), problems);
        };
    }

    /**
     * What every card HAMi builds on a node has alike.
     *
     * @param maxShares how many containers may share a card
     * @param memory    its memory figure, in the backend's raw unit
     * @param cores     its core figure, in the backend's raw unit
     * @param type      its type, HAMi's constant for the backend
     */
    public record Shape(int maxShares, long memory, long cores, String type) {
    }

    /** {@code count} cards of one shape named {@code <node><infix><i>}, index {@code i}, NUMA node 0. */
    public static List<RegisteredCard> alike(NodeView node, String infix, int count, Shape shape) {
        return alike(node, infix, count, shape, index -> 0);
    }

    /** {@code count} cards of one shape named {@code <node><infix><i>}, index {@code i}, on NUMA node {@code numa(i)}. */
    public static List<RegisteredCard> alike(NodeView node, String infix, int count, Shape shape, IntUnaryOperator numa) {
        List<RegisteredCard> cards = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            cards.add(new RegisteredCard(node.name() + infix + i, i, shape.maxShares(), shape.memory(), shape.cores(),
                    shape.type(), numa.applyAsInt(i), CardMode.HAMI_CORE, true));
        }
        return cards;
    }

    /** {@code wanted} cards, cut to {@link InputLimits#MAX_CARDS_PER_NODE} with a problem. */
    public static int count(long wanted, Problems problems) {
        if (wanted > InputLimits.MAX_CARDS_PER_NODE) {
            Cards.tooMany(wanted, problems);
            return InputLimits.MAX_CARDS_PER_NODE;
        }
        return (int) wanted;
    }

    /** {@code ceil(quantity / perCard)} cards (HAMi adds cards while {@code i * perCard < quantity}). */
    public static int count(long quantity, long perCard, Problems problems) {
        return count(quantity / perCard + (quantity % perCard == 0 ? 0 : 1), problems);
    }

    /**
     * Whether cards can be named after the node: a name of 1 to 253 printable ASCII characters
     * without spaces (every real node name is); a problem otherwise.
     */
    public static boolean nameable(NodeView node, Problems problems) {
        if (node.name().isBlank()) {
            problems.add("missing_identity", "node without name: its cards cannot be named");
            return false;
        }
        if (!InputLimits.length(node.name(), InputLimits.MAX_NAME_CHARS, "name", "node", problems)) {
            return false;
        }
        // The name becomes part of each card's identity, which must be printable ASCII without spaces.
        return InputLimits.uuid(node.name(), InputLimits.MAX_NAME_CHARS, "node name", problems);
    }
}
