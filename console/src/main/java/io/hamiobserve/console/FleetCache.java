package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.AccrualHistory;
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
 * Answers of the fleet's history kept for a short while and shared by concurrent requests: ten
 * users opening the overview at once cost Prometheus one set of queries, not ten. The fleet now
 * is kept for {@code fresh} (a few seconds: the exporters' figures change at each scrape);
 * summaries over a window for a minute (an extra minute of a 14-day window changes nothing).
 * A failure is not kept: the next request asks again.
 */
final class FleetCache {
    private static final int MAX_ENTRIES = 256;

    private final FleetHistory history;
    private final Duration fresh;
    private final Map<Object, Entry> entries = new ConcurrentHashMap<>();

    private record Entry(long expires, CompletableFuture<Object> answer) {
    }

    private interface Call<T> {
        T get() throws SourceUnavailableException;
    }

    FleetCache(FleetHistory history, Duration fresh) {
        this.history = history;
        this.fresh = fresh;
    }

    FleetHistory history() {
        return history;
    }

    FleetState state(Instant at) throws SourceUnavailableException {
        return cached(List.of("state"), fresh, () -> FleetState.of(history.readings(at)));
    }

    UsageHistory usage(Instant at, Duration window, Duration settledAfter) throws SourceUnavailableException {
        return cached(List.of("usage", window, settledAfter), longer(), () -> history.usage(at, window, settledAfter));
    }

    AccrualHistory accruals(Instant at, Duration window) throws SourceUnavailableException {
        return cached(List.of("accruals", window), longer(), () -> history.accruals(at, window));
    }

    TrendSet trends(TrendScope scope, Instant end, Duration range, Duration step) throws SourceUnavailableException {
        Duration keep = step.compareTo(fresh) > 0 ? step : fresh;
        return cached(List.of("trends", scope, range, step), keep.compareTo(longer()) > 0 ? longer() : keep,
                () -> history.trends(scope, end, range, step));
    }

    private Duration longer() {
        return fresh.compareTo(Duration.ofMinutes(1)) > 0 ? fresh : Duration.ofMinutes(1);
    }

    @SuppressWarnings("unchecked")
    private <T> T cached(Object key, Duration keep, Call<T> call) throws SourceUnavailableException {
        long now = System.nanoTime();
        CompletableFuture<Object> mine = new CompletableFuture<>();
        Entry fresh = new Entry(now + keep.toNanos(), mine);
        Entry entry = entries.compute(key, (k, old) -> old != null && old.expires() - now > 0 ? old : fresh);
        if (entry == fresh) {
            trim(now);
            try {
                mine.complete(call.get());
            } catch (SourceUnavailableException | RuntimeException failed) {
                entries.remove(key, entry);
                mine.completeExceptionally(failed);
            }
        }
        try {
            return (T) entry.answer().join();
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

    private void trim(long now) {
        if (entries.size() > MAX_ENTRIES) {
            entries.values().removeIf(entry -> entry.expires() - now <= 0);
            if (entries.size() > MAX_ENTRIES) {
                entries.clear();
            }
        }
    }
}
