package io.hamiobserve.adapters.cachefile;

import java.util.List;
import java.util.Map;

/**
 * Writes a tree of maps, lists and scalars as indented text, for a terminal: control characters a
 * tenant's file may hold never reach it. The inspector's JSON of the same tree is Jackson's.
 */
final class TextTree {
    private TextTree() {
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
