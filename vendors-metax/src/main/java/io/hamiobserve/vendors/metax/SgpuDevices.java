package io.hamiobserve.vendors.metax;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.vendors.protocol.Cards;
import io.hamiobserve.vendors.protocol.InputLimits;
import io.hamiobserve.vendors.protocol.Json;
import io.hamiobserve.vendors.protocol.NodeDecoder;
import io.hamiobserve.vendors.protocol.Problems;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * MetaX sGPU cards from {@code metax-tech.com/node-gpu-devices}: a JSON array of the plugin's
 * {@code MetaxSDeviceInfo} ({@code uuid}, {@code totalDevCount}, {@code totalCompute},
 * {@code totalVRam}, {@code numa}, {@code healthy}, and fields used only for scoring). HAMi maps
 * each to a card: its position is its index, the type is always {@code Metax-SGPU} (the plugin's
 * {@code model} is not), {@code totalDevCount} the shares, {@code totalVRam} MiB,
 * {@code totalCompute} percent.
 */
final class SgpuDevices {
    static final String ANNOTATION = "metax-tech.com/node-gpu-devices";
    static final String TYPE = "Metax-SGPU";

    private SgpuDevices() {
    }

    static NodeDecoder.Found decode(NodeView node) {
        String value = node.annotations().get(ANNOTATION);
        if (value == null) {
            return NodeDecoder.Found.absent();
        }
        Problems problems = new Problems(ANNOTATION);
        List<RegisteredCard> cards = new ArrayList<>();
        Optional<JsonNode> parsed = Json.annotation(value, ANNOTATION, problems);
        if (parsed.isPresent() && !parsed.get().isArray()) {
            problems.add("bad_json", ANNOTATION + " is not a JSON array");
        } else if (parsed.isPresent()) {
            int position = 0;
            for (JsonNode device : parsed.get()) {
                if (position == InputLimits.MAX_CARDS_PER_NODE) {
                    Cards.tooMany(parsed.get().size(), problems);
                    break;
                }
                card(device, position++, problems).ifPresent(cards::add);
            }
        }
        return NodeDecoder.Found.present(Cards.distinct(cards, problems), problems);
    }

    private static Optional<RegisteredCard> card(JsonNode device, int position, Problems problems) {
        String where = "sGPU #" + position;
        if (!device.isObject()) {
            problems.add("bad_json", where + " is not a JSON object");
            return Optional.empty();
        }
        JsonNode id = Json.field(device, "uuid");
        if (id == null || !id.isString() || id.stringValue().isBlank()) {
            problems.add("missing_uuid", where + " has no uuid");
            return Optional.empty();
        }
        String uuid = id.stringValue().strip();
        int before = problems.size();
        if (InputLimits.uuid(uuid, InputLimits.MAX_UUID_CHARS, where, problems)) {
            where = "sGPU " + uuid;
        }
        long shares = Json.number(device, "totalDevCount", where, Integer.MAX_VALUE, problems);
        long compute = Json.number(device, "totalCompute", where, Quantities.MAX_PERCENT, problems);
        long memory = Json.number(device, "totalVRam", where, Quantities.MAX_MEMORY_MIB, problems);
        long numa = Json.number(device, "numa", where, Integer.MAX_VALUE, problems);
        boolean healthy = Json.bool(device, "healthy", where, problems);
        if (problems.size() > before) {
            return Optional.empty();
        }
        return Optional.of(new RegisteredCard(uuid, position, (int) shares, memory, compute, TYPE, (int) numa,
                CardMode.HAMI_CORE, healthy));
    }
}
