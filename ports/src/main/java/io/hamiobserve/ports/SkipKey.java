package io.hamiobserve.ports;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Which count a skipped input goes to: the labels of {@code hami_observe_skipped_inputs_total}.
 * Each adapter names its source, the kinds of input it reads and its reasons as enums of its own
 * ({@link Label}) or as constants, and builds its keys from them; the parts are checked here once,
 * so a key is always a short lower-case word per label and can never carry text read from an input.
 *
 * @param source the reporting source, e.g. {@code cachefile}, {@code kubernetes}, {@code nvml}
 * @param kind   what was skipped, e.g. {@code file}, {@code node_annotation}, {@code device}
 * @param reason a short, stable reason, e.g. {@code bad_magic}, {@code wrong_field_count}
 */
public record SkipKey(String source, String kind, String reason) {
    private static final Pattern WORD = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    public SkipKey {
        checkWord("source", source);
        checkWord("kind", kind);
        checkWord("reason", reason);
    }

    /** A key from an adapter's enums: each constant's label is its lower-case name. */
    public static SkipKey of(String source, Label kind, Label reason) {
        return new SkipKey(source, kind.label(), reason.label());
    }

    /** The same source and kind, for another reason. */
    public SkipKey because(String otherReason) {
        return new SkipKey(source, kind, otherReason);
    }

    /**
     * Checks that {@code value} can be one part of a key: a lower-case word of letters, digits and
     * underscores, at most 64 characters, starting with a letter. Returns it.
     */
    public static String checkWord(String part, String value) {
        if (value == null || !WORD.matcher(value).matches()) {
            throw new IllegalArgumentException("a skip " + part + " is a lower-case word of at most 64 characters ("
                    + WORD.pattern() + "), not " + (value == null ? "null" : "'" + SkipReporter.loggable(value) + "'"));
        }
        return value;
    }

    /** A part of a key declared as an enum constant: its label is its name in lower case. */
    public interface Label {
        String name();

        default String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
