package io.hamiobserve.domain.fleet;

/**
 * How much of the fleet's container-level detail a page needs. Every card is always read (a
 * thousand cards are cheap); containers are read for the whole fleet only where a page lists or
 * sums them all, and otherwise for one node, one card or one workload, or not at all — at 10,000
 * containers the difference is megabytes of series per page.
 */
public sealed interface FleetScope {
    /** Every container (the overview, the workloads, right-sizing and namespaces pages). */
    record Everything() implements FleetScope {
    }

    /** Cards only; containers are only counted per node. */
    record CardsOnly() implements FleetScope {
    }

    /** The containers on one node. */
    record OnNode(String node) implements FleetScope {
    }

    /** The containers holding shares of one card. */
    record OnCard(String uuid) implements FleetScope {
    }

    /** One workload (its pod's other containers may come along). */
    record OfWorkload(WorkloadRef workload) implements FleetScope {
    }

    FleetScope EVERYTHING = new Everything();
    FleetScope CARDS_ONLY = new CardsOnly();
}
