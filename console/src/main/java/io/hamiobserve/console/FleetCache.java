package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.AccrualHistory;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Answers of the fleet's history kept for a while and shared by concurrent requests: ten users
 * opening the overview at once cost Prometheus one set of queries, not ten.
 *
 * <p>An answer younger than its freshness is served as it is: {@code fresh} for the fleet now (a
 * few seconds: the exporters' figures change at each scrape), a minute for summaries over a
 * window (a minute more of a 14-day window changes nothing). An older answer, up to ten times its
 * freshness, is served at once while a fresh one is fetched in the background
 * (stale-while-revalidate): at 10,000 containers a fleet-wide read takes seconds, and a person
 * clicking through the pages should not wait for it each time. Older than that, the request
 * waits for a fresh answer. A failure is not kept: the next request asks again.
 *
 * <p>The console's background refresh reads through {@link #renewing}: its reads always ask
 * Prometheus, the answer replaces the kept one only once it has arrived (visitors are served the
 * previous one meanwhile), and it is kept as fresh for as long as the refresh promises, so a
 * visitor never starts a fleet-wide read of their own.
 */
final class FleetCache {
    private static final int MAX_ENTRIES = 256;
    private static final int STALE_FACTOR = 10;
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(FleetCache.class.getName());

    private final FleetHistory history;
    private final Duration fresh;
    private final Map<Object, Entry> entries;
    /** For the background refresh's view: how long its answers are kept fresh; null for visitors' reads. */
    private final Duration renewedKeep;

    /** An answer (or one being fetched), when it was asked for, and whether a refresh is under way. */
    private record Entry(long asked, Duration keep, CompletableFuture<Object> answer,
                         java.util.concurrent.atomic.AtomicBoolean refreshing) {
        boolean fresh(long now) {
            return now - asked < keep.toNanos();
        }

        boolean usable(long now) {
            return now - asked < keep.toNanos() * STALE_FACTOR && answer.isDone() && !answer.isCompletedExceptionally();
        }
    }

    private interface Call<T> {
        T get() throws SourceUnavailableException;
    }

    FleetCache(FleetHistory history, Duration fresh) {
        this(history, fresh, new ConcurrentHashMap<>(), null);
    }

    private FleetCache(FleetHistory history, Duration fresh, Map<Object, Entry> entries, Duration renewedKeep) {
        this.history = history;
        this.fresh = fresh;
        this.entries = entries;
        this.renewedKeep = renewedKeep;
    }

    /**
     * The same cache as the background refresh reads it: every read asks Prometheus again (or
     * joins a read already under way), and its answer, once arrived, replaces the kept one and
     * stays fresh for {@code keep}.
     */
    FleetCache renewing(Duration keep) {
        return new FleetCache(history, fresh, entries, keep);
    }

    FleetHistory history() {
        return history;
    }

    FleetState state(Instant at, FleetScope scope) throws SourceUnavailableException {
        return cached(List.of("state", scope), fresh, at, when -> FleetState.of(history.readings(when, scope)));
    }

    UsageHistory usage(Instant at, Duration window, Duration settledAfter, FleetScope scope)
            throws SourceUnavailableException {
        return cached(List.of("usage", window, settledAfter, scope), longer(), at,
                when -> history.usage(when, window, settledAfter, scope));
    }

    AccrualHistory accruals(Instant at, Duration window) throws SourceUnavailableException {
        return cached(List.of("accruals", window), longer(), at, when -> history.accruals(when, window));
    }

    TrendSet trends(TrendScope scope, Instant end, Duration range, Duration step) throws SourceUnavailableException {
        Duration keep = step.compareTo(fresh) > 0 ? step : fresh;
        return cached(List.of("trends", scope, range, step), keep.compareTo(longer()) > 0 ? longer() : keep, end,
                when -> history.trends(scope, when, range, step));
    }

    private Duration longer() {
        return fresh.compareTo(Duration.ofMinutes(1)) > 0 ? fresh : Duration.ofMinutes(1);
    }

    /** A read of the history, run ahead of the page that needs it. */
    interface Read {
        void run() throws SourceUnavailableException;
    }

    /**
     * Starts {@code read} now, on its own thread, so a page's independent reads (the fleet now, a
     * window's summary, a trend) reach Prometheus together; the page's own call then joins the
     * answer in flight. A failure is the page's own call's to report.
     */
    void ahead(Read read) {
        Thread.ofVirtual().start(() -> {
            try {
                read.run();
            } catch (SourceUnavailableException | RuntimeException reportedByThePage) {
                LOG.log(java.util.logging.Level.FINE, "a read ahead failed", reportedByThePage);
            }
        });
    }

    /** Runs {@code reads} together, each on its own thread, and waits for all; throws the first failure. */
    void all(List<Read> reads) throws SourceUnavailableException {
        List<CompletableFuture<Void>> running = new java.util.ArrayList<>();
        for (Read read : reads) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    read.run();
                    done.complete(null);
                } catch (SourceUnavailableException | RuntimeException failed) {
                    done.completeExceptionally(failed);
                }
            });
            running.add(done);
        }
        for (CompletableFuture<Void> done : running) {
            join(done);
        }
    }

    private interface Timed<T> {
        T at(Instant when) throws SourceUnavailableException;
    }

    @SuppressWarnings("unchecked")
    private <T> T cached(Object key, Duration keep, Instant at, Timed<T> call) throws SourceUnavailableException {
        if (renewedKeep != null) {
            return renewed(key, at, call);
        }
        long now = System.nanoTime();
        Entry mine = new Entry(now, keep, new CompletableFuture<>(), new java.util.concurrent.atomic.AtomicBoolean());
        // An answer still being fetched is joined, however old the request that asked for it.
        Entry entry = entries.compute(key, (k, old) -> old != null
                && (!old.answer().isDone() || old.fresh(now) || old.usable(now)) ? old : mine);
        if (entry == mine) {
            trim(now);
            fetch(key, mine, at, call);
        } else if (!entry.fresh(now) && entry.refreshing().compareAndSet(false, true)) {
            // Serve the older answer now; fetch the next one without keeping anyone waiting.
            Entry next = new Entry(now, keep, new CompletableFuture<>(), new java.util.concurrent.atomic.AtomicBoolean());
            Thread.ofVirtual().start(() -> {
                fetch(key, next, at, call);
                if (next.answer().isDone() && !next.answer().isCompletedExceptionally()) {
                    entries.replace(key, entry, next);
                } else {
                    entry.refreshing().set(false);
                }
            });
        }
        return (T) join(entry.answer());
    }

    @SuppressWarnings("unchecked")
    private <T> T renewed(Object key, Instant at, Timed<T> call) throws SourceUnavailableException {
        Entry next = new Entry(System.nanoTime(), renewedKeep, new CompletableFuture<>(),
                new java.util.concurrent.atomic.AtomicBoolean());
        // Nothing kept (or a failure): requests join this read. A read under way: join it.
        Entry entry = entries.compute(key, (k, old) -> old == null || old.answer().isCompletedExceptionally()
                || (old.answer().isDone() && !old.usable(System.nanoTime())) ? next : old);
        if (entry == next) {
            fetch(key, next, at, call);
        } else if (entry.answer().isDone()) {
            // The kept answer is served until this one has arrived.
            fetch(null, next, at, call);
            if (!next.answer().isCompletedExceptionally()) {
                entries.put(key, next);
            }
            entry = next;
        }
        return (T) join(entry.answer());
    }

    /** The answer, or the failure that ended it as the caller would have thrown it. */
    private static Object join(CompletableFuture<?> answer) throws SourceUnavailableException {
        try {
            return answer.join();
        } catch (CompletionException failed) {
            if (failed.getCause() instanceof SourceUnavailableException unavailable) {
                throw new SourceUnavailableException(unavailable.getMessage(), unavailable);
            }
            if (failed.getCause() instanceof RuntimeException bug) {
                throw bug;
            }
            throw failed;
        }
    }

    private <T> void fetch(Object key, Entry entry, Instant at, Timed<T> call) {
        try {
            entry.answer().complete(call.at(at));
        } catch (SourceUnavailableException | RuntimeException failed) {
            if (key != null) {
                entries.remove(key, entry);
            }
            entry.answer().completeExceptionally(failed);
            LOG.log(java.util.logging.Level.FINE, "fetching " + key + " failed", failed);
        }
    }

    private void trim(long now) {
        if (entries.size() > MAX_ENTRIES) {
            entries.values().removeIf(entry -> !entry.usable(now) && !entry.fresh(now));
            if (entries.size() > MAX_ENTRIES) {
                entries.clear();
            }
        }
    }
}
