package io.hamiobserve.domain.fleet;

/** What a trend chart covers: the whole cluster, one node, one card or one workload. */
public sealed interface TrendScope {
    record Cluster() implements TrendScope {
    }

    record Node(String name) implements TrendScope {
    }

    record OneCard(String uuid) implements TrendScope {
    }

    /**
     * One workload; {@code containerIndex} names it on the allocation side (-1 when unknown).
     */
    record OneWorkload(WorkloadRef ref, int containerIndex) implements TrendScope {
    }
}
