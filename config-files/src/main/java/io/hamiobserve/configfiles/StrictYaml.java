package io.hamiobserve.configfiles;

import org.snakeyaml.engine.v2.api.LoadSettings;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLFactory;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLParser;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static io.hamiobserve.configfiles.OperatorFile.oneLine;

/**
 * A configuration file in YAML, read strictly: duplicate keys refused (YAML says a key is unique;
 * a second one silently winning would hide a mistake), aliases refused (Jackson reads {@code *name}
 * as the string {@code name}, not as the anchored value: something the author did not write), and
 * nesting bounded far below Jackson's default of 500 (a config is a few levels deep). Every failure
 * is an {@link IllegalArgumentException} whose message starts with the file's name.
 */
public final class StrictYaml {
    /** Whether the parser's own words may be quoted: they can hold the text it met, a secret perhaps. */
    public enum ParserMessage { QUOTED, WITHHELD }

    private static final int MAX_CODE_POINTS = 1 << 20;
    private static final YAMLMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
                    .loadSettings(LoadSettings.builder().setCodePointLimit(MAX_CODE_POINTS).build())
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(8).build())
                    .build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private StrictYaml() {
    }

    /** The document's root, or empty for an empty document (or one that is only {@code null}). */
    public static Optional<JsonNode> root(byte[] bytes, String name, ParserMessage parserMessage) {
        try {
            refuseAliases(bytes, name);
            JsonNode root = YAML.readTree(bytes);
            return root == null || root.isMissingNode() || root.isNull() ? Optional.empty() : Optional.of(root);
        } catch (JacksonException notYaml) {
            String line = notYaml.getLocation() == null || notYaml.getLocation().getLineNr() < 1 ? ""
                    : " at line " + notYaml.getLocation().getLineNr();
            throw new IllegalArgumentException(name + ": not valid YAML" + line
                    + (parserMessage == ParserMessage.QUOTED ? ": " + oneLine(notYaml.getOriginalMessage()) : ""));
        }
    }

    /**
     * The fields of a mapping node, in the file's order. A key outside {@code allowed} (null admits
     * any) is refused, not ignored: a setting this program lacks must never go silently unenforced.
     * {@code what} names the mapping in messages ("tls_config"); {@code keyNoun} what its keys are
     * called there ("key", "section").
     */
    public static Map<String, JsonNode> mapping(JsonNode node, String what, String keyNoun, Set<String> allowed,
                                                String name) {
        if (!node.isObject()) {
            throw new IllegalArgumentException(name + ": " + what + " must be a mapping of keys to values");
        }
        Map<String, JsonNode> fields = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            if (allowed != null && !allowed.contains(field.getKey())) {
                throw new IllegalArgumentException(name + ": unsupported " + keyNoun + " " + oneLine(field.getKey())
                        + " (supported: " + String.join(", ", new TreeSet<>(allowed)) + ")");
            }
            fields.put(field.getKey(), field.getValue());
        }
        return fields;
    }

    /** Whether a field is given: present and not YAML's {@code null}. */
    public static boolean present(JsonNode node) {
        return node != null && !node.isNull();
    }

    private static void refuseAliases(byte[] bytes, String name) {
        try (YAMLParser parser = (YAMLParser) YAML.createParser(bytes)) {
            while (parser.nextToken() != null) {
                if (parser.isCurrentAlias()) {
                    throw new IllegalArgumentException(name + ": YAML aliases are not supported (at line "
                            + parser.currentLocation().getLineNr() + ")");
                }
            }
        }
    }
}
