package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.TimeRange;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What every page is built over: the fleet's kept answers, the link builder, the settings, and
 * whether the fleet-wide answers are read again in the background (pages then say how often).
 */
final class PageContext {
    private final FleetCache fleet;
    private final Links links;
    private final ConsoleSettings settings;
    private volatile boolean refreshing;

    PageContext(FleetCache fleet, Links links, ConsoleSettings settings) {
        this.fleet = fleet;
        this.links = links;
        this.settings = settings;
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
     * now, the cards, each container's use over the default window, a week's chargeback, the
     * cluster's trends — all at once (as a page sends its reads) through {@code keeper}, and
     * returns when every read has answered; the first failure is thrown.
     */
    void refresh(FleetCache keeper, Instant at) throws SourceUnavailableException {
        refreshing = true;
        TimeRange range = TimeRange.DAY;
        keeper.all(List.of(
                () -> keeper.usage(at, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING),
                () -> keeper.accruals(at, Duration.ofDays(7)),
                () -> keeper.trends(new TrendScope.Cluster(), at, range.length(), range.step()),
                () -> keeper.state(at, FleetScope.CARDS_ONLY),
                () -> keeper.state(at, FleetScope.EVERYTHING)));
    }
}
