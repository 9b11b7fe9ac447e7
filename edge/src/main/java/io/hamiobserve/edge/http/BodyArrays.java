package io.hamiobserve.edge.http;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Arrays of bodies no scrape reads any more, handed to the next bodies. A source collected at
 * every scrape (the node's usage view) renders a body as large as the last one each time: with
 * the last one's arrays it allocates none (1.16 MiB per scrape at 8 cards and 200 containers).
 *
 * <p>An array is given back only when no scrape can read it again ({@link Renderings} counts the
 * scrapes of a generation; the HTTP edge writes synchronously, so an array is not read after the
 * response's stream is closed). At most {@link #capacity} bytes are kept; beyond that, the
 * oldest arrays are left to the collector.
 */
final class BodyArrays {
    /** Kept at most: the node's largest body (16 cards, 500 containers: 2.9 MB) in two variants. */
    static final long DEFAULT_CAPACITY = 8L << 20;

    /** New arrays of a pool that keeps some are a multiple of this long. */
    static final int GRANULE = 16 * 1024;

    private final long capacity;
    private final ArrayDeque<byte[]> kept = new ArrayDeque<>();
    private long keptBytes;
    private long reused;

    BodyArrays(long capacity) {
        this.capacity = capacity;
    }

    /** A pool that keeps nothing: every array is new. */
    static BodyArrays none() {
        return new BodyArrays(0);
    }

    /**
     * An array at least {@code wanted} bytes long and at most twice that (a small gzip body does not
     * take a large plain-text body's array); a new one when none is kept, rounded up to a
     * {@link #GRANULE} unless this pool keeps nothing. Its content is undefined.
     */
    synchronized byte[] take(int wanted) {
        byte[] best = null;
        for (byte[] array : kept) {
            if (array.length >= wanted && array.length / 2 <= wanted && (best == null || array.length < best.length)) {
                best = array;
            }
        }
        if (best == null) {
            // Rounded up, so that the next body, a few bytes longer than this one, still fits in it.
            return new byte[capacity == 0 ? wanted : (int) Math.min(Integer.MAX_VALUE - 8,
                    (wanted + (long) GRANULE - 1) / GRANULE * GRANULE)];
        }
        removeIdentical(best);
        keptBytes -= best.length;
        reused++;
        return best;
    }

    /** Keeps an array for a later body; the caller must not read or write it any more. */
    synchronized void giveBack(byte[] array) {
        if (array.length == 0 || array.length > capacity) {
            return;
        }
        kept.addLast(array);
        keptBytes += array.length;
        while (keptBytes > capacity) {
            keptBytes -= kept.removeFirst().length;
        }
    }

    /** How many arrays were taken from those kept rather than made. */
    synchronized long reused() {
        return reused;
    }

    /** Bytes kept now. */
    synchronized long keptBytes() {
        return keptBytes;
    }

    private void removeIdentical(byte[] array) {
        for (Iterator<byte[]> it = kept.iterator(); it.hasNext(); ) {
            if (it.next() == array) {
                it.remove();
                return;
            }
        }
    }
}
