package io.hamiobserve.adapters.k8s;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.spi.DeviceVendor;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * NVIDIA's HAMi annotations: the node register annotation {@code hami.io/node-nvidia-register}
 * and the pod allocation annotation {@code hami.io/vgpu-devices-allocated}.
 *
 * <p>The register annotation comes in two forms, both decoded: the current JSON array (one
 * object per card, every field optional) and the older {@code :}-separated records of 7 or 9
 * {@code ,}-separated fields ({@code id,count,devmem,devcore,type,numa,health[,index,mode]}).
 * Memory is in MiB, cores in percent of a card. A card that does not decode is named in the
 * problems and left out; the other cards of the node are still returned.
 */
public final class NvidiaDeviceVendor implements DeviceVendor {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Override
    public String name() {
        return "nvidia";
    }

    @Override
    public String registerAnnotation() {
        return "hami.io/node-nvidia-register";
    }

    @Override
    public String allocatedAnnotation() {
        return "hami.io/vgpu-devices-allocated";
    }

    @Override
    public Decoded<List<RegisteredCard>> decodeRegistration(String annotationValue) {
        List<Problem> problems = new ArrayList<>();
        List<RegisteredCard> cards = new ArrayList<>();
        String value = annotationValue == null ? "" : annotationValue.strip();
        if (value.isEmpty()) {
            problems.add(new Problem("empty_value", "register annotation is empty"));
        } else if (value.startsWith("[") || value.startsWith("{")) {
            decodeJson(value, cards, problems);
        } else {
            decodeLegacy(value, cards, problems);
        }
        return new Decoded<>(dropDuplicates(cards, problems), problems);
    }

    private static void decodeJson(String value, List<RegisteredCard> cards, List<Problem> problems) {
        JsonNode root;
        try {
            root = JSON.readTree(value);
        } catch (JacksonException e) {
            problems.add(new Problem("bad_json", "register annotation is not JSON: " + e.getOriginalMessage()));
            return;
        }
        if (!root.isArray()) {
            problems.add(new Problem("bad_json", "register annotation is not a JSON array"));
            return;
        }
        int position = 0;
        for (JsonNode element : root) {
            cardFromJson(element, position++, problems).ifPresent(cards::add);
        }
    }

    private static Optional<RegisteredCard> cardFromJson(JsonNode card, int position, List<Problem> problems) {
        if (!card.isObject()) {
            problems.add(new Problem("bad_json", "card #" + position + " is not a JSON object"));
            return Optional.empty();
        }
        JsonNode id = card.get("id");
        if (id == null || !id.isString() || id.stringValue().isBlank()) {
            problems.add(new Problem("missing_uuid", "card #" + position + " has no id"));
            return Optional.empty();
        }
        String uuid = id.stringValue().strip();
        String where = "card " + uuid;
        List<Problem> cardProblems = new ArrayList<>();
        long index = jsonNumber(card, "index", Integer.MAX_VALUE, where, cardProblems);
        long count = jsonNumber(card, "count", Integer.MAX_VALUE, where, cardProblems);
        long devmem = jsonNumber(card, "devmem", Long.MAX_VALUE, where, cardProblems);
        long devcore = jsonNumber(card, "devcore", Long.MAX_VALUE, where, cardProblems);
        long numa = jsonNumber(card, "numa", Integer.MAX_VALUE, where, cardProblems);
        String type = jsonText(card, "type", where, cardProblems);
        String modeText = jsonText(card, "mode", where, cardProblems);
        boolean health = false;
        JsonNode healthNode = card.get("health");
        if (healthNode != null && !healthNode.isNull()) {
            if (healthNode.isBoolean()) {
                health = healthNode.booleanValue();
            } else {
                cardProblems.add(new Problem("bad_boolean", where + ": health is not a boolean"));
            }
        }
        Optional<CardMode> mode = CardMode.fromLabel(modeText);
        if (mode.isEmpty()) {
            cardProblems.add(new Problem("unknown_mode", where + ": unknown mode '" + modeText + "'"));
        }
        if (!cardProblems.isEmpty()) {
            problems.addAll(cardProblems);
            return Optional.empty();
        }
        return Optional.of(new RegisteredCard(uuid, (int) index, (int) count, devmem, devcore, type, (int) numa,
                mode.orElseThrow(), health));
    }

