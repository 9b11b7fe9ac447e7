package io.hamiobserve.domain.fleet;

import java.util.Objects;

/**
 * One physical card over a window: for how long anything saw it (the ledger, the node's NVML or
 * DCGM) and, of that, for how long it could not be allocated (seen but not registered in the
 * ledger, or registered unhealthy). Seconds, integrated at the source's step.
 */
public record CardAccrual(String cluster, String node, String uuid, String model, double seenSeconds,
                          double unavailableSeconds) {
    public CardAccrual {
        Objects.requireNonNull(cluster);
        Objects.requireNonNull(node);
        Objects.requireNonNull(uuid);
        Objects.requireNonNull(model);
    }
}
