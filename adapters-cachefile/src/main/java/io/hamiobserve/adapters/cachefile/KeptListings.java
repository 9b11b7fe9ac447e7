package io.hamiobserve.adapters.cachefile;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Directory listings kept from one scrape to the next, each with the {@link DirectoryStamp} the
 * directory had when it was listed. A directory whose {@code lstat} shows the same identity and
 * change time is not listed again (the JDK's listing costs eight system calls and a path per
 * entry); any other is. Only listings of settled directories are kept, none older than
 * {@link #maxAgeNanos} (a file system whose change times do not move, a clock set back: the
 * listing is redone at least that often), and only those that reported nothing skipped. What a
 * listing names is read as before: each file is still checked before and after it is read.
 *
 * <p>At most {@link #MAX_KEPT} listings; a directory not looked at in a pass is dropped at its
 * {@link #sweep()}. Not thread-safe: owned by one reader.
 */
final class KeptListings {
    static final int MAX_KEPT = 4096;
    /** Listings are redone at least this often. */
    static final long MAX_AGE_NANOS = 60_000_000_000L;

    private static final class Kept {
        final DirectoryStamp stamp;
        final List<Path> entries;
        final long listedAtNanos;
        long pass;

        Kept(DirectoryStamp stamp, List<Path> entries, long listedAtNanos, long pass) {
            this.stamp = stamp;
            this.entries = entries;
            this.listedAtNanos = listedAtNanos;
            this.pass = pass;
        }
    }

    private final Map<Path, Kept> kept = new HashMap<>();
    private final long maxAgeNanos;
    private long pass;
    private long reused;

    KeptListings() {
        this(MAX_AGE_NANOS);
    }

    KeptListings(long maxAgeNanos) {
        this.maxAgeNanos = maxAgeNanos;
    }

    /** The entries listed for {@code directory} when it still has {@code now}'s stamp; null when it must be listed. */
    List<Path> entries(Path directory, DirectoryStamp now) {
        Kept found = kept.get(directory);
        if (found == null) {
            return null;
        }
        if (!now.sameAs(found.stamp) || System.nanoTime() - found.listedAtNanos >= maxAgeNanos) {
            kept.remove(directory);
            return null;
        }
        found.pass = pass;
        reused++;
        return found.entries;
    }

    /**
     * Keeps what {@code directory} listed when it had {@code stamp} (taken before listing), if it had
     * settled; {@code entries} must not be changed afterwards.
     */
    void keep(Path directory, DirectoryStamp stamp, List<Path> entries, long listedAtNanos) {
        if (!stamp.settled() || kept.size() >= MAX_KEPT && !kept.containsKey(directory)) {
            kept.remove(directory);
            return;
        }
        kept.put(directory, new Kept(stamp, List.copyOf(entries), listedAtNanos, pass));
    }

    /** Ends a pass: drops the listings of directories not looked at in it. */
    void sweep() {
        for (Iterator<Kept> it = kept.values().iterator(); it.hasNext(); ) {
            if (it.next().pass != pass) {
                it.remove();
            }
        }
        pass++;
    }

    /** Listings served from those kept rather than listed. */
    long reused() {
        return reused;
    }

    int size() {
        return kept.size();
    }
}
