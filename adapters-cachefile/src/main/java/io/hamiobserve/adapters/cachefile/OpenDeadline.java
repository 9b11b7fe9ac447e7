package io.hamiobserve.adapters.cachefile;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Opens cache files for reading on threads of its own, and stops waiting for an open after a
 * deadline.
 *
 * <p>Java has no non-blocking {@code open}, and {@code open(2)} of a FIFO for reading waits until a
 * writer opens it: the writer is whoever made the FIFO. {@link ChangingFile} opens only paths that
 * {@code lstat} has just shown to be regular files, but a tenant who swaps its cache file for a FIFO
 * between that {@code lstat} and the open would hold the open, and the scrape with it, for as long
 * as it liked. So the open runs on an opener thread, and the reader waits for it at most the
 * deadline, then skips the file ({@code open_blocked}).
 *
 * <p>An open left behind keeps its thread until it returns (no Java thread can interrupt a blocked
 * {@code open}); its channel is then closed. Until then its directory (one container's, the tenant's
 * own) is skipped at once, the same path and any other in it, without a thread of its own. At most
 * {@link #MAX_LEFT_BEHIND} opens are left behind in the process, so a tenant costs the node at most
 * that many threads; past that, every open is skipped until one returns. Thread-safe.
 */
final class OpenDeadline {
    /**
     * How long a reader waits for an open. A local open returns in microseconds; the rest is room
     * for the opener thread to be scheduled on a loaded node, or to wait out a pause of the JVM's.
     */
    static final Duration DEADLINE = Duration.ofMillis(250);
    /** Opens left behind at most, each holding one thread. */
    static final int MAX_LEFT_BEHIND = 32;
    /**
     * The process's: opens left behind hold the process's threads, whichever reader started them,
     * and a directory with one is skipped by every reader.
     */
    static final OpenDeadline SHARED = new OpenDeadline(DEADLINE, MAX_LEFT_BEHIND);

    /** An open not waited for: it did not return within the deadline, or an earlier one has not. */
    static final class OpenBlockedException extends IOException {
        OpenBlockedException(String message) {
            super(message);
        }
    }

    private final long deadlineNanos;
    private final int maxLeftBehind;
    /** Threads as needed, each kept 30 s idle: busy ones are the opens under way and those left behind. */
    private final ExecutorService openers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), OpenDeadline::opener);
    /** Each directory with an open left behind, and that open. */
    private final ConcurrentMap<Path, CompletableFuture<FileChannel>> leftBehind = new ConcurrentHashMap<>();
    private final AtomicInteger leftBehindCount = new AtomicInteger();

    OpenDeadline(Duration deadline, int maxLeftBehind) {
        this.deadlineNanos = deadline.toNanos();
        this.maxLeftBehind = maxLeftBehind;
    }

    private static Thread opener(Runnable task) {
        Thread thread = new Thread(task, "hami-observe-cachefile-open");
        thread.setDaemon(true);
        return thread;
    }

    /**
     * Opens {@code path} for reading, never following a symbolic link ({@code O_NOFOLLOW}), as
     * {@link FileChannel#open} would, waiting at most the deadline.
     *
     * @throws OpenBlockedException when the open did not return in time, or was not tried because
     *                              an open left behind blocks its directory or the process's limit
     */
    FileChannel open(Path path) throws IOException {
        Path directory = path.toAbsolutePath().getParent();
        if (leftBehind.containsKey(directory)) {
            throw new OpenBlockedException("an earlier open in " + directory.getFileName() + " has not returned (a FIFO?)");
        }
        if (leftBehindCount.get() >= maxLeftBehind) {
            throw new OpenBlockedException(maxLeftBehind + " opens have not returned; no thread for another");
        }
        // Never rejected: the pool has no bound of its own and is never shut down; the limit above bounds it.
        CompletableFuture<FileChannel> opening = CompletableFuture.supplyAsync(() -> openNow(path), openers);
        try {
            return opening.get(deadlineNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            leaveBehind(directory, opening);
            throw new OpenBlockedException("open did not return within " + TimeUnit.NANOSECONDS.toMillis(deadlineNanos)
                    + " ms: not a regular file any more (a FIFO?)");
        } catch (InterruptedException e) {
            leaveBehind(directory, opening);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while opening " + path);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof UncheckedIOException unchecked ? unchecked.getCause() : e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(cause);
        }
    }

    private static FileChannel openNow(Path path) {
        try {
            // NOFOLLOW_LINKS (O_NOFOLLOW) closes the window where a symlink replaces the file after the check.
            return FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void leaveBehind(Path directory, CompletableFuture<FileChannel> opening) {
        leftBehindCount.incrementAndGet();
        leftBehind.put(directory, opening);
        // Runs when the open returns, at once if it has meanwhile: nobody reads that channel.
        opening.whenComplete((channel, failure) -> {
            if (channel != null) {
                KeptChannels.closeQuietly(channel);
            }
            leftBehind.remove(directory, opening);
            leftBehindCount.decrementAndGet();
        });
    }

    /** Opens left behind that have not returned yet. */
    int leftBehind() {
        return leftBehindCount.get();
    }
}
