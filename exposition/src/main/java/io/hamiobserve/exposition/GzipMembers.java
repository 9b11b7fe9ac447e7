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
    /** Deflaters between uses: allocating one costs native memory and time, a member is often a few KB. */
    private static final Queue<Deflater> IDLE = new ConcurrentLinkedQueue<>();

    private GzipMembers() {
    }

    /** {@code length} bytes of {@code bytes} from {@code from} as one gzip member. */
    static byte[] member(byte[] bytes, int from, int length) {
        Deflater deflater = IDLE.poll();
        if (deflater == null) {
            deflater = new Deflater(Deflater.BEST_SPEED, true);
        }
        try {
            deflater.setInput(bytes, from, length);
            deflater.finish();
            // Text of this kind compresses about tenfold; the buffer grows where it does not.
            ByteArrayOutputStream out = new ByteArrayOutputStream(HEADER.length + length / 8 + 64);
            out.write(HEADER, 0, HEADER.length);
            byte[] buffer = new byte[Math.min(64 * 1024, Math.max(256, length / 4))];
            while (!deflater.finished()) {
                int written = deflater.deflate(buffer);
                out.write(buffer, 0, written);
            }
            CRC32 crc = new CRC32();
            crc.update(bytes, from, length);
            littleEndian(out, crc.getValue());
            littleEndian(out, length);
            return out.toByteArray();
        } finally {
            deflater.reset();
            IDLE.offer(deflater);
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

    private static void littleEndian(ByteArrayOutputStream out, long value) {
        for (int i = 0; i < 4; i++) {
            out.write((int) (value >>> (8 * i)) & 0xff);
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
