package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Stuck;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A history that answers every read from another: a test overrides the one read it changes (DCGM's
 * counters on the readings, fixed card-hours) and the rest stay the fixed fleet's.
 */
class ForwardingHistory implements FleetHistory {
    private final FleetHistory to;

    ForwardingHistory(FleetHistory to) {
        this.to = to;
    }

    @Override
    public FleetReadings readings(Instant at, FleetScope scope) throws SourceUnavailableException {
        return to.readings(at, scope);
    }

    @Override
    public UsageHistory usage(Instant at, Duration window, Duration settledAfter, FleetScope scope)
            throws SourceUnavailableException {
        return to.usage(at, window, settledAfter, scope);
    }

    @Override
    public CardHours cardHours(Instant from, Instant to) throws SourceUnavailableException {
        return this.to.cardHours(from, to);
    }

    @Override
    public TrendSet trends(TrendScope scope, Instant end, Duration range, Duration step)
            throws SourceUnavailableException {
        return to.trends(scope, end, range, step);
    }

    @Override
    public Stuck stuck(Instant at, Duration idleAfter) throws SourceUnavailableException {
        return to.stuck(at, idleAfter);
    }

    @Override
    public String description() {
        return to.description();
    }

    @Override
    public List<String> clusters() {
        return to.clusters();
    }

    @Override
    public FleetHistory inCluster(String cluster) {
        return to.inCluster(cluster);
    }
}
