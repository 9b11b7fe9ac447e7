package io.hamiobserve.ports;

/**
 * Where adapters report an input they skipped. Bad input never fails a scrape: it is skipped
 * with a specific reason, counted per {@link SkipKey} (source, kind and reason), and the rest is
 * served.
 */
@FunctionalInterface
public interface SkipReporter {
    /** A reporter that drops everything, for tools that print their own diagnostics. */
    SkipReporter NONE = (key, item) -> { };

    /**
     * @param key  the count the skip goes to: source, kind and reason
     * @param item which item (a path, {@code namespace/pod}) and what was wrong with it; goes to the
     *             log, never to a label
     */
    void skipped(SkipKey key, String item);

    /**
     * {@code count} inputs skipped alike (the processes of one card for one reason): each counts,
     * the item is named once.
     */
    default void skipped(SkipKey key, String item, int count) {
        for (int i = 0; i < count; i++) {
            skipped(key, item);
        }
    }

    /** The most characters of one input-derived text a log line carries. */
    int MAX_LOGGED_CHARS = 256;

    /**
     * {@code text} as it may go into a log line: control characters escaped (a value cannot forge
     * log lines) and cut to {@link #MAX_LOGGED_CHARS} with the length left out said, since inputs
     * are written by whoever wants the log flooded.
     */
    static String loggable(String text) {
        if (text == null) {
            return "null";
        }
        int shown = Math.min(text.length(), MAX_LOGGED_CHARS);
        StringBuilder out = new StringBuilder(shown + 32);
        for (int i = 0; i < shown; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\x%02x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (text.length() > shown) {
            out.append("... (").append(text.length() - shown).append(" more characters)");
        }
        return out.toString();
    }
}
