package io.hamiobserve.exposition;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes sealed families in Prometheus text 0.0.4 or OpenMetrics text, byte for byte as
 * prometheus-metrics' {@code PrometheusTextFormatWriter} and {@code OpenMetricsTextFormatWriter}
 * write the same families (created timestamps, exemplars, units and scrape timestamps never occur
 * in a family). Bytes go into one reused buffer, flushed to the output when full: no
 * {@code Labels}, data point or {@code Writer} per series, and no {@code String} per value where
 * the value is an integer. Only {@link Plain plain} families come here; the equality is pinned by
 * {@code TextWriterEqualityTest}, which fuzzes this writer against the library's.
 */
final class TextWriter {
    private static final int BUFFER = 64 * 1024;
    /** Below this, an integer double is exactly its digits; Double.toString then needs no rounding. */
    private static final double EXACT_INTEGERS = 0x1p53;

    /**
     * The buffer and the label blocks' arrays of the last writer, for the next: a node renders at
     * every scrape. The output has every byte of the buffer before {@code write} returns, as
     * within one writing, where it is reused at every flush. A writer that finds none (another is
     * writing) makes its own.
     */
    private static final AtomicReference<Kept> IDLE = new AtomicReference<>();

    private final OutputStream out;
    private final byte[] buffer;
    private final LabelBlocks labelBlocks;
    /** A number's digits, written from the end. */
    private final byte[] scratch = new byte[20];
    private int used;
    /** How often the buffer went out: a label set's bytes are kept only when they are whole in it. */
    private long flushes;
    /** Bytes already gone to the output. */
    private long sent;

    private TextWriter(OutputStream out, Kept kept) {
        this.out = out;
        this.buffer = kept.buffer;
        this.labelBlocks = kept.labelBlocks;
        labelBlocks.startWrite();
    }

    /** What one writer leaves the next. */
    private record Kept(byte[] buffer, LabelBlocks labelBlocks) {
        static Kept fresh() {
            return new Kept(new byte[BUFFER], new LabelBlocks());
        }
    }

    /**
     * Writes {@code points} in {@code format}, as the library's writer of that format
     * ({@link ExpositionFormat#writer()}) writes their snapshots; each sealed, non-empty and
     * {@linkplain Plain#family plain}, in name order and with distinct names ({@link Plain#families}).
     */
    static void write(OutputStream out, List<MetricFamily.Points> points, ExpositionFormat format) throws IOException {
        write(out, points, format, null);
    }

    /**
     * As {@link #write(OutputStream, List, ExpositionFormat)}, and where {@code bounds} is given
     * (2 × families + 1 ints), where each family's lines are in the output: family {@code f}'s
     * HELP/TYPE lines from {@code bounds[2f]}, its samples from {@code bounds[2f + 1]} to
     * {@code bounds[2f + 2]}, so that a segment is cut without reading its bytes again.
     */
    static void write(OutputStream out, List<MetricFamily.Points> points, ExpositionFormat format, int[] bounds)
            throws IOException {
        boolean openMetrics = switch (format) {
            case PROMETHEUS_TEXT -> false;
            case OPENMETRICS_TEXT -> true;
        };
        Kept idle = IDLE.getAndSet(null);
        Kept kept = idle != null ? idle : Kept.fresh();
        TextWriter writer = new TextWriter(out, kept);
        try {
            for (int f = 0; f < points.size(); f++) {
                if (bounds != null) {
                    bounds[2 * f] = writer.position();
                }
                writer.family(points.get(f), openMetrics, bounds, f);
            }
            if (bounds != null) {
                bounds[2 * points.size()] = writer.position();
            }
            if (openMetrics) {
                writer.ascii("# EOF\n");
            }
            writer.flush();
        } finally {
            IDLE.compareAndSet(null, kept);
        }
    }

    /** Where the next byte goes in the output (an output of up to 2 GB: a segment's). */
    private int position() {
        return Math.toIntExact(sent + used);
    }

