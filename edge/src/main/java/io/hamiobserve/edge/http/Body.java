package io.hamiobserve.edge.http;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A rendered response body, kept as chunks of at most {@link #CHUNK} bytes. A large exposition
 * (68 MB at 100,000 containers) then costs its own size in memory while it is written and kept:
 * a growing array would briefly hold up to three times that (the doubled array, and its copy).
 * Immutable once {@link Writer#close() closed}, until {@link #release() released}: its arrays then
 * go to the {@link BodyArrays} they came from, for a later body.
 */
final class Body {
    static final int CHUNK = 1 << 20;
    /** The smallest array a body is written into. */
    static final int MIN_ARRAY = 64 * 1024;

    private final List<byte[]> chunks;
    /** Bytes used of the last chunk, which may be longer. */
    private final int lastUsed;
    private final long length;
    private final BodyArrays arrays;
    private volatile boolean released;

    private Body(List<byte[]> chunks, int lastUsed, long length, BodyArrays arrays) {
        this.chunks = List.copyOf(chunks);
        this.lastUsed = lastUsed;
        this.length = length;
        this.arrays = arrays;
    }

    long length() {
        return length;
    }

    void writeTo(OutputStream out) throws IOException {
        if (released) {
            // A scrape must never send bytes another body may be overwriting: fail loudly instead.
            throw new IllegalStateException("the body was released");
        }
        int last = chunks.size() - 1;
        for (int i = 0; i < last; i++) {
            out.write(chunks.get(i));
        }
        out.write(chunks.get(last), 0, lastUsed);
    }

    /**
     * Gives the arrays back for later bodies. Called once no scrape can read this body any more;
     * a later {@link #writeTo} fails rather than send bytes another body may be writing.
     */
    void release() {
        if (!released) {
            released = true;
            chunks.forEach(arrays::giveBack);
        }
    }

    boolean released() {
        return released;
    }

    /** Arrays held, bytes: what the body costs while it is kept. */
    long capacity() {
        return chunks.stream().mapToLong(chunk -> chunk.length).sum();
    }

    /** Collects a body; {@link #body()} after {@link #close()}. */
    static final class Writer extends OutputStream {
        private final List<byte[]> chunks = new ArrayList<>();
        /** The length a body of this kind is expected to reach, with some room: the last one's plus 1/16. */
        private final long predicted;
        private final BodyArrays arrays;
        private byte[] current;
        private int used;
        private long length;
        private boolean closed;

        Writer() {
            this(0);
        }

        Writer(long expectedLength) {
            this(expectedLength, BodyArrays.none());
        }

        /**
         * @param expectedLength the length a body of this kind had last time: the first array is
         *                       made that large (up to a chunk), and the array after a full chunk
         *                       as large as the rest of it, so a body like the last one is written
         *                       without growing and copying an array or trimming a mostly empty one
         * @param arrays         where the arrays come from, and go back to when the body is released
         */
        Writer(long expectedLength, BodyArrays arrays) {
            this.arrays = arrays;
            predicted = expectedLength + expectedLength / 16;
            current = arrays.take((int) Math.clamp(predicted, MIN_ARRAY, CHUNK));
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

        /**
         * Small bodies stay in one array, grown up to a chunk; past that, full arrays are kept as
         * they are and the next one is made as large as the rest the last body predicts (a full
         * chunk once the body outgrows the prediction).
         */
        private void grow() {
            if (current.length < CHUNK && chunks.isEmpty() && length >= predicted) {
                current = java.util.Arrays.copyOf(current, Math.min(CHUNK, current.length * 4));
            } else {
                chunks.add(current);
                long rest = predicted - length;
                current = arrays.take(rest > 0 ? (int) Math.clamp(rest, MIN_ARRAY, CHUNK) : CHUNK);
                used = 0;
            }
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                // A last array at least half used is kept as it is; a mostly empty one is not held for the body's life.
                if (used < current.length / 2) {
                    byte[] mostlyEmpty = current;
                    current = java.util.Arrays.copyOf(current, used);
                    arrays.giveBack(mostlyEmpty);
                }
                chunks.add(current);
                current = null;
            }
        }

        Body body() {
            if (!closed) {
                throw new IllegalStateException("the body is still being written");
            }
            return new Body(chunks, used, length, arrays);
        }
    }
}
