package io.hamiobserve.role.console;

import io.hamiobserve.app.Role;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.app.metrics.SelfMetrics;
import io.hamiobserve.app.metrics.SkipCounter;
import io.hamiobserve.app.metrics.SourceHealth;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The console's own endpoint: build info and whether its history source (Prometheus) answered the
 * last time it was asked, as {@code hami_observe_scrape_source_success{source="prometheus"}} —
 * the same health series the exporters use. The role is ready once the console has read the
 * fleet-wide figures a first time (or given up waiting, bounded): from then on it serves pages
 * whether or not Prometheus answers (kept figures that say their age, or a clear error page).
 */
public final class ConsoleRole implements Role {
    /** The source name in the health series. */
    public static final String SOURCE = "prometheus";
    /** Where the console listens unless told. */
    public static final String DEFAULT_BIND = ":9397";

    private final BuildInfo build;
    private final SkipCounter skips = new SkipCounter();
    private final SourceHealth health = new SourceHealth();
    private volatile java.util.function.BooleanSupplier readiness = () -> true;
    private volatile java.util.function.Supplier<String> notReady = () -> "";

    public ConsoleRole(BuildInfo build) {
        this.build = build;
    }

    /** {@code history}, with each call's outcome recorded in this role's health series. */
    public FleetHistory observe(FleetHistory history) {
        return new FleetHistory() {
            private interface Call<T> {
                T get() throws SourceUnavailableException;
            }

            private <T> T recorded(Call<T> call) throws SourceUnavailableException {
                long started = System.nanoTime();
                try {
                    T answer = call.get();
                    health.record(SOURCE, true, System.nanoTime() - started, null);
                    return answer;
                } catch (SourceUnavailableException | RuntimeException failed) {
                    health.record(SOURCE, false, System.nanoTime() - started, failed.getMessage());
                    throw failed;
                }
            }

            @Override
            public FleetReadings readings(Instant at, FleetScope scope) throws SourceUnavailableException {
                return recorded(() -> history.readings(at, scope));
            }

            @Override
            public UsageHistory usage(Instant at, Duration window, Duration settledAfter, FleetScope scope)
                    throws SourceUnavailableException {
                return recorded(() -> history.usage(at, window, settledAfter, scope));
            }

            @Override
            public io.hamiobserve.domain.fleet.CardHours cardHours(Instant from, Instant to)
                    throws SourceUnavailableException {
                return recorded(() -> history.cardHours(from, to));
            }

            @Override
            public io.hamiobserve.domain.fleet.Stuck stuck(Instant at, Duration idleAfter)
                    throws SourceUnavailableException {
                return recorded(() -> history.stuck(at, idleAfter));
            }

            @Override
            public TrendSet trends(TrendScope scope, Instant end, Duration range, Duration step)
                    throws SourceUnavailableException {
                return recorded(() -> history.trends(scope, end, range, step));
            }

            @Override
            public String description() {
                return history.description();
            }

            @Override
            public java.util.List<String> clusters() {
                return history.clusters();
            }

            /** One cluster's reads are the source's reads too: observed the same way. */
            @Override
            public FleetHistory inCluster(String cluster) {
                return observe(history.inCluster(cluster));
            }
        };
    }

    @Override
    public String view() {
        return "console";
    }

    /** Nothing to start: Prometheus is asked when a page is. */
    @Override
    public ConsoleRole start() {
        return this;
    }

    @Override
    public void close() {
    }

    @Override
    public Optional<Object> stateStamp() {
        return Optional.empty();
    }

    @Override
    public Exposition collect() {
        return Exposition.of(List.of(SelfMetrics.families(build, skips, health)));
    }

    /** Readiness follows {@code ready}, with {@code reason} saying why not. */
    public void readyWhen(java.util.function.BooleanSupplier ready, java.util.function.Supplier<String> reason) {
        this.readiness = ready;
        this.notReady = reason;
    }

    @Override
    public boolean ready() {
        return readiness.getAsBoolean();
    }

    @Override
    public String notReadyReason() {
        return notReady.get();
    }
}
