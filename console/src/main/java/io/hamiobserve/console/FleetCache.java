package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.Stuck;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

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
 *
 * <p>Bounds, so that no visitor can empty it or wedge it: at most {@link #MAX_ENTRIES} answers are
 * kept; past that the least recently used answers of narrowed pages (a node, a card, a workload)
 * are dropped, never the background refresh's fleet-wide answers. A request waits for an answer in
 * flight at most {@code joinLimit} from when it came. A read in flight is joined, however long it
 * has taken, up to {@link #WEDGED_FACTOR} times the wait of whoever asked it: each of its queries
 * ends within its own time limits, but a read of several steps over weeks of an engine that is
 * busy takes longer than a page waits (15–40 s at three clusters on VictoriaMetrics,
 * docs/benchmarks.md), and asking it again beside itself would only double what the engine has
 * to do. A read in flight for longer than that is wedged: it is not joined but asked again, and
 * {@link #wedged} reports it, so readiness can. The last failure of each read is
 * kept until that read next succeeds, so a page can tell "old because a refresh failed" from "old
 * and being read again".
 */
final class FleetCache {
    static final int MAX_ENTRIES = 256;
    private static final int STALE_FACTOR = 10;
    /** How many of its asker's waits a read may be in flight before it is taken for wedged. */
    static final int WEDGED_FACTOR = 10;
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(FleetCache.class.getName());
    /** The reads of the request being served on this thread, for its banner. */
    private static final ThreadLocal<Set<Object>> TOUCHED = new ThreadLocal<>();

    private final FleetHistory history;
    private final Duration fresh;
    private final Duration joinLimit;
    /** How long a read this view asks may be in flight before it is taken for wedged. */
    private final Duration wedgedAfter;
    private final Map<Object, Entry> entries;
    /**
     * The keys the background refresh reads, never dropped to make room, each with how often the
     * round that last asked for it reads it (half the keep it asks for).
     */
    private final Map<Object, Duration> pinned;
    /** The last failure of each read, until it next succeeds. */
    private final Map<Object, Failure> failures;
    /** For the background refresh's view: how long its answers are kept fresh; null for visitors' reads. */
    private final Duration renewedKeep;
    /** For one cluster's pages, the fleet-wide answers kept that hold this cluster's; null otherwise. */
    private final Wider wider;
    /**
     * When a visitor last asked for each fleet-wide summary over a window (System.nanoTime()), by
     * its key: the background refresh goes on reading the windows in use ({@link #visitedUsage}).
     * At most one key per window the pages offer and read of it, so a few.
     */
    private final Map<Object, Long> visits;
    /**
     * For one cluster's pages, the fleet-wide readings kept last seen ({@link #state}), this
     * cluster's part of them (empty where they cannot be placed by cluster) and the fleet now of
     * each scope built from it: narrowed once per readings the background refresh keeps, not per
     * visit, whether or not they could be.
     */
    private final java.util.concurrent.atomic.AtomicReference<Narrowed> narrowed =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** The fleet-wide readings, this cluster's part of them, and the fleet now of each scope from that part. */
    private record Narrowed(FleetReadings whole, Optional<FleetReadings> ours, Map<FleetScope, FleetState> states) {
    }

    /** The key of the fleet-wide readings the background refresh keeps beside the fleet now it derives from them. */
    private static final Object READINGS = List.of("readings", FleetScope.EVERYTHING);

    /**
     * The fleet-wide cache of an engine that holds several clusters, and the cluster this cache's
     * history is narrowed to. A summary over a window that the fleet-wide cache keeps (the
     * background refresh reads it for every cluster at once, each figure by cluster) already holds
     * this cluster's figures: it is served narrowed here rather than asked again. On three clusters
     * of 10,000 containers in one VictoriaMetrics such a read costs the engine 15–24 CPU s and a
     * page's first visit 5–30 s (docs/benchmarks.md).
     */
    private record Wider(FleetCache whole, String cluster) {
    }

    /** A read that failed: when (wall clock), and why, naming the query. */
    record Failure(Instant at, String message) {
    }

    /**
     * An answer (or one being fetched), when it was asked for, how long it may be in flight before it
     * is taken for wedged, and whether a refresh is under way.
     */
    private record Entry(long asked, Duration keep, Duration wedgedAfter, CompletableFuture<Object> answer,
                         AtomicBoolean refreshing, AtomicLong used) {
        Entry(long asked, Duration keep, Duration wedgedAfter) {
            this(asked, keep, wedgedAfter, new CompletableFuture<>(), new AtomicBoolean(), new AtomicLong(asked));
        }

        boolean fresh(long now) {
            return now - asked < keep.toNanos();
        }

        boolean usable(long now) {
            return now - asked < keep.toNanos() * STALE_FACTOR && answer.isDone() && !answer.isCompletedExceptionally();
        }

        boolean wedged(long now) {
            return !answer.isDone() && now - asked > wedgedAfter.toNanos();
        }
    }

    FleetCache(FleetHistory history, Duration fresh) {
        this(history, fresh, Duration.ofSeconds(60));
    }

    /**
     * @param joinLimit how long a request waits for an answer in flight; {@link #WEDGED_FACTOR} times
     *                  it, the oldest read in flight a request joins
     */
    FleetCache(FleetHistory history, Duration fresh, Duration joinLimit) {
        this(history, fresh, joinLimit, joinLimit.multipliedBy(WEDGED_FACTOR), new ConcurrentHashMap<>(),
                new ConcurrentHashMap<>(), new ConcurrentHashMap<>(), null, null, new ConcurrentHashMap<>());
    }

    /**
     * The cache of one cluster's pages: reads of {@code history} (narrowed to {@code cluster}), and
     * the summaries over a window that {@code whole} keeps, narrowed to the cluster ({@link Wider}).
     */
    FleetCache(FleetHistory history, Duration fresh, Duration joinLimit, FleetCache whole, String cluster) {
        this(history, fresh, joinLimit, joinLimit.multipliedBy(WEDGED_FACTOR), new ConcurrentHashMap<>(),
                new ConcurrentHashMap<>(), new ConcurrentHashMap<>(), null,
                new Wider(java.util.Objects.requireNonNull(whole), java.util.Objects.requireNonNull(cluster)),
                new ConcurrentHashMap<>());
    }

    private FleetCache(FleetHistory history, Duration fresh, Duration joinLimit, Duration wedgedAfter,
                       Map<Object, Entry> entries, Map<Object, Duration> pinned, Map<Object, Failure> failures,
                       Duration renewedKeep, Wider wider, Map<Object, Long> visits) {
        this.history = history;
        this.fresh = fresh;
        this.joinLimit = joinLimit;
        this.wedgedAfter = wedgedAfter;
        this.entries = entries;
        this.pinned = pinned;
        this.failures = failures;
        this.renewedKeep = renewedKeep;
        this.wider = wider;
        this.visits = visits;
    }

    /**
     * The same cache as the background refresh reads it: every read asks Prometheus again (or
     * joins a read already under way), and its answer, once arrived, replaces the kept one and
     * stays fresh for {@code keep}; its keys are never dropped to make room.
     */
    FleetCache renewing(Duration keep) {
        return renewing(keep, joinLimit);
    }

    /**
     * {@link #renewing(Duration)}, its calls waiting for an answer up to {@code waitUpTo} rather
     * than as long as a page: for reads run apart from any page (the summaries' round), whose
     * caller bounds its own wait ({@link #await}). Its reads are taken for wedged no sooner than
     * this cache's, nor before {@code waitUpTo} has passed: until then pages join them.
     */
    FleetCache renewing(Duration keep, Duration waitUpTo) {
        return new FleetCache(history, fresh, waitUpTo, waitUpTo.compareTo(wedgedAfter) > 0 ? waitUpTo : wedgedAfter,
                entries, pinned, failures, keep, wider, visits);
    }

    FleetHistory history() {
        return history;
    }

    /**
     * The fleet now in {@code scope}. One cluster's pages are served every container's or every
     * card's view from the fleet-wide readings the background refresh keeps, narrowed to the
     * cluster ({@link FleetReadings#inCluster}), as they are their summaries: at three clusters of
     * 10,000 containers in one VictoriaMetrics, a cluster's overview read its own fleet now on its
     * first visit, 0.8–1.2 s (docs/benchmarks.md). Read narrowed by the source where nothing is
     * kept or the readings cannot be placed by cluster.
     */
    FleetState state(Instant at, FleetScope scope) throws SourceUnavailableException {
        long since = System.nanoTime();
        if (wider != null && (scope.equals(FleetScope.EVERYTHING) || scope.equals(FleetScope.CARDS_ONLY))) {
            // The readings are kept once the fleet-wide read of every container has arrived.
            awaitWholeInFlight(List.of("state", FleetScope.EVERYTHING), since);
            Optional<FleetReadings> whole = wider.whole().kept(READINGS, FleetReadings.class);
            if (whole.isPresent()) {
                Narrowed last = narrowed.get();
                if (last == null || last.whole() != whole.get()) {
                    last = new Narrowed(whole.get(), whole.get().inCluster(wider.cluster()), new ConcurrentHashMap<>());
                    narrowed.set(last);
                }
                if (last.ours().isPresent()) {
                    FleetReadings ours = last.ours().get();
                    return last.states().computeIfAbsent(scope, cards -> FleetState.of(
                            cards.equals(FleetScope.CARDS_ONLY) ? ours.cardsOnly() : ours));
                }
            }
        }
        return cached(List.of("state", scope), fresh, at, since,
                when -> FleetState.of(history.readings(when, scope)));
    }

    /**
     * The fleet now in both views the pages read — every container, and the cards with their
     * containers counted per node — from one read of every container: the cards' view is derived
     * from it ({@link io.hamiobserve.domain.fleet.FleetReadings#cardsOnly}) and kept as if read on
     * its own at the same instant, so the source is not asked for every card twice. A failure is
     * the cards' view's failure too: its page says so, as the read it stands for failed.
     */
    void fleetNow(Instant at) throws SourceUnavailableException {
        Object cardsKey = List.of("state", FleetScope.CARDS_ONLY);
        cached(List.of("state", FleetScope.EVERYTHING), fresh, at, when -> {
            io.hamiobserve.domain.fleet.FleetReadings readings;
            try {
                readings = history.readings(when, FleetScope.EVERYTHING);
            } catch (SourceUnavailableException | RuntimeException failed) {
                failures.put(cardsKey, new Failure(Instant.now(), String.valueOf(failed.getMessage())));
                throw failed;
            }
            keep(cardsKey, FleetState.of(readings.cardsOnly()));
            keep(READINGS, readings);
            return FleetState.of(readings);
        });
    }

    /** Marks {@code key} as read by this background round, at half the keep it asks for (its interval). */
    private void pin(Object key) {
        pinned.put(key, renewedKeep.dividedBy(2));
    }

    /** Keeps {@code answer} under {@code key} as a read of it that has just arrived. */
    private void keep(Object key, Object answer) {
        Entry entry = new Entry(System.nanoTime(), renewedKeep != null ? renewedKeep : fresh, wedgedAfter);
        entry.answer().complete(answer);
        if (renewedKeep != null) {
            pin(key);
        }
        entries.put(key, entry);
        failures.remove(key);
    }

    UsageHistory usage(Instant at, Duration window, Duration settledAfter, FleetScope scope)
            throws SourceUnavailableException {
        long since = System.nanoTime();
        Object key = usageKey(window, settledAfter, scope);
        if (scope.equals(FleetScope.EVERYTHING)) {
            visited(key);
            Optional<UsageHistory> narrowed = keptByWhole(key, UsageHistory.class, UsageHistory::inCluster, since);
            if (narrowed.isPresent()) {
                return narrowed.get();
            }
        }
        return cached(key, longer(), at, since, when -> history.usage(when, window, settledAfter, scope));
    }

    Stuck stuck(Instant at, Duration idleAfter) throws SourceUnavailableException {
        return cached(List.of("stuck", idleAfter), fresh, at, when -> history.stuck(when, idleAfter));
    }

    /** Card-hours over the {@code window} ending at {@code at} (showback, and the namespaces' bill), kept longer. */
    CardHours cardHours(Instant at, Duration window) throws SourceUnavailableException {
        long since = System.nanoTime();
        Object key = cardHoursKey(window);
        visited(key);
        Optional<CardHours> narrowed = keptByWhole(key, CardHours.class, CardHours::inCluster, since);
        if (narrowed.isPresent()) {
            return narrowed.get();
        }
        return cached(key, longer(), at, since, when -> history.cardHours(when.minus(window), when));
    }

    /**
     * Notes a visitor's read of a fleet-wide summary (not the background refresh's): on the
     * fleet-wide cache too for one cluster's pages, whose summaries it keeps for every cluster.
     */
    private void visited(Object key) {
        if (renewedKeep != null) {
            return;
        }
        Map<Object, Long> noted = fleetWide().visits;
        // The pages ask for the windows they offer only (a request names no other), so this holds
        // a few keys; the bound stands should a caller ever pass another.
        if (noted.size() >= MAX_ENTRIES && !noted.containsKey(key)) {
            noted.clear();
        }
        noted.put(key, System.nanoTime());
    }

    /**
     * The windows of each container's fleet-wide use, read with {@code settledAfter}, that a
     * visitor asked for within {@code within} of now (for one cluster's pages, of any cluster).
     */
    java.util.SortedSet<Duration> visitedUsage(Duration settledAfter, Duration within) {
        return visitedWindows(key -> key.size() == 4 && key.get(0).equals("usage") && key.get(2).equals(settledAfter)
                && key.get(3).equals(FleetScope.EVERYTHING), within);
    }

    /** The windows of the card-hours that a visitor asked for within {@code within} of now. */
    java.util.SortedSet<Duration> visitedCardHours(Duration within) {
        return visitedWindows(key -> key.size() == 2 && key.get(0).equals("cardHours"), within);
    }

    /**
     * How often the background refresh reads each container's fleet-wide use over {@code window}
     * (with {@code settledAfter}), as the round that last asked for it does; empty where no round
     * has. For one cluster's pages, the fleet-wide cache's.
     */
    Optional<Duration> usageRenewed(Duration window, Duration settledAfter) {
        return Optional.ofNullable(fleetWide().pinned.get(usageKey(window, settledAfter, FleetScope.EVERYTHING)));
    }

    /** How often the background refresh reads the card-hours over {@code window} (as {@link #usageRenewed}). */
    Optional<Duration> cardHoursRenewed(Duration window) {
        return Optional.ofNullable(fleetWide().pinned.get(cardHoursKey(window)));
    }

    private static List<Object> usageKey(Duration window, Duration settledAfter, FleetScope scope) {
        return List.of("usage", window, settledAfter, scope);
    }

    private static List<Object> cardHoursKey(Duration window) {
        return List.of("cardHours", window);
    }

    /** The cache whose answers hold every cluster's: this one, or for one cluster's pages the fleet-wide one. */
    private FleetCache fleetWide() {
        return wider == null ? this : wider.whole();
    }

    private java.util.SortedSet<Duration> visitedWindows(java.util.function.Predicate<List<?>> kind, Duration within) {
        long now = System.nanoTime();
        java.util.SortedSet<Duration> windows = new java.util.TreeSet<>();
        fleetWide().visits.forEach((key, when) -> {
            if (key instanceof List<?> parts && kind.test(parts) && now - when < within.toNanos()) {
                windows.add((Duration) parts.get(1));
            }
        });
        return windows;
    }

    /**
     * For one cluster's pages ({@link Wider}): the fleet-wide cache's answer kept for {@code key},
     * narrowed to the cluster by {@code narrowing}, once the fleet-wide read of it in flight has
     * arrived ({@link #awaitWholeInFlight}); empty elsewhere, where nothing is kept, or where the
     * answer cannot be narrowed.
     */
    private <T> Optional<T> keptByWhole(Object key, Class<T> type,
                                        java.util.function.BiFunction<T, String, Optional<T>> narrowing, long since)
            throws SourceUnavailableException {
        if (wider == null) {
            return Optional.empty();
        }
        awaitWholeInFlight(key, since);
        return wider.whole().kept(key, type).flatMap(whole -> narrowing.apply(whole, wider.cluster()));
    }

    /**
     * For one cluster's pages ({@link Wider}, which the callers have): where the fleet-wide cache's
     * read of {@code key} is in flight (not wedged), waits for it, no longer than a page waits from {@code since}, rather
     * than asking the cluster's own beside it. A console started moments ago is still making its
     * first fleet-wide reads (a week's card-hours, 14 days of use): at three clusters of 10,000
     * containers in one VictoriaMetrics, a cluster's page that read its own beside them, the
     * engine's query slots full, once answered 503 after 30 s, and its read only slowed theirs;
     * on a busy engine, five cluster pages visited right after ready took 24.3 s summed this way,
     * 10.3 s waiting (medians, docs/benchmarks.md). Returns once it has arrived, or once it has
     * failed (the cluster's own read follows, and reports its own failure); throws where the
     * page's wait has passed with the read still in flight.
     */
    private void awaitWholeInFlight(Object key, long since) throws SourceUnavailableException {
        Entry entry = wider.whole().entries.get(key);
        if (entry == null || entry.answer().isDone() || entry.wedged(System.nanoTime())) {
            return;
        }
        try {
            join(entry.answer(), since, () -> wider.whole().notArrived(
                    "the figures of every cluster, this one's among them,") + "; the page stopped waiting for them");
        } catch (SourceUnavailableException | RuntimeException failedOrLate) {
            if (!entry.answer().isCompletedExceptionally()) {
                throw failedOrLate;
            }
            LOG.log(java.util.logging.Level.FINE, "the fleet-wide read of " + key
                    + " failed; the cluster reads its own", failedOrLate);
        }
    }

    /**
     * The answer kept for {@code key} while this cache's visitors would still be served it (fresh,
     * or up to {@link #STALE_FACTOR} times its keep old), without reading anything (its own
     * visitors and the background refresh read it again). A page served from it says its instant
     * ("as of"), as the fleet-wide page does.
     */
    private <T> Optional<T> kept(Object key, Class<T> type) {
        Entry entry = entries.get(key);
        if (entry == null || !entry.usable(System.nanoTime())) {
            return Optional.empty();
        }
        entry.used().set(System.nanoTime());
        return Optional.of(type.cast(entry.answer().join()));
    }

    /**
     * A chart over {@code range} ending at {@code end}. Read again, only its steps since the kept
     * chart's last are asked for, with those that were still settling when it was read: each step of
     * a range query is evaluated on its own, so the older steps would come back the same. A day's
     * chart of 240 steps then costs Prometheus a step or two a refresh instead of 240.
     */
    TrendSet trends(TrendScope scope, Instant end, Duration range, Duration step) throws SourceUnavailableException {
        Duration keep = step.compareTo(fresh) > 0 ? step : fresh;
        Object key = List.of("trends", scope, range, step);
        KeptChart chart = cached(key, keep.compareTo(longer()) > 0 ? longer() : keep, end,
                when -> continued(key, scope, when, range, step));
        return chart.chart();
    }

    /**
     * How long after a step it may still gain samples: a scrape's samples are stamped at its start
     * and stored at its end (within its timeout, 10 s by default), and VictoriaMetrics leaves the
     * last 30 s out of its answers ({@code -search.latencyOffset}). Steps read within this of their
     * instant are read again. Each read of a chart's steps costs Prometheus a fixed part (its
     * series looked up and joined: about half a CPU second for the funnel's share sizes at
     * 10,000 shares) besides each step, so a step is read at most twice.
     */
    static final Duration SETTLING = Duration.ofMinutes(1);

    /** A chart, and the instant it was read at (which of its steps were still settling). */
    private record KeptChart(TrendSet chart, Instant readAt) {
    }

    private KeptChart continued(Object key, TrendScope scope, Instant when, Duration range, Duration step)
            throws SourceUnavailableException {
        TrendSet.Grid grid = TrendSet.Grid.of(when, range, step);
        long last = grid.at(grid.steps() - 1);
        Entry entry = entries.get(key);
        Object kept = entry == null || !entry.answer().isDone() || entry.answer().isCompletedExceptionally() ? null
                : entry.answer().getNow(null);
        if (kept instanceof KeptChart before && before.chart().step() == grid.step()
                && !when.isBefore(before.readAt()) && grid.first() <= before.chart().last()) {
            long settled = before.readAt().minus(SETTLING).getEpochSecond();
            long from = before.chart().last() + grid.step();
            for (long t = before.chart().start(); t <= before.chart().last(); t += grid.step()) {
                if (t > settled) {
                    from = t;
                    break;
                }
            }
            if (from > last) {
                return before;
            }
            TrendSet recent = history.trends(scope, when, Duration.ofSeconds(last - Math.max(from, grid.first())),
                    step);
            try {
                return new KeptChart(before.chart().continuedWith(grid, recent), when);
            } catch (IllegalArgumentException notOnTheGrid) {
                // A source whose answer is not on the grid asked for: read the whole range instead.
                LOG.log(java.util.logging.Level.FINE, "a chart's last steps did not continue it", notOnTheGrid);
            }
        }
        return new KeptChart(history.trends(scope, when, range, step), when);
    }

    private Duration longer() {
        return fresh.compareTo(Duration.ofMinutes(1)) > 0 ? fresh : Duration.ofMinutes(1);
    }

    /** Answers kept now (or in flight). */
    int size() {
        return entries.size();
    }

    /**
     * Records, until closed, which reads this thread's request makes (for {@link #failureOfThisRequest}).
     */
    AutoCloseable track() {
        TOUCHED.set(ConcurrentHashMap.newKeySet());
        return TOUCHED::remove;
    }

    /** The latest failure among the reads this thread's request made, if the last attempt of one failed. */
    Optional<Failure> failureOfThisRequest() {
        Set<Object> touched = TOUCHED.get();
        if (touched == null) {
            return Optional.empty();
        }
        return touched.stream().map(failures::get).filter(java.util.Objects::nonNull)
                .max(java.util.Comparator.comparing(Failure::at));
    }

    /**
     * Why reads are wedged: an answer in flight for longer than {@link #WEDGED_FACTOR} times its
     * asker's wait, which its queries' time limits would have ended.
     */
    Optional<String> wedged() {
        long now = System.nanoTime();
        List<Entry> stuck = entries.values().stream().filter(entry -> entry.wedged(now)).toList();
        if (stuck.isEmpty()) {
            return Optional.empty();
        }
        Duration shortest = stuck.stream().map(Entry::wedgedAfter).min(Duration::compareTo).orElseThrow();
        return Optional.of(stuck.size() + " read" + (stuck.size() == 1 ? " has" : "s have") + " been in flight to "
                + history.description() + " for more than " + shortest.toMillis() / 1000.0
                + " s: the console cannot answer pages in time");
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

    /** A read that answers, for {@link #within}. */
    interface Answer<T> {
        T get() throws SourceUnavailableException;
    }

    /**
     * {@code read}'s answer if it comes within {@code wait}; empty otherwise, the read going on on
     * its own thread and its answer kept when it arrives (each of this cache's reads keeps its
     * answer, whoever waits for it). For a part of a page that can say it is still being read
     * rather than hold the whole page: the overview's week of card-hours, which a console started
     * moments ago may still be reading (15–25 s at three clusters of 10,000 shares in one
     * VictoriaMetrics, docs/benchmarks.md). A failure within the wait is thrown as the read's own.
     */
    <T> Optional<T> within(Duration wait, Answer<T> read) throws SourceUnavailableException {
        CompletableFuture<T> answer = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                answer.complete(read.get());
            } catch (SourceUnavailableException | RuntimeException failed) {
                answer.completeExceptionally(failed);
            }
        });
        Object arrived = awaited(answer, wait.toNanos());
        return arrived == NOT_YET ? Optional.empty() : Optional.of(answer.join());
    }

    /**
     * Runs {@code reads} together, each on its own thread, and waits for all no longer than a page
     * waits from now (not a wait for each in turn); throws the first failure.
     */
    void all(List<Read> reads) throws SourceUnavailableException {
        long since = System.nanoTime();
        List<CompletableFuture<Void>> running = new java.util.ArrayList<>();
        for (Read read : reads) {
            running.add(start(List.of(read)));
        }
        for (CompletableFuture<Void> done : running) {
            join(done, since);
        }
    }

    /**
     * Starts {@code reads} now, each on its own thread, and returns what completes once all have
     * answered, or exceptionally with the first failure; nothing waits for it.
     */
    CompletableFuture<Void> start(List<Read> reads) {
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
        return CompletableFuture.allOf(running.toArray(CompletableFuture[]::new));
    }

    /**
     * Waits for {@code reads} (from {@link #start}) no longer than a page would; throws their first
     * failure, or, past that limit, that {@code what} has not arrived.
     */
    void await(CompletableFuture<Void> reads, String what) throws SourceUnavailableException {
        join(reads, System.nanoTime(), () -> notArrived(what));
    }

    /** That {@code what} has not arrived within the limit. */
    private String notArrived(String what) {
        return what + " asked of " + history.description() + " have not arrived after " + joinLimit.toMillis() / 1000.0
                + " s";
    }

    private interface Timed<T> {
        T at(Instant when) throws SourceUnavailableException;
    }

    private <T> T cached(Object key, Duration keep, Instant at, Timed<T> call) throws SourceUnavailableException {
        return cached(key, keep, at, System.nanoTime(), call);
    }

    /** {@link #cached(Object, Duration, Instant, Timed)} for a request that came at {@code since} (System.nanoTime()). */
    @SuppressWarnings("unchecked")
    private <T> T cached(Object key, Duration keep, Instant at, long since, Timed<T> call)
            throws SourceUnavailableException {
        Set<Object> touched = TOUCHED.get();
        if (touched != null) {
            touched.add(key);
        }
        if (renewedKeep != null) {
            return renewed(key, at, call);
        }
        long now = System.nanoTime();
        Entry mine = new Entry(now, keep, wedgedAfter);
        // An answer in flight is joined unless it is wedged.
        Entry entry = entries.compute(key, (k, old) -> old == null ? mine
                : !old.answer().isDone() ? (old.wedged(now) ? mine : old)
                : old.usable(now) ? old : mine);
        entry.used().set(now);
        if (entry == mine) {
            trim(now);
            // On its own thread: this request waits for it no longer than any other (joinLimit).
            Thread.ofVirtual().start(() -> fetch(key, mine, at, call));
        } else if (!entry.fresh(now) && entry.answer().isDone() && entry.refreshing().compareAndSet(false, true)) {
            // Serve the older answer now; fetch the next one without keeping anyone waiting.
            Entry next = new Entry(now, keep, wedgedAfter);
            Thread.ofVirtual().start(() -> {
                fetch(key, next, at, call);
                if (next.answer().isDone() && !next.answer().isCompletedExceptionally()) {
                    entries.replace(key, entry, next);
                } else {
                    entry.refreshing().set(false);
                }
            });
        }
        return (T) join(entry.answer(), since);
    }

    @SuppressWarnings("unchecked")
    private <T> T renewed(Object key, Instant at, Timed<T> call) throws SourceUnavailableException {
        pin(key);
        long now = System.nanoTime();
        Entry next = new Entry(now, renewedKeep, wedgedAfter);
        // Nothing kept (or a failure): requests join this read. A read under way: join it.
        Entry entry = entries.compute(key, (k, old) -> old == null || old.answer().isCompletedExceptionally()
                || old.wedged(now) || (old.answer().isDone() && !old.usable(now)) ? next : old);
        if (entry == next) {
            Thread.ofVirtual().start(() -> fetch(key, next, at, call));
        } else if (entry.answer().isDone()) {
            // The kept answer is served until this one has arrived, then replaced by it: by the
            // thread that read it or by this caller, whichever comes first. The answer is complete
            // before that thread gets to replace it, and this caller's next read must find it kept,
            // not the one before (a chart continued from an older one asks again for steps it has).
            Entry kept = entry;
            Runnable keep = () -> {
                if (next.answer().isDone() && !next.answer().isCompletedExceptionally()) {
                    entries.replace(key, kept, next);
                }
            };
            Thread.ofVirtual().start(() -> {
                fetch(key, next, at, call, false);
                keep.run();
            });
            T answer = (T) join(next.answer(), now);
            keep.run();
            return answer;
        }
        return (T) join(entry.answer(), now);
    }

    /**
     * The answer, or the failure that ended it as the caller would have thrown it; waits at most
     * {@code joinLimit} past {@code since} (System.nanoTime() when the caller came).
     */
    private Object join(CompletableFuture<?> answer, long since) throws SourceUnavailableException {
        return join(answer, since, () -> notArrived("the figures") + "; the page stopped waiting for them");
    }

    /** {@link #join(CompletableFuture, long)}, saying {@code late} when the limit has passed. */
    private Object join(CompletableFuture<?> answer, long since, java.util.function.Supplier<String> late)
            throws SourceUnavailableException {
        Object arrived = awaited(answer, Math.max(since + joinLimit.toNanos() - System.nanoTime(), 0));
        if (arrived == NOT_YET) {
            throw new SourceUnavailableException(late.get());
        }
        return arrived;
    }

    /** What {@link #awaited} answers for an answer that has not come. */
    private static final Object NOT_YET = new Object();

    /**
     * The answer if it comes within {@code nanos}, {@link #NOT_YET} if it has not; the failure that
     * ended it as the caller would have thrown it.
     */
    private Object awaited(CompletableFuture<?> answer, long nanos) throws SourceUnavailableException {
        try {
            return answer.get(nanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException notYet) {
            return NOT_YET;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new SourceUnavailableException("interrupted while waiting for " + history.description(), interrupted);
        } catch (ExecutionException failed) {
            if (failed.getCause() instanceof SourceUnavailableException unavailable) {
                throw new SourceUnavailableException(unavailable.getMessage(), unavailable);
            }
            if (failed.getCause() instanceof RuntimeException bug) {
                throw bug;
            }
            throw new CompletionException(failed.getCause());
        }
    }

    private <T> void fetch(Object key, Entry entry, Instant at, Timed<T> call) {
        fetch(key, entry, at, call, true);
    }

    /** Runs {@code call}; records its failure (or clears the last) under {@code key}; drops a failed entry if told. */
    private <T> void fetch(Object key, Entry entry, Instant at, Timed<T> call, boolean dropFailed) {
        try {
            entry.answer().complete(call.at(at));
            failures.remove(key);
        } catch (SourceUnavailableException | RuntimeException failed) {
            if (dropFailed) {
                entries.remove(key, entry);
            }
            failures.put(key, new Failure(Instant.now(), String.valueOf(failed.getMessage())));
            if (failures.size() > MAX_ENTRIES) {
                failures.keySet().removeIf(old -> !entries.containsKey(old) && !pinned.containsKey(old));
            }
            entry.answer().completeExceptionally(failed);
            LOG.log(java.util.logging.Level.FINE, "fetching " + key + " failed", failed);
        }
    }

    /**
     * Past {@link #MAX_ENTRIES}: drops answers too old to serve, then the least recently used
     * answers of narrowed pages down to three quarters of the bound; never a key the background
     * refresh reads, nor an answer in flight (its readers are waiting for it).
     */
    private void trim(long now) {
        if (entries.size() <= MAX_ENTRIES) {
            return;
        }
        entries.entrySet().removeIf(each -> !pinned.containsKey(each.getKey()) && each.getValue().answer().isDone()
                && !each.getValue().usable(now) && !each.getValue().fresh(now));
        if (entries.size() <= MAX_ENTRIES) {
            return;
        }
        List<Map.Entry<Object, Entry>> evictable = entries.entrySet().stream()
                .filter(each -> !pinned.containsKey(each.getKey()) && each.getValue().answer().isDone())
                .sorted(java.util.Comparator.comparingLong(each -> each.getValue().used().get()))
                .toList();
        int excess = entries.size() - MAX_ENTRIES * 3 / 4;
        for (int i = 0; i < excess && i < evictable.size(); i++) {
            entries.remove(evictable.get(i).getKey(), evictable.get(i).getValue());
        }
    }
}
