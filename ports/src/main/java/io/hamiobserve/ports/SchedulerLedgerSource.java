package io.hamiobserve.ports;

import io.hamiobserve.domain.Ledger;

/**
 * Where the scheduler's ledger comes from: registered cards, pod placements and GPU quotas, and
 * how their changes arrive. A source keeps the given {@link Ledger} current from {@link #start}
 * until {@link #close}, calls {@link Ledger#markSynced} once it has delivered a complete ledger,
 * and again whenever it confirms it complete (so the ledger's age can be shown).
 */
public interface SchedulerLedgerSource extends AutoCloseable {
    /** Starts delivering into {@code ledger}; returns without waiting for the first sync. */
    void start(Ledger ledger, SkipReporter skips);

    /** Stops delivering and releases connections and threads. */
    @Override
    void close();
}
