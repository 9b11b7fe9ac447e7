package io.hamiobserve.ports;

import io.hamiobserve.domain.Ledger;

import java.util.Optional;

/**
 * Where the scheduler's ledger comes from: registered cards, pod placements and GPU quotas, and
 * how their changes arrive. A source keeps the given {@link Ledger} current from {@link #start}
 * until {@link #close}, calls {@link Ledger#markSynced} once it has delivered a complete ledger,
 * and again whenever it confirms it complete (so the ledger's age can be shown).
 */
public interface SchedulerLedgerSource extends AutoCloseable {
    /** Starts delivering into {@code ledger}; returns without waiting for the first sync. */
    void start(Ledger ledger, SkipReporter skips);

    /**
     * Why the source has not delivered a complete ledger, when it knows: a snapshot that is not a
     * dump, a cluster that is not configured or does not answer. Empty while the source is fine or
     * still loading. Readiness and the source's health series say it; {@code --once} exits on it.
     */
    default Optional<Failure> failure() {
        return Optional.empty();
    }

    /**
     * A source's failure.
     *
     * @param message  one line an operator can act on
     * @param retrying whether the source keeps trying (a live cluster) or has given up for good
     *                 (a file read once)
     */
    record Failure(String message, boolean retrying) {
    }

    /** Stops delivering and releases connections and threads. */
    @Override
    void close();
}