    private static long jsonNumber(JsonNode card, String field, long max, String where, List<Problem> problems) {
        JsonNode node = card.get(field);
        if (node == null || node.isNull()) {
            return 0;
        }
        if (!node.isIntegralNumber()) {
            problems.add(new Problem("not_a_number", where + ": " + field + " is not an integer: " + node));
            return 0;
        }
        if (!node.canConvertToLong()) {
            problems.add(new Problem(node.toString().startsWith("-") ? "negative_number" : "number_overflow",
                    where + ": " + field + " out of range: " + node));
            return 0;
        }
        long value = node.longValue();
        if (value < 0) {
            problems.add(new Problem("negative_number", where + ": " + field + " is negative: " + value));
        } else if (value > max) {
            problems.add(new Problem("number_overflow", where + ": " + field + " exceeds " + max + ": " + value));
        }
        return value;
    }

    private static String jsonText(JsonNode card, String field, String where, List<Problem> problems) {
        JsonNode node = card.get(field);
        if (node == null || node.isNull()) {
            return "";
        }
        if (!node.isString()) {
            problems.add(new Problem("bad_json", where + ": " + field + " is not a string"));
            return "";
        }
        return node.stringValue();
    }

    private static void decodeLegacy(String value, List<RegisteredCard> cards, List<Problem> problems) {
        for (String record : value.split(":")) {
            if (record.isBlank()) {
                continue; // the writer ends every record with ':'
            }
            String[] fields = record.split(",", -1);
            if (fields.length != 7 && fields.length != 9) {
                problems.add(new Problem("wrong_field_count",
                        "record has " + fields.length + " fields, expected 7 or 9: '" + record + "'"));
                continue;
            }
            String uuid = fields[0].strip();
            if (uuid.isEmpty()) {
                problems.add(new Problem("missing_uuid", "record without id: '" + record + "'"));
                continue;
            }
            String where = "card " + uuid;
            List<Problem> cardProblems = new ArrayList<>();
            long count = legacyNumber(fields[1], where + " count", Integer.MAX_VALUE, cardProblems);
            long devmem = legacyNumber(fields[2], where + " devmem", Long.MAX_VALUE, cardProblems);
            long devcore = legacyNumber(fields[3], where + " devcore", Long.MAX_VALUE, cardProblems);
            String type = fields[4].strip();
            long numa = legacyNumber(fields[5], where + " numa", Integer.MAX_VALUE, cardProblems);
            String healthText = fields[6].strip();
            if (!healthText.equals("true") && !healthText.equals("false")) {
                cardProblems.add(new Problem("bad_boolean", where + ": health is '" + healthText + "'"));
            }
            long index = 0;
            Optional<CardMode> mode = Optional.of(CardMode.HAMI_CORE);
            if (fields.length == 9) {
                index = legacyNumber(fields[7], where + " index", Integer.MAX_VALUE, cardProblems);
                mode = CardMode.fromLabel(fields[8].strip());
                if (mode.isEmpty()) {
                    cardProblems.add(new Problem("unknown_mode", where + ": unknown mode '" + fields[8] + "'"));
                }
            }
            if (!cardProblems.isEmpty()) {
                problems.addAll(cardProblems);
                continue;
            }
            cards.add(new RegisteredCard(uuid, (int) index, (int) count, devmem, devcore, type, (int) numa,
                    mode.orElseThrow(), healthText.equals("true")));
        }
    }

    private static long legacyNumber(String text, String field, long max, List<Problem> problems) {
        Numbers.Parsed parsed = Numbers.parseNonNegative(text, field, max);
        if (!parsed.ok()) {
            problems.add(parsed.problem());
        }
        return parsed.value();
    }

    // A UUID is the card's identity in every view; two cards claiming one would be counted twice.
    private static List<RegisteredCard> dropDuplicates(List<RegisteredCard> cards, List<Problem> problems) {
        Set<String> seen = new HashSet<>();
        List<RegisteredCard> unique = new ArrayList<>(cards.size());
        for (RegisteredCard card : cards) {
            if (seen.add(card.uuid())) {
                unique.add(card);
            } else {
                problems.add(new Problem("duplicate_uuid", "card " + card.uuid() + " registered twice"));
            }
        }
        return unique;
    }
}
