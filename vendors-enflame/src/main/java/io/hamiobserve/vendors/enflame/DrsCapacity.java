package io.hamiobserve.vendors.enflame;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.vendors.protocol.Cards;
import io.hamiobserve.vendors.protocol.InputLimits;
import io.hamiobserve.vendors.protocol.Json;
import io.hamiobserve.vendors.protocol.NodeDecoder;
import io.hamiobserve.vendors.protocol.Numbers;
import io.hamiobserve.vendors.protocol.Problems;
import io.hamiobserve.vendors.protocol.SynthesisedCards;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Enflame DRS cards from {@code enflame.com/gcu-drs-capacity}:
 * {@code {"devices":[{"index":"0","minor":"0","capacity":6}],"profiles":{"1g.6gb":"0",...}}}.
 * Profile names read {@code <slices>g.<GB>gb}; HAMi gives every card the largest profile's memory
 * ({@code GB × 1024} MiB; the largest slice count where no profile names its memory), 100 percent
 * of cores, its {@code capacity} in slices as its shares, and the name
 * {@code <node>-enflame-drs-<index>} (the device's position where its index is not a number).
 */
final class DrsCapacity {
    static final String ANNOTATION = "enflame.com/gcu-drs-capacity";
    static final String TYPE = "Enflame";

    private DrsCapacity() {
    }

    static NodeDecoder.Found decode(NodeView node) {
        String value = node.annotations().get(ANNOTATION);
        if (value == null) {
            return NodeDecoder.Found.absent();
        }
        Problems problems = new Problems(ANNOTATION);
        Optional<JsonNode> parsed = SynthesisedCards.nameable(node, problems)
                ? Json.annotation(value, ANNOTATION, problems) : Optional.empty();
        if (parsed.isEmpty()) {
            return NodeDecoder.Found.present(List.of(), problems);
        }
        JsonNode root = parsed.get();
        if (!root.isObject()) {
            problems.add("bad_json", ANNOTATION + " is not a JSON object");
            return NodeDecoder.Found.present(List.of(), problems);
        }
        OptionalLong memory = largestProfileMemory(Json.field(root, "profiles"), problems);
        JsonNode devices = Json.field(root, "devices");
        if (memory.isEmpty()) {
            return NodeDecoder.Found.present(List.of(), problems);
        }
        if (devices != null && !devices.isNull() && !devices.isArray()) {
            problems.add("bad_json", "devices is not a JSON array");
            return NodeDecoder.Found.present(List.of(), problems);
        }
        List<RegisteredCard> cards = new ArrayList<>();
        int position = 0;
        for (JsonNode device : devices == null ? List.<JsonNode>of() : devices) {
            if (position == InputLimits.MAX_CARDS_PER_NODE) {
                Cards.tooMany(devices.size(), problems);
                break;
            }
            card(node.name(), device, position++, memory.getAsLong(), problems).ifPresent(cards::add);
        }
        return NodeDecoder.Found.present(Cards.distinct(cards, problems), problems);
    }

    /** MiB of the largest profile, or empty with a problem when no profile names a slice count. */
    private static OptionalLong largestProfileMemory(JsonNode profiles, Problems problems) {
        long maxSlices = 0;
        long maxGigabytes = 0;
        if (profiles != null && profiles.isObject()) {
            for (Map.Entry<String, JsonNode> profile : profiles.properties()) {
                long[] parsed = profile(profile.getKey());
                maxSlices = Math.max(maxSlices, parsed[0]);
                maxGigabytes = Math.max(maxGigabytes, parsed[1]);
            }
        }
        if (maxSlices <= 0) {
            problems.add("no_profiles", "no profile names a slice count (<slices>g.<GB>gb)");
            return OptionalLong.empty();
        }
        return Numbers.scaled(maxGigabytes > 0 ? maxGigabytes : maxSlices, 1024, 1, "largest profile memory",
                Quantities.MAX_MEMORY_MIB, problems);
    }

    /** Slices and GB of a profile name, 0 where a part does not read (as HAMi's parseProfile). */
    private static long[] profile(String name) {
        String[] parts = name.strip().toLowerCase(Locale.ROOT).split("\\.", -1);
        if (parts.length < 2) {
            return new long[] {0, 0};
        }
        OptionalLong slices = integer(stripSuffix(parts[0].strip(), "g"));
        if (slices.isEmpty()) {
            return new long[] {0, 0};
        }
        return new long[] {slices.getAsLong(), integer(stripSuffix(parts[1].strip(), "gb")).orElse(0)};
    }

    private static String stripSuffix(String text, String suffix) {
        return text.endsWith(suffix) ? text.substring(0, text.length() - suffix.length()) : text;
    }

    // Profile figures are small counts; anything that is not one does not read, as in HAMi.
    private static OptionalLong integer(String text) {
        return text.matches("[+-]?[0-9]{1,9}") ? OptionalLong.of(Long.parseLong(text)) : OptionalLong.empty();
    }

    private static Optional<RegisteredCard> card(String node, JsonNode device, int position, long memory,
                                                 Problems problems) {
        String where = "device #" + position;
        if (!device.isObject()) {
            problems.add("bad_json", where + " is not a JSON object");
            return Optional.empty();
        }
        int before = problems.size();
        long index = index(Json.field(device, "index"), position, where, problems);
        OptionalLong capacity = capacity(Json.field(device, "capacity"), where, problems);
        if (problems.size() > before) {
            return Optional.empty();
        }
        return Optional.of(new RegisteredCard(node + "-enflame-drs-" + index, (int) index, (int) capacity.orElseThrow(),
                memory, 100, TYPE, 0, CardMode.HAMI_CORE, true));
    }

    /** The device's index: a decimal string; where it is not one, HAMi uses the device's position. */
    private static long index(JsonNode index, int position, String where, Problems problems) {
        if (index == null || index.isNull()) {
            return position;
        }
        if (!index.isString()) {
            problems.add("bad_json", where + ": index is not a string");
            return 0;
        }
        String text = index.stringValue().strip();
        if (!text.matches("[+-]?[0-9]+")) {
            return position;
        }
        return Numbers.text(text, where + " index", Integer.MAX_VALUE, problems).orElse(0);
    }

    /** The device's slices, a JSON number or a decimal string, above zero. */
    private static OptionalLong capacity(JsonNode capacity, String where, Problems problems) {
        OptionalLong slices = capacity != null && capacity.isString()
                ? Numbers.text(capacity.stringValue(), where + " capacity", Integer.MAX_VALUE, problems)
                : Numbers.json(capacity, where + " capacity", Integer.MAX_VALUE, problems);
        if (slices.isPresent() && slices.getAsLong() == 0) {
            problems.add("zero_capacity", where + " has no slices");
            return OptionalLong.empty();
        }
        return slices;
    }
}
