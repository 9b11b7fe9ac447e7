package io.hamiobserve.adapters.cachefile;

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
