package io.hamiobserve.adapters.cachefile;

import java.util.List;
import java.util.Map;

/**
 * Writes a tree of maps, lists and scalars as JSON or as indented text. The inspector builds one
 * tree and prints it either way, so that both outputs always say the same.
 */
final class Tree {
    private Tree() {
    }

    static String json(Object value) {
        StringBuilder out = new StringBuilder();
        json(value, out, 0);
        return out.append('\n').toString();
    }

    private static void json(Object value, StringBuilder out, int depth) {
        if (value instanceof Map<?, ?> map) {
            if (map.isEmpty()) {
                out.append("{}");
                return;
            }
            out.append("{\n");
            int i = 0;
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                indent(out, depth + 1);
                string(String.valueOf(entry.getKey()), out);
                out.append(": ");
                json(entry.getValue(), out, depth + 1);
                out.append(++i < map.size() ? ",\n" : "\n");
            }
            indent(out, depth);
            out.append('}');
        } else if (value instanceof List<?> list) {
            if (list.isEmpty()) {
                out.append("[]");
                return;
            }
            out.append("[\n");
            for (int i = 0; i < list.size(); i++) {
                indent(out, depth + 1);
                json(list.get(i), out, depth + 1);
                out.append(i + 1 < list.size() ? ",\n" : "\n");
            }
            indent(out, depth);
            out.append(']');
        } else if (value == null) {
            out.append("null");
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else {
            string(value.toString(), out);
        }
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || (c >= 0x7f && c < 0xa0) || Character.isSurrogate(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    static String text(Object value) {
        StringBuilder out = new StringBuilder();
        text(value, out, 0);
        return out.toString();
    }

    private static void text(Object value, StringBuilder out, int depth) {
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                indent(out, depth);
                out.append(entry.getKey()).append(':');
                Object v = entry.getValue();
                if (v instanceof Map<?, ?> m && !m.isEmpty() || v instanceof List<?> l && !l.isEmpty()) {
                    out.append('\n');
                    text(v, out, depth + 1);
                } else {
                    out.append(' ').append(scalar(v)).append('\n');
                }
            }
        } else if (value instanceof List<?> list) {
            for (Object item : list) {
                indent(out, depth);
                if (item instanceof Map<?, ?> m && !m.isEmpty()) {
                    out.append("-\n");
                    text(item, out, depth + 1);
                } else {
                    out.append("- ").append(scalar(item)).append('\n');
                }
            }
        } else {
            indent(out, depth);
            out.append(scalar(value)).append('\n');
        }
    }

    private static String scalar(Object v) {
        if (v instanceof List<?> || v instanceof Map<?, ?>) {
            return "(none)";
        }
        String s = String.valueOf(v);
        StringBuilder safe = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            // Terminal control bytes from a tenant's file must not reach an operator's terminal.
            safe.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return safe.toString();
    }

    private static void indent(StringBuilder out, int depth) {
        out.append("  ".repeat(depth));
    }
}
