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
 * gzip members (RFC 1952 §2.2): a gzip stream may be a sequence of members, each a header, a
 * deflate stream and its CRC and length, and a reader decompresses them one after the other into
 * one body. Go's {@code gzip.Reader} (multistream by default, so Prometheus's scraper), Java's
 * {@code GZIPInputStream}, zlib's {@code gunzip} and curl read them all. A part of a body compressed
 * once as a member is copied as it is into every later body that holds the same bytes at any place.
 *
 * <p>Members are compressed at deflate's fastest level, as the endpoint always compressed: a
 * large exposition compresses in a third of the default level's time to a body still about a
 * tenth of its size.
 */
final class GzipMembers {
    /** ID1 ID2, deflate, no flags, no time, no extra flags, OS unknown. */
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};
    /**
     * Compressors between uses: a deflater costs native memory and time to make, a member is often
     * a few KB, and a scrape after many events compresses thousands of them.
     */
    private static final Queue<Compressor> IDLE = new ConcurrentLinkedQueue<>();

    private GzipMembers() {
    }

    /**
     * A deflater with its output array and checksum, reused member after member, so that a member
     * costs one array of its exact size: at 100,000 containers a scrape after 1,000 pod events
     * compresses some 60 MB, and the garbage of growing and trimming buffers per member made the
     * serial collector run full collections.
     */
    private static final class Compressor {
        /** An output array grown past this goes with the member that needed it. */
        private static final int KEPT_OUTPUT = 256 * 1024;

        private final Deflater deflater = new Deflater(Deflater.BEST_SPEED, true);
        private final CRC32 crc = new CRC32();
        private byte[] output = new byte[16 * 1024];

        byte[] member(byte[] bytes, int from, int length) {
            deflater.setInput(bytes, from, length);
            deflater.finish();
            int used = 0;
            while (!deflater.finished()) {
                if (used == output.length) {
                    output = Arrays.copyOf(output, 2 * output.length);
                }
                used += deflater.deflate(output, used, output.length - used);
            }
            crc.reset();
            crc.update(bytes, from, length);
            byte[] member = new byte[HEADER.length + used + 8];
            System.arraycopy(HEADER, 0, member, 0, HEADER.length);
            System.arraycopy(output, 0, member, HEADER.length, used);
            littleEndian(member, HEADER.length + used, crc.getValue());
            littleEndian(member, HEADER.length + used + 4, length);
            return member;
        }

        void reset() {
            deflater.reset();
            if (output.length > KEPT_OUTPUT) {
                output = new byte[16 * 1024];
            }
        }
    }

    /** {@code length} bytes of {@code bytes} from {@code from} as one gzip member. */
    static byte[] member(byte[] bytes, int from, int length) {
        Compressor compressor = IDLE.poll();
        if (compressor == null) {
            compressor = new Compressor();
        }
        try {
            return compressor.member(bytes, from, length);
        } finally {
            compressor.reset();
            IDLE.offer(compressor);
        }
    }

    /** Writes the bytes a member holds (one made by {@link #member}: a fixed 10-byte header). */
    static void inflate(byte[] member, OutputStream out) throws IOException {
        Inflater inflater = new Inflater(true);
        try {
            inflater.setInput(member, HEADER.length, member.length - HEADER.length);
            byte[] buffer = new byte[64 * 1024];
            while (!inflater.finished()) {
                int read = inflater.inflate(buffer);
                if (read == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    throw new IllegalStateException("a kept gzip member ends before its deflate stream");
                }
                out.write(buffer, 0, read);
            }
        } catch (DataFormatException impossible) {
            throw new IllegalStateException("a kept gzip member is not deflate data", impossible);
        } finally {
            inflater.end();
        }
    }

    /** Whether {@code member} holds exactly {@code length} bytes of {@code bytes} from {@code from}. */
    static boolean holds(byte[] member, byte[] bytes, int from, int length) {
        ByteArrayOutputStream inflated = new ByteArrayOutputStream(length);
        try {
            inflate(member, inflated);
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
        return Arrays.equals(inflated.toByteArray(), 0, inflated.size(), bytes, from, from + length);
    }

    private static void littleEndian(byte[] into, int at, long value) {
        for (int i = 0; i < 4; i++) {
            into[at + i] = (byte) (value >>> (8 * i));
        }
    }

    /**
     * Writes a body as members: parts already compressed are copied as they are; bytes written in
     * between are gathered and compressed as one member before the next part, or at {@link #finish}.
     */
    static final class Writer {
        private final OutputStream out;
        private final ByteArrayOutputStream loose = new ByteArrayOutputStream(4096);
        private boolean wroteAny;

        Writer(OutputStream out) {
            this.out = out;
        }

        /** Bytes to be compressed with the others written between two members. */
        void write(byte[] bytes, int from, int length) {
            loose.write(bytes, from, length);
        }

        void write(byte[] bytes) {
            write(bytes, 0, bytes.length);
        }

        /** A member compressed before, after the bytes written so far. */
        void member(byte[] member) throws IOException {
            flushLoose();
            out.write(member);
        }

        /** Compresses what is left; a body with nothing at all is one empty member, a valid gzip stream. */
        void finish() throws IOException {
            if (loose.size() > 0 || !wroteAny) {
                out.write(GzipMembers.member(loose.toByteArray(), 0, loose.size()));
                loose.reset();
                wroteAny = true;
            }
        }

        private void flushLoose() throws IOException {
            if (loose.size() > 0) {
                out.write(GzipMembers.member(loose.toByteArray(), 0, loose.size()));
                loose.reset();
            }
            wroteAny = true;
        }
    }
}
