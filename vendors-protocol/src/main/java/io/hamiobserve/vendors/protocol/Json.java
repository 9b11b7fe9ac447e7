package io.hamiobserve.vendors.protocol;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.Map;
import java.util.Optional;

/**
 * JSON in annotations, read as HAMi's Go code reads it into its structs: a field matches its
 * name in any case ({@code "ID"} is {@code id}), the last of several matching keys wins, and
 * unknown fields are ignored. Jackson parses; a value it refuses (bad syntax, nesting or numbers
 * beyond its stream limits) is one {@code bad_json} problem.
 */
public final class Json {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private Json() {
    }

    /** The parsed value, or a {@code bad_json} problem. */
    public static Optional<JsonNode> parse(String value, String what, Problems problems) {
        try {
            JsonNode root = MAPPER.readTree(value);
            if (root == null || root.isMissingNode()) {
                problems.add("bad_json", what + " is empty");
                return Optional.empty();
            }
            return Optional.of(root);
        } catch (JacksonException e) {
            problems.add("bad_json", what + " is not JSON: " + e.getOriginalMessage());
            return Optional.empty();
        }
    }

    /**
     * An annotation's JSON value: a {@code too_long} problem when it is longer than an API server
     * stores, a {@code bad_json} problem when it does not parse.
     */
    public static Optional<JsonNode> annotation(String value, String key, Problems problems) {
        return InputLimits.annotation(value, key, problems) ? parse(value, key, problems) : Optional.empty();
    }

    /** The field of {@code object} named {@code name} in any case (the last such key), or null. */
    public static JsonNode field(JsonNode object, String name) {
        JsonNode found = null;
        for (Map.Entry<String, JsonNode> property : object.properties()) {
            if (property.getKey().equalsIgnoreCase(name)) {
                found = property.getValue();
            }
        }
        return found;
    }

    /**
     * A string field, "" when absent or null; a problem ({@code bad_json}) when it is not a
     * string, {@code too_long} when longer than {@link InputLimits#MAX_TEXT_CHARS}.
     */
    public static String text(JsonNode object, String name, String where, Problems problems) {
        JsonNode node = field(object, name);
        if (node == null || node.isNull()) {
            return "";
        }
        if (!node.isString()) {
            problems.add("bad_json", where + ": " + name + " is not a string");
            return "";
        }
        String text = node.stringValue();
        InputLimits.length(text, InputLimits.MAX_TEXT_CHARS, name, where, problems);
        return text;
    }

    /** A boolean field, false when absent or null; a {@code bad_boolean} problem when it is not a boolean. */
    public static boolean bool(JsonNode object, String name, String where, Problems problems) {
        JsonNode node = field(object, name);
        if (node == null || node.isNull()) {
            return false;
        }
        if (!node.isBoolean()) {
            problems.add("bad_boolean", where + ": " + name + " is not a boolean");
            return false;
        }
        return node.booleanValue();
    }

    /** An integer field in {@code [0, max]}, 0 when absent or null (see {@link Numbers#json}). */
    public static long number(JsonNode object, String name, String where, long max, Problems problems) {
        return Numbers.json(field(object, name), where + " " + name, max, problems).orElse(0);
    }
}