    private void family(MetricFamily.Points points, boolean openMetrics, int[] bounds, int index) throws IOException {
        MetricFamily family = points.family();
        boolean counter = family.type() == MetricFamily.Type.COUNTER;
        String sampleName = counter ? family.name() + "_total" : family.name();
        String type = counter ? "counter" : "gauge";
        String help = family.help();
        if (openMetrics) {
            comment("# TYPE ", family.name(), type);
            if (help != null && !help.isEmpty()) {
                ascii("# HELP ");
                ascii(family.name());
                put((byte) ' ');
                escaped(help, true);
                put((byte) '\n');
            }
        } else {
            if (help != null && !help.isEmpty()) {
                ascii("# HELP ");
                ascii(sampleName);
                put((byte) ' ');
                escaped(help, false);
                put((byte) '\n');
            }
            comment("# TYPE ", sampleName, type);
        }
        if (bounds != null) {
            bounds[2 * index + 1] = position();
        }
        String[] names = points.sortedNames();
        // What every row repeats, in bytes once per family: the sample's name, and each label's
        // '{name="' or ',name="' (names are ASCII: Plain).
        byte[] sample = sampleName.getBytes(StandardCharsets.US_ASCII);
        byte[][] labelStarts = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            labelStarts[i] = ((i == 0 ? "{" : ",") + names[i] + "=\"").getBytes(StandardCharsets.US_ASCII);
        }
        int rows = points.size();
        LabelBlocks.Rows written = names.length > 0 && rows >= LabelBlocks.MIN_ROWS && points.rowsShared()
                ? labelBlocks.of(names) : null;
        for (int row = 0; row < rows; row++) {
            bytes(sample);
            if (names.length > 0) {
                labelSet(points.labelValues(row), labelStarts, written, row);
            }
            put((byte) ' ');
            number(points.value(row));
            put((byte) '\n');
        }
    }

    /**
     * A row's {@code {name="value",...}}: copied from the bytes {@code written} kept for it, else
     * escaped value by value and kept there (when whole in the buffer) for the families after.
     */
    private void labelSet(String[] values, byte[][] labelStarts, LabelBlocks.Rows written, int row)
            throws IOException {
        if (written != null && written.has(row, values)) {
            bytes(written.bytes(), written.from(row), written.to(row));
            return;
        }
        int start = used;
        long flushed = flushes;
        for (int i = 0; i < labelStarts.length; i++) {
            bytes(labelStarts[i]);
            escaped(values[i], true);
            put((byte) '"');
        }
        put((byte) '}');
        if (written != null && flushes == flushed) {
            written.keep(row, values, buffer, start, used);
        }
    }

    private void comment(String kind, String name, String text) throws IOException {
        ascii(kind);
        ascii(name);
        put((byte) ' ');
        ascii(text);
        put((byte) '\n');
    }

    /** A double as the library writes it: {@code +Inf}, {@code -Inf}, else {@code Double.toString}. */
    private void number(double value) throws IOException {
        if (value == Double.POSITIVE_INFINITY) {
            ascii("+Inf");
        } else if (value == Double.NEGATIVE_INFINITY) {
            ascii("-Inf");
        } else if (value == Math.rint(value) && Math.abs(value) < EXACT_INTEGERS
                && (value != 0 || Double.doubleToRawLongBits(value) == 0)) {
            integer((long) value);
        } else {
            ascii(Double.toString(value));
        }
    }

    /**
     * An integer below 2^53 as {@code Double.toString} writes it, without the string: its digits
     * are exact, and the shortest decimal that identifies it is those digits without trailing
     * zeros; below 10^7 as {@code 123.0}, from 10^7 as {@code 1.234E7}.
     */
    private void integer(long value) throws IOException {
        if (value < 0) {
            put((byte) '-');
            value = -value;
        }
        ensure(32);
        if (value < 10_000_000L) {
            used = digits(value, used);
            buffer[used++] = '.';
            buffer[used++] = '0';
            return;
        }
        int start = used;
        int end = digits(value, start + 1);
        int exponent = end - start - 2;
        // The first digit before the point, the rest after it, trailing zeros dropped but one.
        buffer[start] = buffer[start + 1];
        buffer[start + 1] = '.';
        int last = end - 1;
        while (last > start + 2 && buffer[last] == '0') {
            last--;
        }
        used = last + 1;
        buffer[used++] = 'E';
        used = digits(exponent, used);
    }

    /** Writes {@code value}'s decimal digits at {@code at}; returns the position after them. */
    private int digits(long value, int at) {
        int from = scratch.length;
        while (value >= 100) {
            int pair = (int) (value % 100);
            value /= 100;
            scratch[--from] = (byte) ('0' + pair % 10);
            scratch[--from] = (byte) ('0' + pair / 10);
        }
        int last = (int) value;
        scratch[--from] = (byte) ('0' + last % 10);
        if (last >= 10) {
            scratch[--from] = (byte) ('0' + last / 10);
        }
        int length = scratch.length - from;
        System.arraycopy(scratch, from, buffer, at, length);
        return at + length;
    }

    /**
     * {@code text} in UTF-8 with {@code \\} and newline escaped, and {@code "} too where
     * {@code quotes} (label values, and OpenMetrics' HELP); a lone surrogate becomes {@code ?},
     * as the library's UTF-8 writer replaces it. Runs of ASCII that need no escape are copied
     * whole.
     */
    private void escaped(String text, boolean quotes) throws IOException {
        int length = text.length();
        int run = 0;
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c < 0x80 && c != '\\' && c != '\n' && (c != '"' || !quotes)) {
                continue;
            }
            asciiRun(text, run, i);
            if (c == '\\') {
                put((byte) '\\');
                put((byte) '\\');
            } else if (c == '\n') {
                put((byte) '\\');
                put((byte) 'n');
            } else if (c == '"') {
                put((byte) '\\');
                put((byte) '"');
            } else if (c < 0x800) {
                put((byte) (0xC0 | c >> 6));
                put((byte) (0x80 | c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1))) {
                int code = Character.toCodePoint(c, text.charAt(++i));
                put((byte) (0xF0 | code >> 18));
                put((byte) (0x80 | code >> 12 & 0x3F));
                put((byte) (0x80 | code >> 6 & 0x3F));
                put((byte) (0x80 | code & 0x3F));
            } else if (Character.isSurrogate(c)) {
                put((byte) '?');
            } else {
                put((byte) (0xE0 | c >> 12));
                put((byte) (0x80 | c >> 6 & 0x3F));
                put((byte) (0x80 | c & 0x3F));
            }
            run = i + 1;
        }
        asciiRun(text, run, length);
    }

    /** Text known to be ASCII: names ({@link Plain}) and the format's own words. */
    private void ascii(String text) throws IOException {
        asciiRun(text, 0, text.length());
    }

    /** {@code text}'s characters {@code from} to {@code to}, each ASCII, one byte each. */
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): the ASCII copy without an encoder
    private void asciiRun(String text, int from, int to) throws IOException {
        while (from < to) {
            if (used == BUFFER) {
                flush();
            }
            int taken = Math.min(to - from, BUFFER - used);
            text.getBytes(from, from + taken, buffer, used);
            used += taken;
            from += taken;
        }
    }

    /** {@code bytes}, whole. */
    private void bytes(byte[] bytes) throws IOException {
        bytes(bytes, 0, bytes.length);
    }

    /** {@code bytes} {@code from} to {@code to}. */
    private void bytes(byte[] bytes, int from, int to) throws IOException {
        int length = to - from;
        if (BUFFER - used < length) {
            flush();
            if (length > BUFFER) {
                out.write(bytes, from, length);
                sent += length;
                return;
            }
        }
        System.arraycopy(bytes, from, buffer, used, length);
        used += length;
    }

    private void put(byte b) throws IOException {
        if (used == BUFFER) {
            flush();
        }
        buffer[used++] = b;
    }

    private void ensure(int room) throws IOException {
        if (BUFFER - used < room) {
            flush();
        }
    }

    private void flush() throws IOException {
        out.write(buffer, 0, used);
        sent += used;
        used = 0;
        flushes++;
    }

    /**
     * The label sets a writing wrote, in bytes ({@code {name="value",...}}), by row, for the
     * families after it with the same label names. A scrape's families share their rows' label
     * arrays where they add the same label values in the same order (a container's ten usage
     * series; {@link MetricFamily.LastRow}), and such arrays are never written after they are
     * made: a row whose array is the one written at the same position before under the same
     * names, or equal to it, is the same bytes, and is copied instead of escaped value by value.
     * Kept only for families whose label sets another family shares
     * ({@link MetricFamily.Points#rowsShared}), for a few sets of label names at a time, up to a
     * bound in rows and bytes (past it, rows are written as they come); emptied at every writing,
     * and allocating nothing once grown. Label values are anyone's: they change only which bytes
     * are kept, never how many.
     */
    static final class LabelBlocks {
        /**
         * Sets of label names kept at a time, the least recently used replaced: a node's
         * catalogue writes families of six sets between two of one set, in name order.
         */
        static final int SETS = 8;
        /** Families of fewer rows are written as they come: nothing to gain, and they would take a set. */
        static final int MIN_ROWS = 16;
        static final int MAX_ROWS = 8_192;
        static final int MAX_BYTES = 512 * 1024;

        private final Rows[] sets = new Rows[SETS];
        private long uses;

        LabelBlocks() {
            for (int i = 0; i < SETS; i++) {
                sets[i] = new Rows();
            }
        }

        void startWrite() {
            for (Rows set : sets) {
                set.clear();
            }
        }

        /** The kept rows of {@code names}, emptied and taken for them when none are kept. */
        Rows of(String[] names) {
            Rows least = sets[0];
            for (Rows set : sets) {
                if (Arrays.equals(set.names, names)) {
                    set.used = ++uses;
                    return set;
                }
                if (set.used < least.used) {
                    least = set;
                }
            }
            least.clear();
            least.names = names;
            least.used = ++uses;
            return least;
        }

        /** The rows written under one set of label names. */
        static final class Rows {
            private String[] names;
            /** When it was last taken, in {@link #uses}. */
            private long used;
            /** By row: the label array written there, and where its bytes are in {@link #bytes}. */
            private String[][] rows = new String[0][];
            private int[] from = new int[0];
            private int[] to = new int[0];
            private byte[] bytes = new byte[0];
            private int bytesUsed;
            private int rowsUsed;

            private void clear() {
                Arrays.fill(rows, 0, rowsUsed, null);
                rowsUsed = 0;
                bytesUsed = 0;
            }

            /**
             * Whether {@code values}' bytes are kept for {@code row}: its array, or an equal one,
             * was written there before. Shared arrays match by identity; a family that adds the
             * same label sets apart from the others has equal arrays, mostly of the same strings.
             */
            boolean has(int row, String[] values) {
                if (row >= rowsUsed) {
                    return false;
                }
                String[] kept = rows[row];
                return kept == values || kept != null && Arrays.equals(kept, values);
            }

            int from(int row) {
                return from[row];
            }

            int to(int row) {
                return to[row];
            }

            byte[] bytes() {
                return bytes;
            }

            /** Keeps {@code values}' bytes, {@code block}'s {@code start} to {@code end}, for {@code row}. */
            void keep(int row, String[] values, byte[] block, int start, int end) {
                int length = end - start;
                if (row >= MAX_ROWS || bytesUsed + length > MAX_BYTES) {
                    return;
                }
                if (row >= rows.length) {
                    int grown = Math.min(MAX_ROWS, Math.max(row + 1, 2 * rows.length));
                    rows = Arrays.copyOf(rows, grown);
                    from = Arrays.copyOf(from, grown);
                    to = Arrays.copyOf(to, grown);
                }
                if (bytesUsed + length > bytes.length) {
                    bytes = Arrays.copyOf(bytes,
                            Math.min(MAX_BYTES, Math.max(bytesUsed + length, 2 * bytes.length)));
                }
                System.arraycopy(block, start, bytes, bytesUsed, length);
                if (row >= rowsUsed) {
                    Arrays.fill(rows, rowsUsed, row, null);
                    rowsUsed = row + 1;
                }
                rows[row] = values;
                from[row] = bytesUsed;
                to[row] = bytesUsed + length;
                bytesUsed += length;
            }
        }
    }

    /** Which families this writer may write: the rest go to the library's writer. */
    static final class Plain {
        private Plain() {
        }

        /**
         * Whether this writer may write {@code points}: each family {@linkplain #family plain}, in
         * name order, no name twice.
         */
        static boolean families(List<MetricFamily.Points> points) {
            String previous = null;
            for (MetricFamily.Points family : points) {
                String name = family.family().name();
                if (!family(family.family()) || previous != null && name.compareTo(previous) <= 0) {
                    return false;
                }
                previous = name;
            }
            return true;
        }

        /**
         * A family whose name and label names need no quoting or escaping in either format, whose
         * label names are distinct, and whose name the library does not read a suffix from.
         */
        static boolean family(MetricFamily family) {
            if (!metricName(family.name()) || family.name().endsWith("_total") || family.name().endsWith("_created")) {
                return false;
            }
            java.util.Set<String> distinct = new java.util.HashSet<>();
            for (String label : family.labels()) {
                if (!labelName(label) || !distinct.add(label)) {
                    return false;
                }
            }
            return !family.zoned() || !distinct.contains(MetricFamily.ZONE_LABEL);
        }

        /** {@code [a-zA-Z_:][a-zA-Z0-9_:]*}. */
        static boolean metricName(String name) {
            if (name.isEmpty()) {
                return false;
            }
            for (int i = 0; i < name.length(); i++) {
                char c = name.charAt(i);
                boolean letter = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':';
                if (!letter && !(i > 0 && c >= '0' && c <= '9')) {
                    return false;
                }
            }
            return true;
        }

        /** {@code [a-zA-Z_][a-zA-Z0-9_]*}, not starting with the reserved {@code __}. */
        static boolean labelName(String name) {
            if (name.isEmpty() || name.startsWith("__")) {
                return false;
            }
            for (int i = 0; i < name.length(); i++) {
                char c = name.charAt(i);
                boolean letter = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_';
                if (!letter && !(i > 0 && c >= '0' && c <= '9')) {
                    return false;
                }
            }
            return true;
        }
    }
}
