package io.hamiobserve.app.http;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A rendered response body, kept as chunks of at most {@link #CHUNK} bytes. A large exposition
 * (68 MB at 100,000 containers) then costs its own size in memory while it is written and kept:
 * a growing array would briefly hold up to three times that (the doubled array, and its copy).
 * Immutable once {@link Writer#close() closed}.
 */
final class Body {
    static final int CHUNK = 1 << 20;

    private final List<byte[]> chunks;
    private final long length;

    private Body(List<byte[]> chunks, long length) {
        this.chunks = List.copyOf(chunks);
        this.length = length;
    }

    long length() {
        return length;
    }

    void writeTo(OutputStream out) throws IOException {
        for (byte[] chunk : chunks) {
            out.write(chunk);
        }
    }

    /** Collects a body; {@link #body()} after {@link #close()}. */
    static final class Writer extends OutputStream {
        private final List<byte[]> chunks = new ArrayList<>();
        private byte[] current;
        private int used;
        private long length;
        private boolean closed;

        Writer() {
            this(0);
        }

        /**
         * @param expectedLength the length a body of this kind had last time: the first array is
         *                       made that large (up to a chunk), so a body like the last one is
         *                       written without growing and copying its array
         */
        Writer(long expectedLength) {
            current = new byte[(int) Math.clamp(expectedLength + expectedLength / 16, 64 * 1024, CHUNK)];
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int count) {
            if (closed) {
                throw new IllegalStateException("the body is complete");
            }
            while (count > 0) {
                if (used == current.length) {
                    grow();
                }
                int taken = Math.min(count, current.length - used);
                System.arraycopy(bytes, offset, current, used, taken);
                used += taken;
                offset += taken;
                count -= taken;
                length += taken;
            }
        }

        /** Small bodies stay in one small array; past that, full chunks are kept as they are. */
        private void grow() {
            if (current.length < CHUNK) {
                current = java.util.Arrays.copyOf(current, Math.min(CHUNK, current.length * 4));
            } else {
                chunks.add(current);
                current = new byte[CHUNK];
                used = 0;
            }
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                chunks.add(used == current.length ? current : java.util.Arrays.copyOf(current, used));
                current = null;
            }
        }

        Body body() {
            if (!closed) {
                throw new IllegalStateException("the body is still being written");
            }
            return new Body(chunks, length);
        }
    }
}
