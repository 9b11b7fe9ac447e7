package io.hamiobserve.adapters.k8s;

import io.hamiobserve.adapters.k8s.Skips.Reason;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.Quantities;
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
 * Memory is in MiB, cores in percent of a card, each bounded as {@link Quantities} says. A card
 * that does not decode is named in the problems and left out; the other cards of the node are
 * still returned. At most {@link InputLimits#MAX_CARDS_PER_NODE} cards are read.
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
        Optional<Problem> tooLong = InputLimits.annotation("register annotation", value);
        if (tooLong.isPresent()) {
            problems.add(tooLong.get());
        } else if (value.isEmpty()) {
            problems.add(Reason.EMPTY_VALUE.problem("register annotation is empty"));
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
            problems.add(Reason.BAD_JSON.problem("register annotation is not JSON: " + e.getOriginalMessage()));
            return;
        }
        if (!root.isArray()) {
            problems.add(Reason.BAD_JSON.problem("register annotation is not a JSON array"));
            return;
        }
        int position = 0;
        for (JsonNode element : root) {
            if (position == InputLimits.MAX_CARDS_PER_NODE) {
                problems.add(tooManyCards(root.size()));
                break;
            }
            cardFromJson(element, position++, problems).ifPresent(cards::add);
        }
    }

    private static Problem tooManyCards(int listed) {
        return Reason.TOO_MANY_CARDS.problem(listed + " cards registered; the first "
                + InputLimits.MAX_CARDS_PER_NODE + " are read");
    }

    private static Optional<RegisteredCard> cardFromJson(JsonNode card, int position, List<Problem> problems) {
        if (!card.isObject()) {
            problems.add(Reason.BAD_JSON.problem("card #" + position + " is not a JSON object"));
            return Optional.empty();
        }
        JsonNode id = card.get("id");
        if (id == null || !id.isString() || id.stringValue().isBlank()) {
            problems.add(Reason.MISSING_UUID.problem("card #" + position + " has no id"));
            return Optional.empty();
        }
        String uuid = id.stringValue().strip();
        String where = "card #" + position;
        List<Problem> cardProblems = new ArrayList<>();
        InputLimits.uuid(uuid, where).ifPresent(cardProblems::add);
        where = cardProblems.isEmpty() ? "card " + uuid : where;
        long index = number(card.get("index"), where + " index", Integer.MAX_VALUE, cardProblems);
        long count = number(card.get("count"), where + " count", Integer.MAX_VALUE, cardProblems);
        long devmem = number(card.get("devmem"), where + " devmem", Quantities.MAX_MEMORY_MIB, cardProblems);
        long devcore = number(card.get("devcore"), where + " devcore", Quantities.MAX_PERCENT, cardProblems);
        long numa = number(card.get("numa"), where + " numa", Integer.MAX_VALUE, cardProblems);
        String type = jsonText(card, "type", where, cardProblems);
        String modeText = jsonText(card, "mode", where, cardProblems);
        boolean health = false;
        JsonNode healthNode = card.get("health");
        if (healthNode != null && !healthNode.isNull()) {
            if (healthNode.isBoolean()) {
                health = healthNode.booleanValue();
            } else {
                cardProblems.add(Reason.BAD_BOOLEAN.problem(where + ": health is not a boolean"));
            }
        }
        Optional<CardMode> mode = mode(modeText, where, cardProblems);
        if (!cardProblems.isEmpty()) {
            problems.addAll(cardProblems);
            return Optional.empty();
        }
        return Optional.of(new RegisteredCard(uuid, (int) index, (int) count, devmem, devcore, type, (int) numa,
                mode.orElseThrow(), health));
    }

    private static long number(JsonNode node, String field, long max, List<Problem> problems) {
        Numbers.Parsed parsed = Numbers.fromJson(node, field, max);
        if (!parsed.ok()) {
            problems.add(parsed.problem());
        }
        return parsed.value();
    }

    private static String jsonText(JsonNode card, String field, String where, List<Problem> problems) {
        JsonNode node = card.get(field);
        if (node == null || node.isNull()) {
            return "";
        }
        if (!node.isString()) {
            problems.add(Reason.BAD_JSON.problem(where + ": " + field + " is not a string"));
            return "";
        }
        String text = node.stringValue();
        InputLimits.length(text, InputLimits.MAX_TEXT_CHARS, field, where).ifPresent(problems::add);
        return text;
    }

    private static Optional<CardMode> mode(String text, String where, List<Problem> problems) {
        Optional<CardMode> mode = CardMode.fromLabel(text);
        if (mode.isEmpty()) {
            problems.add(Reason.UNKNOWN_MODE.problem(where + ": unknown mode '" + text + "'"));
        }
        return mode;
    }

    private static void decodeLegacy(String value, List<RegisteredCard> cards, List<Problem> problems) {
        String[] records = value.split(":");
        int read = 0;
        for (String record : records) {
            if (record.isBlank()) {
                continue; // the writer ends every record with ':'
            }
            if (read++ == InputLimits.MAX_CARDS_PER_NODE) {
                problems.add(tooManyCards(records.length));
                break;
            }
            String[] fields = record.split(",", -1);
            if (fields.length != 7 && fields.length != 9) {
                problems.add(Reason.WRONG_FIELD_COUNT.problem(
                        "record has " + fields.length + " fields, expected 7 or 9: '" + record + "'"));
                continue;
            }
            String uuid = fields[0].strip();
            if (uuid.isEmpty()) {
                problems.add(Reason.MISSING_UUID.problem("record without id: '" + record + "'"));
                continue;
            }
            List<Problem> cardProblems = new ArrayList<>();
            InputLimits.uuid(uuid, "record").ifPresent(cardProblems::add);
            String where = cardProblems.isEmpty() ? "card " + uuid : "record";
            long count = legacyNumber(fields[1], where + " count", Integer.MAX_VALUE, cardProblems);
            long devmem = legacyNumber(fields[2], where + " devmem", Quantities.MAX_MEMORY_MIB, cardProblems);
            long devcore = legacyNumber(fields[3], where + " devcore", Quantities.MAX_PERCENT, cardProblems);
            String type = fields[4].strip();
            InputLimits.length(type, InputLimits.MAX_TEXT_CHARS, "type", where).ifPresent(cardProblems::add);
            long numa = legacyNumber(fields[5], where + " numa", Integer.MAX_VALUE, cardProblems);
            String healthText = fields[6].strip();
            if (!healthText.equals("true") && !healthText.equals("false")) {
                cardProblems.add(Reason.BAD_BOOLEAN.problem(where + ": health is '" + healthText + "'"));
            }
            long index = 0;
            Optional<CardMode> mode = Optional.of(CardMode.HAMI_CORE);
            if (fields.length == 9) {
                index = legacyNumber(fields[7], where + " index", Integer.MAX_VALUE, cardProblems);
                mode = mode(fields[8].strip(), where, cardProblems);
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
                problems.add(Reason.DUPLICATE_UUID.problem("card " + card.uuid() + " registered twice"));
            }
        }
        return unique;
    }
}
