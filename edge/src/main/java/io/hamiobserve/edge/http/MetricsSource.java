package io.hamiobserve.edge.http;

import io.hamiobserve.exposition.Exposition;

/** What an endpoint exposes: the series of one role, collected at scrape time. */
public interface MetricsSource {
    /**
     * A value that changes whenever the exposition would change, or empty when every scrape must
     * collect afresh. Equal stamps let an endpoint serve its last rendering again.
     */
    java.util.Optional<Object> stateStamp();

    /** Collects the series now. Never throws for bad data: failures are series. */
    Exposition collect();

    /** Whether the role has what it needs to answer truthfully (for {@code /readyz}). */
    boolean ready();

    /** Why the role is not ready, for the {@code /readyz} body. */
    String notReadyReason();
}
