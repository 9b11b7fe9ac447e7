package io.hamiobserve.adapters.k8s;

import io.hamiobserve.ports.SkipKey;
import io.hamiobserve.ports.SkipReporter;
import io.hamiobserve.ports.spi.Problem;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reports skipped input to the {@link SkipReporter}: the key (this adapter's source, the kind of
 * object, the reason) to the counter, the item and what was wrong with it to the reporter's log
 * line, which bounds what an input can put into the log ({@link SkipReporter#loggable}). A device
 * provider's {@link Problem} brings a reason of the provider's own, counted under a kind that
 * names the provider ({@code nvidia_node}, {@code ascend_pod}): skips are counted per vendor.
 */
final class Skips {
    static final String SOURCE = "kubernetes";

    private static final Logger LOG = Logger.getLogger(Skips.class.getName());

    /** What was skipped. */
    enum Kind implements SkipKey.Label {
        NODE_ANNOTATION, POD_ANNOTATION, QUOTA, SNAPSHOT,
        /** A controller reference (a pod's or an owner's), or an owner chain cut short. */
        OWNER_REFERENCE,
        /** An intermediate owner (ReplicaSet, Job) that cannot be kept. */
        OWNER,
        /** An unscheduled pod that requests a HAMi resource and cannot be counted as unmet demand. */
        PENDING_POD
    }

    /** Why, for the decoders of this adapter (docs/adapters-k8s.md says what each means). */
    enum Reason implements SkipKey.Label {
        MISSING_IDENTITY, INVALID_OBJECT, DUPLICATE_UUID, BAD_QUANTITY, NEGATIVE_NUMBER, NUMBER_OVERFLOW, TOO_LONG,
        TOO_MANY_CONTAINERS, BAD_DOCUMENT, BAD_OBJECT,
        /** The domain's {@link io.hamiobserve.domain.OwnerChains.Problem}s, under the same names. */
        OWNER_CYCLE, OWNER_CHAIN_TOO_DEEP,
        /** A pending pod's creation time missing or unreadable: its wait cannot be told. */
        BAD_TIMESTAMP,
        /** A pending pod past the ledger's bound ({@link io.hamiobserve.domain.Ledger#MAX_PENDING_PODS}). */
        TOO_MANY_PENDING
    }

    private final SkipReporter reporter;

    Skips(SkipReporter reporter) {
        this.reporter = reporter;
    }

    /** A provider's problem, under the provider's kind ({@link DeviceProviders#nodeKind}, {@code podKind}). */
    void skip(String providerKind, String item, Problem problem) {
        report(new SkipKey(SOURCE, providerKind, problem.reason()), item + ": " + problem.key() + ": "
                + problem.detail());
    }

    void skip(Kind kind, String item, Reason reason, String detail) {
        report(SkipKey.of(SOURCE, kind, reason), item + ": " + detail);
    }

    private void report(SkipKey key, String item) {
        try {
            reporter.skipped(key, item);
        } catch (RuntimeException e) {
            // A failing counter must not stop the ledger from being fed.
            LOG.log(Level.WARNING, "skip reporter failed", e);
        }
    }
}
