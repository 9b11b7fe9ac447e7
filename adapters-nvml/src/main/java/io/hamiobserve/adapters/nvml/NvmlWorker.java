package io.hamiobserve.adapters.nvml;

import io.hamiobserve.ports.SourceUnavailableException;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one thread every NVML call of a source runs on, and how long a caller waits for it.
 *
 * <p>Why: an NVML call can block for seconds (a card falling off the bus, a driver reset). A
 * caller waits at most the timeout for a run; if NVML has not answered, the caller's read fails
 * with {@link SourceUnavailableException} and no stale figures are served. While that call is
 * still stuck, later reads fail at once without queueing more work, so exactly one thread is ever
 * blocked in the driver. Callers that arrive while a run is in progress share its result.
 *
 * @param <T> what one run produces
 */
final class NvmlWorker<T> {
    private static final System.Logger LOG = System.getLogger(NvmlWorker.class.getName());
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final long timeoutNanos;
    private final ExecutorService thread;

    // Callers' side, guarded by this.
    private Future<T> inFlight;
    private long inFlightSince;
    private boolean closed;

    // Written by the worker, read by callers for the timeout message.
    private volatile String currentCall = "nothing";
    private volatile int currentCard = -1;

    NvmlWorker(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
        this.thread = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon()
                .name("nvml-reader-" + SEQUENCE.incrementAndGet()).factory());
    }

    /** Starts a run now, without waiting: the first caller then shares it instead of paying for it. */
    synchronized void prefetch(Callable<T> run) {
        inFlight = thread.submit(run);
        inFlightSince = System.nanoTime();
    }

    /** The result of a fresh run, or of the one in progress; fails when NVML does not answer in time. */
    T get(Callable<T> run) throws SourceUnavailableException {
        Future<T> running;
        long deadline;
        synchronized (this) {
            if (closed) {
                throw new SourceUnavailableException("NVML source is closed");
            }
            long now = System.nanoTime();
            if (inFlight != null && !inFlight.isDone()) {
                if (now - inFlightSince >= timeoutNanos) {
                    throw new SourceUnavailableException("NVML has not answered for "
                            + TimeUnit.NANOSECONDS.toMillis(now - inFlightSince) + " ms (stuck in " + stuckIn()
                            + "); card readings are left out until it returns");
                }
            } else {
                inFlight = thread.submit(run);
                inFlightSince = now;
            }
            running = inFlight;
            deadline = inFlightSince + timeoutNanos;
        }
        try {
            return running.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException slow) {
            String message = "NVML did not answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                    + " ms (stuck in " + stuckIn() + "); card readings are left out until it returns";
            LOG.log(System.Logger.Level.WARNING, message);
            throw new SourceUnavailableException(message);
        } catch (ExecutionException failed) {
            throw new SourceUnavailableException("NVML read failed: " + failed.getCause(), failed.getCause());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new SourceUnavailableException("interrupted while waiting for NVML", interrupted);
        }
    }

    /** On the worker: the NVML call about to be made, and on which card (-1: none), for a timeout's message. */
    void entering(String call, int card) {
        currentCall = call;
        currentCard = card;
    }

    private String stuckIn() {
        int card = currentCard;
        return card < 0 ? currentCall : currentCall + " on card " + card;
    }

    /**
     * Refuses further runs and runs {@code last} on the worker (NVML's shutdown), waiting for it at
     * most the timeout. Queued behind a stuck call it still runs once the call returns; the thread
     * is a daemon, so it never holds up the exit.
     */
    void close(Runnable last) {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        Future<?> done = thread.submit(last);
        thread.shutdown();
        try {
            done.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException notDone) {
            LOG.log(System.Logger.Level.WARNING, "NVML shutdown did not complete: " + notDone);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
