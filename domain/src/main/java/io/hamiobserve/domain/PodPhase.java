package io.hamiobserve.domain;

import java.util.Locale;

/** The Kubernetes pod phase, as far as the ledger cares. */
public enum PodPhase {
    PENDING, RUNNING, SUCCEEDED, FAILED, UNKNOWN;

    /** Whether a pod in this phase still holds its allocation (HAMi releases it on Succeeded/Failed). */
    public boolean holdsAllocation() {
        return this != SUCCEEDED && this != FAILED;
    }

    /** Reads Kubernetes' spelling ({@code Running}); anything unknown or missing is {@link #UNKNOWN}. */
    public static PodPhase parse(String phase) {
        if (phase == null) {
            return UNKNOWN;
        }
        try {
            return valueOf(phase.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException unknown) {
            return UNKNOWN;
        }
    }
}
