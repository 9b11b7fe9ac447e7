package io.hamiobserve.adapters.cachefile;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Positional reads from a cache file's bytes. Files are read with positional reads, never
 * memory-mapped: a mapped file truncated by its writer faults the reading JVM, a short read does not.
 */
interface ByteSource {
    /** The current size in bytes. */
    long size() throws IOException;

    /** Reads into {@code dst} from {@code position}; returns bytes read, or -1 at end of data. */
    int read(ByteBuffer dst, long position) throws IOException;

    /** Fills {@code into} from {@code position}; a file that ends first has shrunk while it was read. */
    default void readFully(ByteBuffer into, long position) throws IOException {
        int wanted = into.remaining();
        long at = position;
        while (into.hasRemaining()) {
            int n = read(into, at);
            if (n <= 0) {
                throw new EOFException("ended at byte " + at + " while " + wanted + " bytes from " + position
                        + " were expected: the file shrank while it was read");
            }
            at += n;
        }
    }

    /** A file whose size is known already (its descriptor's inode was just stat'ed through its path). */
    static ByteSource of(FileChannel channel, long size) {
        return new ByteSource() {
            @Override
            public long size() {
                return size;
            }

            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                return channel.read(dst, position);
            }
        };
    }

    static ByteSource of(FileChannel channel) {
        return new ByteSource() {
            @Override
            public long size() throws IOException {
                return channel.size();
            }

            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                return channel.read(dst, position);
            }
        };
    }
}
