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
     * empty when the source holds no such cluster.
     */
    Optional<PageContext> inCluster(String name) {
        if (!clusters().contains(name)) {
            return Optional.empty();
        }
        if (byCluster.size() >= MAX_CLUSTERS && !byCluster.containsKey(name)) {
            byCluster.clear();
        }
        return Optional.of(byCluster.computeIfAbsent(name, selected -> new PageContext(
                new FleetCache(fleet.history().inCluster(selected), settings.fresh(), settings.readLimit()),
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
     * the default window, a week's card-hours) — all at once (as a page sends its reads), and
     * returns when every read has answered; the first failure is thrown. {@code keeper} keeps the
     * answers read every refresh, {@code summaries} those read every summary interval.
     */
    void refresh(FleetCache keeper, FleetCache summaries, Instant at) throws SourceUnavailableException {
        refreshing = true;
        TimeRange range = TimeRange.DAY;
        List<FleetCache.Read> reads = new java.util.ArrayList<>();
        Instant last = summariesRead;
        boolean summariesDue = last == null || !at.isBefore(last.plus(settings.summaryRefresh()));
        if (summariesDue) {
            reads.add(() -> summaries.usage(at, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY,
                    FleetScope.EVERYTHING));
            reads.add(() -> summaries.cardHours(at, CARD_HOURS_WINDOW));
            for (Duration window : settings.keptWindows()) {
                if (!window.equals(RightSizing.DEFAULT_WINDOW)) {
                    reads.add(() -> summaries.usage(at, window, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING));
                }
                if (!window.equals(CARD_HOURS_WINDOW)) {
                    reads.add(() -> summaries.cardHours(at, window));
                }
            }
        }
        reads.add(() -> keeper.trends(new TrendScope.Cluster(), at, range.length(), range.step()));
        reads.add(() -> keeper.fleetNow(at));
        keeper.all(reads);
        if (summariesDue) {
            summariesRead = at;
        }
    }

    /** The card-hours the background refresh keeps: a week's (showback's and the namespaces' default). */
    static final Duration CARD_HOURS_WINDOW = Duration.ofDays(7);

    /** When the background refresh last read the summaries over a window; null before it has. */
    private volatile Instant summariesRead;
}
