package io.hamiobserve.vendors.protocol;

import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.ports.spi.PodAllocation;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * One of HAMi's device backends (what HAMi's scheduler keys by {@code CommonWord}): how a node's
 * cards of it are found, what their figures mean, and the pod annotation that holds their
 * allocations ({@code SupportDevices}, the "allocated" key: the only one the scheduler reads
 * back). Built with {@link #named}.
 */
public final class Backend {
    private final String commonWord;
    private final String source;
    private final NodeDecoder nodeDecoder;
    private final UnaryOperator<RegisteredCard> adjust;
    private final Function<NodeView, DeviceUnits> units;
    private final String allocatedKey;
    private final int maxIdChars;
    private final Set<String> nodeAnnotations;
    private final Set<String> nodeResources;

    private Backend(Builder builder) {
        this.commonWord = builder.commonWord;
        this.source = builder.source;
        this.nodeDecoder = Objects.requireNonNull(builder.nodeDecoder, "how the backend's cards are found");
        this.adjust = builder.adjust;
        this.units = builder.units;
        this.allocatedKey = Objects.requireNonNull(builder.allocatedKey, "the backend's allocated key");
        this.maxIdChars = builder.maxIdChars;
        this.nodeAnnotations = Set.copyOf(builder.nodeAnnotations);
        this.nodeResources = Set.copyOf(builder.nodeResources);
    }

    /** A backend with HAMi's name for it, e.g. {@code DCU}, {@code Ascend910B3}. */
    public static Builder named(String commonWord) {
        return new Builder(commonWord);
    }

    String allocatedKey() {
        return allocatedKey;
    }

    /** The annotation or resource whose value names the backend's cards on a node. */
    String source() {
        return source;
    }

    Set<String> nodeAnnotations() {
        return nodeAnnotations;
    }

    Set<String> nodeResources() {
        return nodeResources;
    }

    /** The node's cards of this backend. */
    NodeDevices decodeNode(NodeView node) {
        NodeDecoder.Found found = nodeDecoder.decode(node);
        if (!found.present() && found.problems().isEmpty()) {
            return NodeDevices.absent();
        }
        DeviceUnits cardUnits = units.apply(node);
        List<VendorCard> cards = new ArrayList<>(found.cards().size());
        for (RegisteredCard card : found.cards()) {
            cards.add(new VendorCard(adjust.apply(card), commonWord, cardUnits));
        }
        return new NodeDevices(found.present(), cards, found.problems());
    }

    /** The pod's allocation of this backend, when it carries the allocated key. */
    Optional<PodAllocation> decodePod(String value, Problems problems) {
        if (value == null) {
            return Optional.empty();
        }
        List<List<DeviceShare>> containers = AllocationFormat.decode(value, maxIdChars, problems);
        return Optional.of(new PodAllocation(allocatedKey, commonWord, containers));
    }

    /** Builds a {@link Backend}: where its cards come from, then its allocated key. */
    public static final class Builder {
        private final String commonWord;
        private String source;
        private NodeDecoder nodeDecoder;
        private UnaryOperator<RegisteredCard> adjust = UnaryOperator.identity();
        private Function<NodeView, DeviceUnits> units = node -> DeviceUnits.MIB_AND_PERCENT;
        private String allocatedKey;
        private int maxIdChars = InputLimits.MAX_UUID_CHARS;
        private final Set<String> nodeAnnotations = new LinkedHashSet<>();
        private final Set<String> nodeResources = new LinkedHashSet<>();

        private Builder(String commonWord) {
            this.commonWord = Objects.requireNonNull(commonWord, "commonWord");
        }

        /** Cards registered in annotation {@code key} in one of HAMi's shared formats. */
        public Builder registeredBy(String key, RegisterFormat format, ModeField modes) {
            return decodedBy(key, node -> {
                String value = node.annotations().get(key);
                if (value == null) {
                    return NodeDecoder.Found.absent();
                }
                Problems problems = new Problems(key);
                return NodeDecoder.Found.present(format.decode(value, modes, problems), problems);
            });
        }

        /** Cards registered in annotation {@code key} in the vendor's own format, read by {@code decoder}. */
        public Builder decodedBy(String key, NodeDecoder decoder) {
            nodeAnnotations.add(key);
            this.source = key;
            this.nodeDecoder = decoder;
            return this;
        }

        /**
         * Cards HAMi builds from the node's {@code countResource} (see {@link SynthesisedCards#from}),
         * named after the node; {@code otherResources} are the further resources {@code maker} reads.
         */
        public Builder synthesisedFrom(String countResource, SynthesisedCards.Maker maker, Set<String> otherResources) {
            nodeResources.add(countResource);
            nodeResources.addAll(otherResources);
            this.source = countResource;
            this.nodeDecoder = SynthesisedCards.from(countResource, maker);
            return namedAfterNode();
        }

        /**
         * The cards' identities are built from the node's name, so allocations name them with up to
         * {@link InputLimits#MAX_SYNTHESISED_ID_CHARS} characters.
         */
        public Builder namedAfterNode() {
            maxIdChars = InputLimits.MAX_SYNTHESISED_ID_CHARS;
            return this;
        }

        /** Wraps how cards are found (e.g. a health rule over the decoder set so far), reading more resources. */
        public Builder guardedBy(UnaryOperator<NodeDecoder> guard, Set<String> resources) {
            nodeResources.addAll(resources);
            this.nodeDecoder = guard.apply(Objects.requireNonNull(nodeDecoder, "set how cards are found first"));
            return this;
        }

        /** What HAMi changes on every card after decoding (e.g. cores forced to 100). */
        public Builder adjusted(UnaryOperator<RegisteredCard> adjust) {
            this.adjust = adjust;
            return this;
        }

        /** What the cards' figures mean (default: MiB and percent). */
        public Builder units(DeviceUnits units) {
            this.units = node -> units;
            return this;
        }

        /** What the cards' figures mean, as the node's annotations say (declare the ones read). */
        public Builder units(Function<NodeView, DeviceUnits> units, Set<String> annotations) {
            nodeAnnotations.addAll(annotations);
            this.units = units;
            return this;
        }

        /** The pod annotation HAMi writes the backend's allocations to and reads them back from. */
        public Builder allocatedBy(String key) {
            this.allocatedKey = key;
            return this;
        }

        public Backend build() {
            return new Backend(this);
        }
    }
}
