package io.hamiobserve.exposition;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * A gzip body (RFC 1952) of one member whose deflate stream (RFC 1951) is made of pieces compressed
 * apart: each piece is deflate blocks of its own bytes, none of them final, ending byte-aligned
 * (a sync flush), so pieces compressed at different times, in any order and by any thread, follow
 * one another as one stream. A piece compressed once is copied as it is into every later body that
 * holds the same bytes at any place; the body ends with an empty final block and the CRC-32 and
 * length of all its bytes, the CRC-32 combined from each piece's (the checksum is linear, so a
 * piece's is moved past the bytes after it by one multiplication).
 *
 * <p>One member, not a member per piece: a gzip stream may be a sequence of members, and Go's
 * reader (so Prometheus's scraper) and Java's read them all, but curl's {@code --compressed}
 * (libcurl 7.88) stops after the first and fails, as do readers that take gzip as one member.
 *
 * <p>Pieces are compressed at deflate's fastest level, as the endpoint always compressed: a large
 * exposition compresses in a third of the default level's time to a body still about a tenth of its
 * size.
 */
final class GzipPieces {
    /** ID1 ID2, deflate, no flags, no time, no extra flags, OS unknown. */
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};
    /** A final stored block of no bytes, at a byte boundary: BFINAL 1, BTYPE 00, LEN 0, NLEN ~0. */
    private static final byte[] FINAL_BLOCK = {1, 0, 0, (byte) 0xff, (byte) 0xff};
    /**
     * What a piece holds before its deflate bytes: the CRC-32 of its bytes, their count, and the
     * multiplier that moves a CRC-32 past that many bytes, so that writing a body costs one
     * multiplication a piece.
     */
    private static final int PREFIX = 12;
    /** CRC-32's polynomial, bit-reversed: bit 31 is the coefficient of x^0, bit 0 of x^31. */
    private static final int POLYNOMIAL = 0xEDB88320;
    /** The polynomial 1 in that order. */
    private static final int ONE = 0x80000000;
    /**
     * Compressors between uses: a deflater costs native memory and time to make, a piece is often
     * a few KB, and a scrape after many events compresses thousands of them.
     */
    private static final Queue<Compressor> IDLE = new ConcurrentLinkedQueue<>();
    private static final Queue<Decompressor> IDLE_DECOMPRESSORS = new ConcurrentLinkedQueue<>();
    /** x^(8 × 2^k) modulo the polynomial: what moves a CRC-32 past 2^k bytes, for each bit of a length. */
    private static final int[] SHIFT_PAST_POWERS = new int[64];

    static {
        SHIFT_PAST_POWERS[0] = ONE >>> 8; // x^8: one byte
        for (int k = 1; k < SHIFT_PAST_POWERS.length; k++) {
            SHIFT_PAST_POWERS[k] = multiply(SHIFT_PAST_POWERS[k - 1], SHIFT_PAST_POWERS[k - 1]);
        }
    }

    private GzipPieces() {
    }

    /**
     * A deflater with its output array and checksum, reused piece after piece, so that a piece
     * costs one array of its exact size: at 100,000 containers a scrape after 1,000 pod events
     * compresses some 60 MB, and the garbage of growing and trimming buffers per piece made the
     * serial collector run full collections.
     */
    private static final class Compressor {
        /** An output array grown past this goes with the piece that needed it. */
        private static final int KEPT_OUTPUT = 256 * 1024;

        private final Deflater deflater = new Deflater(Deflater.BEST_SPEED, true);
        private final CRC32 crc = new CRC32();
        private byte[] output = new byte[16 * 1024];

        byte[] piece(byte[] bytes, int from, int length) {
            deflater.setInput(bytes, from, length);
            int used = 0;
            // A sync flush compresses all the input, ends at a byte boundary, and writes no final
            // block; a return that fills the space given means there may be more to write.
            do {
                if (used == output.length) {
                    output = Arrays.copyOf(output, 2 * output.length);
                }
                used += deflater.deflate(output, used, output.length - used, Deflater.SYNC_FLUSH);
            } while (used == output.length);
            crc.reset();
            crc.update(bytes, from, length);
            byte[] piece = new byte[PREFIX + used];
            littleEndian(piece, 0, (int) crc.getValue());
            littleEndian(piece, 4, length);
            littleEndian(piece, 8, shiftPast(length));
            System.arraycopy(output, 0, piece, PREFIX, used);
            return piece;
        }

        void reset() {
            deflater.reset();
            if (output.length > KEPT_OUTPUT) {
                output = new byte[16 * 1024];
            }
        }
    }

    /** {@code length} bytes of {@code bytes} from {@code from} as one piece. */
    static byte[] piece(byte[] bytes, int from, int length) {
        Compressor compressor = IDLE.poll();
        if (compressor == null) {
            compressor = new Compressor();
        }
        try {
            return compressor.piece(bytes, from, length);
        } finally {
            compressor.reset();
            IDLE.offer(compressor);
        }
    }

    /** Writes the bytes a piece holds (one made by {@link #piece}). */
    static void inflate(byte[] piece, OutputStream out) throws IOException {
        Decompressor decompressor = IDLE_DECOMPRESSORS.poll();
        if (decompressor == null) {
            decompressor = new Decompressor();
        }
        Inflater inflater = decompressor.inflater;
        try {
            inflater.setInput(piece, PREFIX, piece.length - PREFIX);
            byte[] buffer = decompressor.buffer;
            boolean ended = false;
            long written = 0;
            while (!inflater.finished()) {
                int read = inflater.inflate(buffer);
                out.write(buffer, 0, read);
                written += read;
                if (read > 0 || inflater.finished()) {
                    continue;
                }
                if (inflater.needsDictionary()) {
                    throw new IllegalStateException("a kept gzip piece asks for a dictionary");
                }
                if (inflater.needsInput()) {
                    // A piece has no final block: the body's own end closes the stream.
                    if (ended) {
                        throw new IllegalStateException("a kept gzip piece ends inside a deflate block");
                    }
                    inflater.setInput(FINAL_BLOCK);
                    ended = true;
                }
            }
            if (written != readInt(piece, 4)) {
                throw new IllegalStateException("a kept gzip piece holds " + written + " bytes, not "
                        + readInt(piece, 4));
            }
        } catch (DataFormatException impossible) {
            throw new IllegalStateException("a kept gzip piece is not deflate data", impossible);
        } finally {
            inflater.reset();
            IDLE_DECOMPRESSORS.offer(decompressor);
        }
    }

    /**
     * An inflater and its buffer between uses: a segment of parts rendered again inflates its
     * last pieces, thousands after many pod events ({@code SegmentedExposition}).
     */
    private static final class Decompressor {
        private final Inflater inflater = new Inflater(true);
        private final byte[] buffer = new byte[64 * 1024];
    }

    /** Whether {@code piece} holds exactly {@code length} bytes of {@code bytes} from {@code from}. */
    static boolean holds(byte[] piece, byte[] bytes, int from, int length) {
        if (readInt(piece, 4) != length) {
            return false;
        }
        ByteArrayOutputStream inflated = new ByteArrayOutputStream(length);
        try {
            inflate(piece, inflated);
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
        return Arrays.equals(inflated.toByteArray(), 0, inflated.size(), bytes, from, from + length);
    }

    /** The deflate bytes of {@code piece} as they go into a body. */
    static byte[] deflated(byte[] piece) {
        return Arrays.copyOfRange(piece, PREFIX, piece.length);
    }

    /**
     * The CRC-32 of bytes A then B, from the CRC-32 of A, that of B, and the multiplier for B's
     * length ({@link #shiftPast}): A's checksum moved past B's bytes, plus B's.
     */
    static int combine(int crcBefore, int crcAfter, int shiftPastAfter) {
        return multiply(shiftPastAfter, crcBefore) ^ crcAfter;
    }

    /** x^(8 × length) modulo CRC-32's polynomial: what moves a CRC-32 past {@code length} bytes. */
    static int shiftPast(long length) {
        int result = ONE;
        for (long rest = length; rest != 0; rest &= rest - 1) {
            result = multiply(result, SHIFT_PAST_POWERS[Long.numberOfTrailingZeros(rest)]);
        }
        return result;
    }

    /** a × b modulo CRC-32's polynomial, both in its bit-reversed order. */
    private static int multiply(int a, int b) {
        int product = 0;
        for (int term = ONE; term != 0; term >>>= 1) {
            if ((a & term) != 0) {
                product ^= b;
            }
            // b × x: one bit towards x^31, and the polynomial taken away when x^32 is reached.
            b = (b & 1) != 0 ? (b >>> 1) ^ POLYNOMIAL : b >>> 1;
        }
        return product;
    }

    private static void littleEndian(byte[] into, int at, int value) {
        for (int i = 0; i < 4; i++) {
            into[at + i] = (byte) (value >>> (8 * i));
        }
    }

    private static int readInt(byte[] from, int at) {
        return (from[at] & 0xff) | (from[at + 1] & 0xff) << 8 | (from[at + 2] & 0xff) << 16 | (from[at + 3] & 0xff) << 24;
    }

    /**
     * Writes a body: the header, then pieces in order — those compressed before copied as they
     * are; bytes written in between gathered and compressed as one piece before the next, or at
     * {@link #finish} — then the final block and the CRC-32 and length of everything written.
     */
    static final class Writer {
        private final OutputStream out;
        private final ByteArrayOutputStream loose = new ByteArrayOutputStream(4096);
        private boolean started;
        private int crc;
        private long length;

        Writer(OutputStream out) {
            this.out = out;
        }

        /** Bytes to be compressed with the others written between two pieces. */
        void write(byte[] bytes, int from, int length) {
            loose.write(bytes, from, length);
        }

        void write(byte[] bytes) {
            write(bytes, 0, bytes.length);
        }

        /** A piece compressed before, after the bytes written so far. */
        void piece(byte[] piece) throws IOException {
            flushLoose();
            add(piece);
        }

        /** Compresses what is left and ends the body; a body of no bytes is a valid empty gzip stream. */
        void finish() throws IOException {
            flushLoose();
            start();
            out.write(FINAL_BLOCK);
            byte[] trailer = new byte[8];
            littleEndian(trailer, 0, crc);
            littleEndian(trailer, 4, (int) length); // ISIZE: the length modulo 2^32
            out.write(trailer);
        }

        private void flushLoose() throws IOException {
            if (loose.size() > 0) {
                add(GzipPieces.piece(loose.toByteArray(), 0, loose.size()));
                loose.reset();
            }
        }

        private void add(byte[] piece) throws IOException {
            start();
            out.write(piece, PREFIX, piece.length - PREFIX);
            crc = combine(crc, readInt(piece, 0), readInt(piece, 8));
            length += readInt(piece, 4) & 0xffffffffL;
        }

        private void start() throws IOException {
            if (!started) {
                out.write(HEADER);
                started = true;
            }
        }
    }
}
