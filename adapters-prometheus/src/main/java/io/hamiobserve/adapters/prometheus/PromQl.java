package io.hamiobserve.adapters.prometheus;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Named PromQL templates and the only way values get into them. A placeholder {@code ${name}}
 * takes a label value (written as a double-quoted PromQL string, every character that could end
 * or bend the string escaped), label matchers built of such values, a duration (whole seconds,
 * {@code 3600s}) or a number. Nothing from
 * a request ever becomes PromQL in any other way: the browser names a card, a node or a workload,
 * never an expression.
 */
final class PromQl {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([a-zA-Z]+)}");

    private PromQl() {
    }

    /**
     * A query template.
     *
     * @param name a stable name, shown next to each figure and used in errors
     * @param text PromQL with {@code ${placeholders}}
     */
    record Template(String name, String text) {
        Template {
            Objects.requireNonNull(name);
            Objects.requireNonNull(text);
        }

        /** The query with no placeholders. */
        Query plain() {
            return bind(Map.of());
        }

        Query bind(String key, Object value) {
            return bind(Map.of(key, value));
        }

        Query bind(String key1, Object value1, String key2, Object value2) {
            Map<String, Object> values = new LinkedHashMap<>();
            values.put(key1, value1);
            values.put(key2, value2);
            return bind(values);
        }

        /** Fills every placeholder; throws when one is left or a value is not a string, duration or number. */
        Query bind(Map<String, ?> values) {
            Matcher matcher = PLACEHOLDER.matcher(text);
            StringBuilder out = new StringBuilder();
            while (matcher.find()) {
                String key = matcher.group(1);
                if (!values.containsKey(key)) {
                    throw new IllegalArgumentException("template " + name + " needs a value for " + key);
                }
                matcher.appendReplacement(out, Matcher.quoteReplacement(literal(values.get(key))));
            }
            matcher.appendTail(out);
            return new Query(name, out.toString());
        }
    }

    /**
     * A label name put into a {@code by (...)} list (the cluster label, named by a flag): checked to
     * be a label name, written as it is.
     */
    record Label(String name) {
        Label {
            if (!name.matches("[a-zA-Z_][a-zA-Z0-9_]*")) {
                throw new IllegalArgumentException("not a label name: " + name);
            }
        }
    }

    /** A query ready to send: its template's name and the full expression. */
    record Query(String name, String expression) {
    }

    /**
     * Label matchers for a selector's braces ({@code node="a", device_uuid="b"}): label names from
     * the code only (checked), values quoted like every other label value. Empty selects all.
     */
    record Matchers(java.util.Map<String, String> labels) {
        static final Matchers NONE = new Matchers(java.util.Map.of());

        Matchers {
            labels = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(labels));
            for (String name : labels.keySet()) {
                if (!name.matches("[a-zA-Z_][a-zA-Z0-9_]*")) {
                    throw new IllegalArgumentException("not a label name: " + name);
                }
            }
        }

        static Matchers of(String... namesAndValues) {
            java.util.Map<String, String> labels = new java.util.LinkedHashMap<>();
            for (int i = 0; i < namesAndValues.length; i += 2) {
                labels.put(namesAndValues[i], namesAndValues[i + 1]);
            }
            return new Matchers(labels);
        }

        String render() {
            StringBuilder out = new StringBuilder();
            labels.forEach((name, value) -> out.append(out.isEmpty() ? "" : ", ").append(name).append('=')
                    .append(quote(value)));
            return out.toString();
        }
    }

    /**
     * {@code expression} with {@code matcher} on every series it reads: every selector written
     * with braces (a vendor exporter's {@code npu_chip_info_utilization{}}, {@code up{}}) gains it
     * inside them, and a bare selector of a hami-observe, HAMi or recorded series ({@code …hami_…})
     * or of a DCGM field ({@code DCGM_…}) braces holding it; a bare name is otherwise a function,
     * keyword or label to this scan. The query templates name no other series bare
     * (QueryTemplateSeriesTest), so no read escapes the matcher. Quoted strings, label lists and
     * durations are left as they are; the value is quoted like every other label value.
     *
     * @param label a label name from the code or a flag (checked)
     */
    static String narrowed(String expression, String label, String value) {
        return narrowedBy(expression, new Matchers(Map.of(label, value)).render());
    }

    /**
     * {@code expression} narrowed as {@link #narrowed} does, to the series whose {@code label} is
     * any of {@code values}: {@code label=~"a|b"}, each value's every regular-expression character
     * escaped, so a value matches itself alone whatever it holds.
     *
     * @param label a label name from the code (checked)
     * @param values at least one
     */
    static String narrowedToAny(String expression, String label, java.util.Collection<String> values) {
        new Label(label);
        if (values.isEmpty()) {
            throw new IllegalArgumentException("narrowed to no " + label);
        }
        StringBuilder alternatives = new StringBuilder();
        for (String value : values) {
            alternatives.append(alternatives.isEmpty() ? "" : "|").append(literally(value));
        }
        return narrowedBy(expression, label + "=~" + quote(alternatives.toString()));
    }

    /** {@code value} as a regular expression (RE2, anchored by PromQL) that matches it alone. */
    static String literally(String value) {
        StringBuilder out = new StringBuilder(value.length() + 8);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }

    private static String narrowedBy(String expression, String matcher) {
        StringBuilder out = new StringBuilder(expression.length() + 32);
        int braces = 0;
        int brackets = 0;
        int i = 0;
        while (i < expression.length()) {
            char c = expression.charAt(i);
            if (c == '"' || c == '\'' || c == '`') {
                int end = stringEnd(expression, i);
                out.append(expression, i, end);
                i = end;
                continue;
            }
            if (isNameStart(c) && braces == 0 && brackets == 0) {
                int end = i;
                while (end < expression.length() && isNamePart(expression.charAt(end))) {
                    end++;
                }
                String name = expression.substring(i, end);
                out.append(name);
                i = end;
                int next = i;
                while (next < expression.length() && Character.isWhitespace(expression.charAt(next))) {
                    next++;
                }
                boolean selector = next < expression.length() && expression.charAt(next) == '{';
                if (selector || name.contains("hami_") || name.startsWith("DCGM_")) {
                    if (selector) {
                        int inside = next + 1;
                        while (inside < expression.length() && Character.isWhitespace(expression.charAt(inside))) {
                            inside++;
                        }
                        boolean empty = inside < expression.length() && expression.charAt(inside) == '}';
                        out.append(expression, i, next + 1).append(matcher).append(empty ? "" : ", ");
                        i = next + 1;
                        braces++;
                    } else {
                        out.append('{').append(matcher).append('}');
                    }
                }
                continue;
            }
            if (c == '{') {
                braces++;
            } else if (c == '}') {
                braces--;
            } else if (c == '[') {
                brackets++;
            } else if (c == ']') {
                brackets--;
            }
            out.append(c);
            i++;
        }
        return out.toString();
    }

    private static boolean isNameStart(char c) {
        return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isNamePart(char c) {
        return isNameStart(c) || (c >= '0' && c <= '9');
    }

    /** Where the string literal opening at {@code start} ends (after its closing quote, escapes skipped). */
    private static int stringEnd(String expression, int start) {
        char quote = expression.charAt(start);
        int i = start + 1;
        while (i < expression.length() && expression.charAt(i) != quote) {
            i += quote != '`' && expression.charAt(i) == '\\' ? 2 : 1;
        }
        return Math.min(expression.length(), i + 1);
    }

    private static String literal(Object value) {
        return switch (value) {
            case String text -> quote(text);
            case Matchers matchers -> matchers.render();
            case Label label -> label.name();
            case Duration duration -> duration(duration);
            case Integer number -> number.toString();
            case Long number -> number.toString();
            case Double number when Double.isFinite(number) -> number.toString();
            default -> throw new IllegalArgumentException("not a label value, duration or finite number: " + value);
        };
    }

    /** A duration in PromQL's syntax, whole seconds, at least one. */
    static String duration(Duration duration) {
        return Math.max(1, duration.toSeconds()) + "s";
    }

    /**
     * A label value as a double-quoted PromQL string: backslash and double quote escaped, control
     * characters as {@code \xNN}, a lone surrogate (no valid UTF-8) as U+FFFD; everything else as is.
     */
    static String quote(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\\' || c == '"') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\x%02x", (int) c));
            } else if (Character.isHighSurrogate(c) && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                out.append(c).append(value.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                out.append('\uFFFD');
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    /**
     * {@code expression} with {@code target} set from {@code source} where it has a value: any
     * value, a newline included ({@code (?s)}; RE2's {@code .} stops at one, and an exporter's label
     * is text it chose). Both names are the project's own constants, never input.
     */
    static String relabelled(String expression, String target, String source) {
        return source.equals(target) ? expression
                : "label_replace(" + expression + ", \"" + target + "\", \"$1\", \"" + source + "\", \"(?s)(.+)\")";
    }
}
