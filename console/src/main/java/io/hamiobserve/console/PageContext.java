package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.TimeRange;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every page is built over: the fleet's kept answers, the link builder, the settings, and
 * whether the fleet-wide answers are read again in the background (pages then say how often).
 */
final class PageContext {
    /** The most clusters whose narrowed answers are kept at once (each keeps its own cache). */
    static final int MAX_CLUSTERS = 64;

    private final FleetCache fleet;
    private final Links links;
    private final ConsoleSettings settings;
    private final Optional<String> cluster;
    /** The contexts of single clusters, made when a page of one is first asked for. */
    private final Map<String, PageContext> byCluster = new ConcurrentHashMap<>();
    private volatile boolean refreshing;

    PageContext(FleetCache fleet, Links links, ConsoleSettings settings) {
        this(fleet, links, settings, Optional.empty());
    }

    private PageContext(FleetCache fleet, Links links, ConsoleSettings settings, Optional<String> cluster) {
        this.fleet = fleet;
        this.links = links;
        this.settings = settings;
        this.cluster = cluster;
    }

    /** The clusters the source tells apart (sorted); empty for one cluster without the label. */
    List<String> clusters() {
        return fleet.history().clusters();
    }

    /** The cluster this context's pages are narrowed to; empty for all of them. */
    Optional<String> cluster() {
        return cluster;
    }

    /**
     * The pages of one cluster: its own reads, narrowed by the source, and links that carry it;
     * empty when the source holds no such cluster. The fleet now and the summaries over a window
     * that the fleet-wide pages keep are served narrowed to the cluster rather than read again
     * ({@link FleetCache}).
     */
    Optional<PageContext> inCluster(String name) {
        if (!clusters().contains(name)) {
            return Optional.empty();
        }
        if (byCluster.size() >= MAX_CLUSTERS && !byCluster.containsKey(name)) {
            byCluster.clear();
        }
        return Optional.of(byCluster.computeIfAbsent(name, selected -> new PageContext(
                new FleetCache(fleet.history().inCluster(selected), settings.fresh(), settings.readLimit(), fleet,
                        selected),
                links.inCluster(selected), settings, Optional.of(selected))));
    }

    FleetCache fleet() {
        return fleet;
    }

    Links links() {
        return links;
    }

    ConsoleSettings settings() {
        return settings;
    }

    boolean refreshing() {
        return refreshing;
    }

    /**
     * Reads what the fleet-wide pages need with their default windows and ranges — every container
     * now, the cards, the cluster's trends, and, when {@link ConsoleSettings#summaryRefresh} has
     * passed since they were last read, the summaries over a window (each container's use over
     * the default window, a week's card-hours) — the fleet now and the chart together first, then
     * the summaries (whether or not the first two answered) — and returns when every read has
     * answered, or the summaries have been waited for as long as a page waits; the first failure
     * is thrown. {@code keeper} keeps the answers read every
     * refresh, {@code summaries} those read every summary interval, {@code others} the pages'
     * other windows, read every {@link ConsoleSettings#otherWindowsRefresh} (null: not read).
     *
     * <p>The summaries are one round, asked only when no earlier round is still being read, and
     * read once it has answered in full, whenever that is: the refresh waits for them no longer
     * than a page would, but a round that answers after that still lands (its answers are kept,
     * and the next round is due a summary interval after it was asked). Otherwise an engine whose
     * summaries take longer than a page waits (three clusters of 10,000 containers in one
     * VictoriaMetrics: docs/benchmarks.md) was asked the summaries again at every refresh, the
     * dearest reads the console sends every minute and a half there instead of every hour, each
     * time beside the round still running.
     */
    void refresh(FleetCache keeper, FleetCache summaries, FleetCache others, Instant at)
            throws SourceUnavailableException {
        refreshing = true;
        TimeRange range = TimeRange.DAY;
        java.util.concurrent.CompletableFuture<Void> round = null;
        try {
            // What every page needs, first: on an engine that runs a few queries at once
            // (VictoriaMetrics: four by default), a round of summaries sent beside it, each a read of
            // weeks, took the slots, and at three clusters the first refresh's fleet now was not in
            // within a page's wait; the overview's first visit then waited for it
            // (docs/benchmarks.md).
            keeper.all(List.of(() -> keeper.trends(new TrendScope.Cluster(), at, range.length(), range.step()),
                    () -> keeper.fleetNow(at)));
        } finally {
            round = summariesIfDue(keeper, summaries, at);
            if (round == null && others != null) {
                otherWindowsIfDue(keeper, others, at);
            }
        }
        if (round != null) {
            keeper.await(round, "the summaries over a window (still being read: they are kept when they "
                    + "arrive, and not asked again meanwhile)");
        }
    }

    /**
     * How often the background refresh reads each container's use over {@code window} in
     * {@code scope} again, where it keeps it: every summary interval for the default window and
     * one the settings keep; for another window, at the interval of the round that last asked for
     * it (the summaries', for a window visited lately; the other windows', every six hours), so a
     * page judges the figures it shows by the round that read them. Empty where the page shows a
     * visitor's own read.
     */
    Optional<Duration> usageKept(Duration window, FleetScope scope) {
        if (settings.usageKept(window, scope)) {
            return Optional.of(settings.summaryRefresh());
        }
        return scope.equals(FleetScope.EVERYTHING) && refreshing ? fleet.usageRenewed(window, RightSizing.MIN_HISTORY)
                : Optional.empty();
    }

