package io.hamiobserve.adapters.cachefile;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Cache files' channels kept open from one scrape to the next, each with the file identity
 * ({@code lstat}'s file key: device and inode) it was opened under. A file read every few seconds
 * then costs no {@code open}, {@code fstat} and {@code close} while it stays the same file.
 *
 * <p>An open channel holds its inode, so the inode cannot be freed and its number reused: a path
 * whose {@code lstat} still shows the kept key names the very file the channel reads. A path
 * showing another key (replaced), or gone, or not read in a pass (its directory left), has its
 * channel closed. At most {@link #MAX_KEPT} channels are kept; files past that are opened and
 * closed at each read, as without keeping. Not thread-safe: owned by one reader.
 */
final class KeptChannels implements AutoCloseable {
    /** Channels kept at most: one descriptor each. */
    static final int MAX_KEPT = 4096;

    private record Kept(Object fileKey, FileChannel channel, long pass) {
    }

    private final Map<Path, Kept> kept = new HashMap<>();
    private long pass;

    /**
     * The channel kept for {@code path} when it was opened under {@code fileKey}, taken out until
     * {@link #keep given back}; null when there is none. A channel kept under another key is closed.
     */
    FileChannel take(Path path, Object fileKey) {
        Kept found = kept.remove(path);
        if (found == null) {
            return null;
        }
        if (fileKey != null && fileKey.equals(found.fileKey())) {
            return found.channel();
        }
        closeQuietly(found.channel());
        return null;
    }

    /** Keeps {@code channel}, opened under {@code fileKey}, for the next pass; closes it when full. */
    void keep(Path path, Object fileKey, FileChannel channel) {
        if (fileKey == null || kept.size() >= MAX_KEPT) {
            closeQuietly(channel);
            return;
        }
        Kept previous = kept.put(path, new Kept(fileKey, channel, pass));
        if (previous != null && previous.channel() != channel) {
            closeQuietly(previous.channel());
        }
    }

    /** Ends a pass over the files: closes the channels of files not read in it. */
    void sweep() {
        for (Iterator<Kept> it = kept.values().iterator(); it.hasNext(); ) {
            Kept entry = it.next();
            if (entry.pass() != pass) {
                closeQuietly(entry.channel());
                it.remove();
            }
        }
        pass++;
    }

    int size() {
        return kept.size();
    }

    @Override
    public void close() {
        kept.values().forEach(entry -> closeQuietly(entry.channel()));
        kept.clear();
    }

    static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // Closing a read-only descriptor loses nothing; the descriptor is released either way.
        }
    }
}
