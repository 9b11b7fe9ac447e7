package io.hamiobserve.role.scheduler;

import io.hamiobserve.app.Role;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.exposition.FamilyDecorator;
import io.hamiobserve.exposition.FamilySelection;
import io.hamiobserve.exposition.RenderCache;
import io.hamiobserve.app.metrics.SelfMetrics;
import io.hamiobserve.app.metrics.SkipCounter;
import io.hamiobserve.app.metrics.SourceHealth;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.ports.SchedulerLedgerSource;

import java.time.Clock;
import java.util.Objects;
import java.util.List;
import java.util.Optional;

/**
 * The scheduler-side role: keeps the ledger current from its source and serves the allocation view.
 * The exposition is a pure function of the ledger and the skip counts, so an unchanged ledger is
 * served from the last rendering, and a changed one renders again only the nodes and pods that changed.
 *
 * <p>Sharded ({@link Shard}), the role still reads the whole ledger (quota use and unregistered
 * cards are sums over every node) and serves the part of the view its shard owns; its own series
 * (ledger health, skips, build, source health) are its own on every shard, told apart by the
 * {@code instance} Prometheus adds.
 */
public final class AllocationRole implements Role {
    /** The source name in health and skip series. */
    public static final String SOURCE = "ledger";
    /** Where the allocation endpoint listens unless told: HAMi scheduler's metrics port. */
    public static final String DEFAULT_BIND = ":9395";

    private final Ledger ledger = new Ledger();
    private final SchedulerLedgerSource source;
    private final FamilyDecorator legacyNames;
    private final ContainerSeries containerSeries;
    private final BuildInfo build;
    private final SkipCounter skips = new SkipCounter();
    private final SourceHealth health = new SourceHealth();
    private final RenderCache renderCache = new RenderCache();
    private final Shard shard;
    private final Clock clock;
    private final FamilySelection selection;

    public AllocationRole(SchedulerLedgerSource source, boolean legacyMetrics, BuildInfo build) {
        this(source, legacyMetrics, ContainerSeries.POD_EFFECTIVE, build, Shard.ALL);
    }

    /**
     * @param containerSeries the form of HAMi's per-container series (v2.10's unless told)
     * @param shard           the part of the allocation view this role serves
     */
    public AllocationRole(SchedulerLedgerSource source, boolean legacyMetrics, ContainerSeries containerSeries,
                          BuildInfo build, Shard shard) {
        this(source, legacyMetrics, containerSeries, build, shard, Clock.systemUTC());
    }

    /**
     * @param clock what pending pods' waits are told against (the demo's and the tests' fixed clock)
     */
    public AllocationRole(SchedulerLedgerSource source, boolean legacyMetrics, ContainerSeries containerSeries,
                          BuildInfo build, Shard shard, Clock clock) {
        this(source, legacyMetrics, containerSeries, build, shard, clock, AllocationMetrics.DEFAULT_SELECTION);
    }

    /**
     * @param selection the families the endpoint writes ({@link AllocationMetrics#DEFAULT_SELECTION} unless told)
     */
    public AllocationRole(SchedulerLedgerSource source, boolean legacyMetrics, ContainerSeries containerSeries,
                          BuildInfo build, Shard shard, Clock clock, FamilySelection selection) {
        this.selection = Objects.requireNonNull(selection);
        this.clock = Objects.requireNonNull(clock);
        this.source = Objects.requireNonNull(source);
        this.shard = Objects.requireNonNull(shard);
        this.legacyNames = legacyMetrics ? AllocationMetrics.LEGACY_NAMES : FamilyDecorator.NONE;
        this.containerSeries = Objects.requireNonNull(containerSeries);
        this.build = build;
    }

    @Override
    public String view() {
        return "allocation";
    }

    /** Starts the ledger source; the role is ready once the source has synced. */
    @Override
    public AllocationRole start() {
        source.start(ledger, skips);
        return this;
    }

    @Override
    public Optional<Object> stateStamp() {
        // Changes with the ledger (every event and every sync confirmation) and with every skip; and
        // every second while pods wait, whose waits grow with the clock.
        long waitedSecond = ledger.pendingCount() == 0 ? 0 : clock.millis() / 1000;
        return Optional.of(List.of(ledger.freshness(), skips.changes(), waitedSecond));
    }

    @Override
    public Exposition collect() {
        long started = System.nanoTime();
        Ledger.StampedView stamped = ledger.stampedView();
        AllocationView view = stamped.view();
        health.record(SOURCE, view.freshness().synced(), System.nanoTime() - started,
                view.freshness().synced() ? null : notReadyReason());
        return AllocationMetrics.exposition(view, stamped.stamps(), shard, legacyNames, containerSeries, selection,
                renderCache, SelfMetrics.families(build, skips, health), clock.millis());
    }

    @Override
    public boolean ready() {
        return ledger.isSynced();
    }

    /** Why the source has not delivered the ledger, when it knows (see {@link SchedulerLedgerSource#failure}). */
    public Optional<SchedulerLedgerSource.Failure> failure() {
        return source.failure();
    }

    /** A source that has given up for good: a snapshot that is not a dump. */
    @Override
    public Optional<String> givenUp() {
        return failure().filter(failure -> !failure.retrying()).map(SchedulerLedgerSource.Failure::message);
    }

    @Override
    public String notReadyReason() {
        return failure().map(SchedulerLedgerSource.Failure::message)
                .orElse("the scheduler ledger has not been read completely yet");
    }

    @Override
    public void close() {
        source.close();
    }
}
