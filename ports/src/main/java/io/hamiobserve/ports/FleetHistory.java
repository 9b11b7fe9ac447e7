package io.hamiobserve.ports;

import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Stuck;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What the fleet's metrics say now and over a window: every card, share and container at an
 * instant, each container's use summarised over a window (for right-sizing), every card's and share's
 * card-hours (for showback), what is stuck, and trends for charts. Read-only.
 *
 * <p>A scope says which containers a caller needs; an implementation reads at least those (an
 * in-memory one may return everything). Every answer carries, for each measure, the query it came from. An implementation bounds the
 * work of each call independently of the fleet's size (a fixed set of queries, not one per card)
 * and fails with {@link SourceUnavailableException} (saying why: unreachable, too slow, refused)
 * rather than hang or answer partly.
 *
 * <p>No method has a default body: a decorator (a cache, a health-recording wrapper) that inherited
 * one would silently answer the default instead of passing the call through, so every
 * implementation states what each call does, and a source without some figures says so.
 */
public interface FleetHistory {
    /** The fleet at {@code at}: every card, and the containers {@code scope} asks for. */
    FleetReadings readings(Instant at, FleetScope scope) throws SourceUnavailableException;

    /**
     * The use of each card by the containers {@code scope} asks for, over {@code window} ending at
     * {@code at}; samples older than {@code settledAfter} are counted apart, to tell how long the
     * history goes back.
     */
    UsageHistory usage(Instant at, Duration window, Duration settledAfter, FleetScope scope)
            throws SourceUnavailableException;

    /**
     * Every card's seen and unavailable seconds and every container's share of each card,
     * integrated from {@code from} to {@code to} (showback). A source that keeps no such history
     * throws, saying so.
     */
    CardHours cardHours(Instant from, Instant to) throws SourceUnavailableException;

    /** Allocated and used memory and compute (and, for a card, temperature and power) over a range. */
    TrendSet trends(TrendScope scope, Instant end, Duration range, Duration step) throws SourceUnavailableException;

    /**
     * What is stuck at {@code at}: ghost allocations, zombie processes, shares idle for
     * {@code idleAfter} or longer, pending GPU pods. A source that keeps none of these series
     * throws, saying so (an empty list would read as "nothing stuck").
     */
    Stuck stuck(Instant at, Duration idleAfter) throws SourceUnavailableException;

    /** Where the figures come from, in words for the page footer ("Prometheus at http://..."). */
    String description();

    /**
     * The clusters the source's series are told apart by (the values of its cluster label, as
     * Prometheus's external labels or a relabeling put them; sorted); empty when they carry none,
     * as for one cluster.
     */
    List<String> clusters();

    /**
     * The history of one of {@link #clusters()}: every read narrowed to that cluster's series.
     *
     * @throws UnsupportedOperationException when the source tells no clusters apart
     */
    FleetHistory inCluster(String cluster);
}