    /** How often the background refresh reads the card-hours over {@code window} again (as {@link #usageKept}). */
    Optional<Duration> cardHoursKept(Duration window) {
        if (settings.cardHoursKept(window)) {
            return Optional.of(settings.summaryRefresh());
        }
        return refreshing ? fleet.cardHoursRenewed(window) : Optional.empty();
    }

    /** Starts a round of the summaries over a window when one is due ({@link #refresh}); null when none is. */
    private java.util.concurrent.CompletableFuture<Void> summariesIfDue(FleetCache keeper, FleetCache summaries,
                                                                     Instant at) {
        SummaryRound last = summaryRound;
        SummaryRound others = otherWindowsRound;
        // Not beside a round of the other windows still being read: the engine would read both
        // at once (a few query slots on VictoriaMetrics); the round is asked at the next refresh.
        if ((last != null && !last.due(at, settings.summaryRefresh()))
                || (others != null && !others.answered().isDone())) {
            return null;
        }
        List<FleetCache.Read> reads = new java.util.ArrayList<>();
        reads.add(() -> summaries.usage(at, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY,
                FleetScope.EVERYTHING));
        reads.add(() -> summaries.cardHours(at, CARD_HOURS_WINDOW));
        for (Duration window : usageWindowsEveryRound(summaries)) {
            reads.add(() -> summaries.usage(at, window, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING));
        }
        for (Duration window : cardHoursWindowsEveryRound(summaries)) {
            reads.add(() -> summaries.cardHours(at, window));
        }
        java.util.concurrent.CompletableFuture<Void> round = keeper.start(reads);
        summaryRound = new SummaryRound(at, round);
        return round;
    }

    /** The windows of each container's use read with every round besides the default: kept by the settings, or visited lately. */
    private java.util.SortedSet<Duration> usageWindowsEveryRound(FleetCache summaries) {
        return everyRound(summaries.visitedUsage(RightSizing.MIN_HISTORY, settings.keepVisited()),
                RightSizing.DEFAULT_WINDOW);
    }

    /** The windows of the card-hours read with every round besides the default (as {@link #usageWindowsEveryRound}). */
    private java.util.SortedSet<Duration> cardHoursWindowsEveryRound(FleetCache summaries) {
        return everyRound(summaries.visitedCardHours(settings.keepVisited()), CARD_HOURS_WINDOW);
    }

    /** The windows the settings keep and those {@code visited}, less the default one every round reads anyway. */
    private java.util.SortedSet<Duration> everyRound(java.util.Set<Duration> visited, Duration byDefault) {
        java.util.SortedSet<Duration> windows = new java.util.TreeSet<>(settings.keptWindows());
        windows.addAll(visited);
        windows.remove(byDefault);
        return windows;
    }

    /**
     * Starts a round of the pages' other windows — each one the pages offer that no round of the
     * summaries reads — when one is due: once the summaries' first round has answered in full
     * (so that readiness and the first pages wait for no more than they did), and then every
     * {@link ConsoleSettings#otherWindowsRefresh}, never beside a round of either kind still being
     * read. It is not waited for: its answers are kept whenever they arrive.
     */
    private void otherWindowsIfDue(FleetCache keeper, FleetCache others, Instant at) {
        SummaryRound summaries = summaryRound;
        SummaryRound last = otherWindowsRound;
        if (summaries == null || !summaries.answered().isDone() || summaries.answered().isCompletedExceptionally()
                || (last != null && !last.due(at, settings.otherWindowsRefresh()))) {
            return;
        }
        // Left out: the windows a round of the summaries reads and has read. A window visited
        // before any round read it (a visit just after a start) is read here all the same: the
        // next round of the summaries may be an interval away.
        List<FleetCache.Read> reads = new java.util.ArrayList<>();
        java.util.SortedSet<Duration> everyRound = usageWindowsEveryRound(others);
        for (Duration window : PageKit.WINDOW_DURATIONS) {
            if (!window.equals(RightSizing.DEFAULT_WINDOW) && !(everyRound.contains(window)
                    && others.usageRenewed(window, RightSizing.MIN_HISTORY).isPresent())) {
                reads.add(() -> others.usage(at, window, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING));
            }
        }
        java.util.SortedSet<Duration> hoursEveryRound = cardHoursWindowsEveryRound(others);
        for (Duration window : PageKit.WINDOW_DURATIONS) {
            if (!window.equals(CARD_HOURS_WINDOW) && !(hoursEveryRound.contains(window)
                    && others.cardHoursRenewed(window).isPresent())) {
                reads.add(() -> others.cardHours(at, window));
            }
        }
        otherWindowsRound = new SummaryRound(at, keeper.start(reads));
    }

    /** The background refresh's last round of the other windows, answered or still being read; null before the first. */
    private volatile SummaryRound otherWindowsRound;

    /** The card-hours the background refresh keeps: a week's (showback's and the namespaces' default). */
    static final Duration CARD_HOURS_WINDOW = Duration.ofDays(7);

    /** The background refresh's last round of summaries, answered or still being read; null before the first. */
    private volatile SummaryRound summaryRound;

    /** A round of the summaries over a window: when it was asked, and its answers. */
    private record SummaryRound(Instant asked, java.util.concurrent.CompletableFuture<Void> answered) {
        /**
         * Whether the next round is due at {@code at}: never while this one is being read; at once
         * after it failed; an interval after it was asked once it has answered in full.
         */
        boolean due(Instant at, Duration interval) {
            return answered.isDone() && (answered.isCompletedExceptionally() || !at.isBefore(asked.plus(interval)));
        }
    }
}
