package io.hamiobserve.vendors.protocol;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.domain.RegisteredCard;
import tools.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The two shapes of HAMi's node register annotation ({@code pkg/device/devices.go}), read into
 * cards. Memory is in the vendor's raw unit (MiB for most), cores in its raw unit (percent for
 * most), each bounded as {@link Quantities} says; a card that does not decode is named in the
 * problems and left out, and the node's other cards are still returned. At most
 * {@link InputLimits#MAX_CARDS_PER_NODE} cards are read, UUIDs distinct.
 */
public enum RegisterFormat {
    /**
     * {@code :}-separated records of 7 or 9 {@code ,}-separated fields,
     * {@code id,count,devmem,devcore,type,numa,health[,index,mode]} ({@code DecodeNodeDevices}).
     * A 7-field record has index 0 and HAMi's default mode: every card of such a node reports
     * {@code device_index="0"}. Hygon and Iluvatar register this way (and old NVIDIA plugins).
     */
    LEGACY,
    /**
     * A JSON array of HAMi's {@code DeviceInfo} ({@code id}, {@code index}, {@code count},
     * {@code devmem}, {@code devcore}, {@code type}, {@code numa}, {@code mode}, {@code health};
     * every field optional; keys in any case; unknown keys ignored). NVIDIA, Ascend, AMD,
     * Kunlunxin vXPU, Vastai and Biren register this way.
     */
    DEVICE_INFO_JSON,
    /** NVIDIA's plugins have written both: JSON when the value starts with {@code [} or {@code {}. */
    LEGACY_OR_JSON;

    /** The cards of a register annotation's value. */
    public List<RegisteredCard> decode(String annotationValue, ModeField modes, Problems problems) {
        List<RegisteredCard> cards = new ArrayList<>();
        String value = annotationValue == null ? "" : annotationValue.strip();
        if (!InputLimits.annotation(value, "register annotation", problems)) {
            return cards;
        }
        if (value.isEmpty()) {
            problems.add("empty_value", "register annotation is empty");
            return cards;
        }
        boolean json = switch (this) {
            case LEGACY -> false;
            case DEVICE_INFO_JSON -> true;
            case LEGACY_OR_JSON -> value.startsWith("[") || value.startsWith("{");
        };
        if (json) {
            decodeJson(value, modes, cards, problems);
        } else {
            decodeLegacy(value, modes, cards, problems);
        }
        return Cards.distinct(cards, problems);
    }

    private static void decodeJson(String value, ModeField modes, List<RegisteredCard> cards, Problems problems) {
        Optional<JsonNode> parsed = Json.parse(value, "register annotation", problems);
        if (parsed.isEmpty()) {
            return;
        }
        JsonNode root = parsed.get();
        if (!root.isArray()) {
            problems.add("bad_json", "register annotation is not a JSON array");
            return;
        }
        int position = 0;
        for (JsonNode element : root) {
            if (position == InputLimits.MAX_CARDS_PER_NODE) {
                Cards.tooMany(root.size(), problems);
                break;
            }
            cardFromJson(element, position++, modes, problems).ifPresent(cards::add);
        }
    }

    private static Optional<RegisteredCard> cardFromJson(JsonNode card, int position, ModeField modes,
                                                         Problems problems) {
        if (!card.isObject()) {
            problems.add("bad_json", "card #" + position + " is not a JSON object");
            return Optional.empty();
        }
        JsonNode id = Json.field(card, "id");
        if (id == null || !id.isString() || id.stringValue().isBlank()) {
            problems.add("missing_uuid", "card #" + position + " has no id");
            return Optional.empty();
        }
        String uuid = id.stringValue().strip();
        int before = problems.size();
        String where = InputLimits.uuid(uuid, InputLimits.MAX_UUID_CHARS, "card #" + position, problems)
                ? "card " + uuid : "card #" + position;
        long index = Json.number(card, "index", where, Integer.MAX_VALUE, problems);
        long count = Json.number(card, "count", where, Integer.MAX_VALUE, problems);
        long devmem = Json.number(card, "devmem", where, Quantities.MAX_MEMORY_MIB, problems);
        long devcore = Json.number(card, "devcore", where, Quantities.MAX_PERCENT, problems);
        long numa = Json.number(card, "numa", where, Integer.MAX_VALUE, problems);
        String type = Json.text(card, "type", where, problems);
        String modeText = Json.text(card, "mode", where, problems);
        boolean health = Json.bool(card, "health", where, problems);
        Optional<CardMode> mode = modes.read(modeText, where, problems);
        if (problems.size() > before) {
            return Optional.empty();
        }
        return Optional.of(new RegisteredCard(uuid, (int) index, (int) count, devmem, devcore, type, (int) numa,
                mode.orElseThrow(), health));
    }

    private static void decodeLegacy(String value, ModeField modes, List<RegisteredCard> cards, Problems problems) {
        String[] records = value.split(":");
        int read = 0;
        for (String record : records) {
            if (record.isBlank()) {
                continue; // the writer ends every record with ':'
            }
            if (read++ == InputLimits.MAX_CARDS_PER_NODE) {
                Cards.tooMany(records.length, problems);
                break;
            }
            legacyCard(record, modes, problems).ifPresent(cards::add);
        }
    }

    private static Optional<RegisteredCard> legacyCard(String record, ModeField modes, Problems problems) {
        String[] fields = record.split(",", -1);
        if (fields.length != 7 && fields.length != 9) {
            problems.add("wrong_field_count", "record has " + fields.length + " fields, expected 7 or 9: '"
                    + record + "'");
            return Optional.empty();
        }
        String uuid = fields[0].strip();
        if (uuid.isEmpty()) {
            problems.add("missing_uuid", "record without id: '" + record + "'");
            return Optional.empty();
        }
        int before = problems.size();
        String where = InputLimits.uuid(uuid, InputLimits.MAX_UUID_CHARS, "record", problems)
                ? "card " + uuid : "record";
        OptionalLong count = Numbers.text(fields[1], where + " count", Integer.MAX_VALUE, problems);
        OptionalLong devmem = Numbers.text(fields[2], where + " devmem", Quantities.MAX_MEMORY_MIB, problems);
        OptionalLong devcore = Numbers.text(fields[3], where + " devcore", Quantities.MAX_PERCENT, problems);
        String type = fields[4].strip();
        InputLimits.length(type, InputLimits.MAX_TEXT_CHARS, "type", where, problems);
        OptionalLong numa = Numbers.text(fields[5], where + " numa", Integer.MAX_VALUE, problems);
        String health = fields[6].strip();
        if (!health.equals("true") && !health.equals("false")) {
            problems.add("bad_boolean", where + ": health is '" + health + "'");
        }
        OptionalLong index = OptionalLong.of(0);
        Optional<CardMode> mode = Optional.of(CardMode.HAMI_CORE);
        if (fields.length == 9) {
            index = Numbers.text(fields[7], where + " index", Integer.MAX_VALUE, problems);
            mode = modes.read(fields[8].strip(), where, problems);
        }
        if (problems.size() > before) {
            return Optional.empty();
        }
        return Optional.of(new RegisteredCard(uuid, (int) index.orElseThrow(), (int) count.orElseThrow(),
                devmem.orElseThrow(), devcore.orElseThrow(), type, (int) numa.orElseThrow(), mode.orElseThrow(),
                health.equals("true")));
    }
}
