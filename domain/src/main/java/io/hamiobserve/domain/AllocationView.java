package io.hamiobserve.domain;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * What the scheduler has handed out, at one moment: the allocation view.
 *
 * <p>Every list is sorted (nodes by name, cards by index, pods by node, namespace and name,
 * containers by index) so that two views of the same ledger render identically.
 *
 * @param cards                  every registered card with its allocated totals
 * @param pods                   the counting pods, as recorded; {@link #containers()} flattens them
 * @param owners                 each pod's top controller, at the pod's position in {@code pods}
 * @param quotas                 per namespace and GPU resource, use against the quota
 * @param migInstances           realised MIG instances on cards registered in MIG mode
 * @param unregisteredCardShares pod shares on cards that no node registers: an inconsistency
 *                               of the ledger, kept out of the card totals and reported apart
 * @param pending                pods that request a HAMi resource and are not placed (unmet demand),
 *                               by namespace, name and UID
 * @param freshness              when the ledger was last known to be complete
 */
public record AllocationView(List<CardAllocation> cards, List<PodPlacement> pods, List<PodOwner> owners,
                             List<QuotaUsage> quotas, List<MigInstanceOnCard> migInstances,
                             List<UnregisteredCardShare> unregisteredCardShares, List<PendingPod> pending,
                             LedgerFreshness freshness) {

    public AllocationView {
        cards = List.copyOf(cards);
        pods = List.copyOf(pods);
        owners = List.copyOf(owners);
        if (owners.size() != pods.size()) {
            throw new IllegalArgumentException(owners.size() + " owners for " + pods.size() + " pods");
        }
        quotas = List.copyOf(quotas);
        migInstances = List.copyOf(migInstances);
        unregisteredCardShares = List.copyOf(unregisteredCardShares);
        pending = List.copyOf(pending);
    }

    /** A view with no pending pods. */
    public AllocationView(List<CardAllocation> cards, List<PodPlacement> pods, List<PodOwner> owners,
                          List<QuotaUsage> quotas, List<MigInstanceOnCard> migInstances,
                          List<UnregisteredCardShare> unregisteredCardShares, LedgerFreshness freshness) {
        this(cards, pods, owners, quotas, migInstances, unregisteredCardShares, List.of(), freshness);
    }

    /**
     * A view whose pods' owners are resolved from what each pod says alone, no intermediate owner
     * known ({@link OwnerChains}).
     */
    public AllocationView(List<CardAllocation> cards, List<PodPlacement> pods, List<QuotaUsage> quotas,
                          List<MigInstanceOnCard> migInstances, List<UnregisteredCardShare> unregisteredCardShares,
                          LedgerFreshness freshness) {
        this(cards, pods, pods.stream().map(pod -> OwnerChains.resolve(pod.pod(), pod.controller(), uid -> null)
                .owner()).toList(), quotas, migInstances, unregisteredCardShares, freshness);
    }

    /**
     * Per container and card, the share the container holds: every pod's
     * {@link ContainerAllocation#of(PodPlacement)}, in pod order. Derived on each call, so a view
     * costs nothing for readers that go pod by pod.
     */
    public List<ContainerAllocation> containers() {
        List<ContainerAllocation> containers = new ArrayList<>();
        for (PodPlacement pod : pods) {
            containers.addAll(ContainerAllocation.of(pod));
        }
        return containers;
    }

    /**
     * The part of this view that {@code shard} serves: the cards, pods and MIG instances of the
     * nodes it owns, and the quotas, unregistered-card allocations and pending pods (which have no
     * node) only if it owns the series of no node. The freshness is the ledger's, whichever shard asks: every shard reads the whole
     * ledger and reports its own.
     */
    public AllocationView ownedBy(Shard shard) {
        if (shard.isAll()) {
            return this;
        }
        boolean cluster = shard.ownsClusterSeries();
        List<PodPlacement> ownedPods = new ArrayList<>();
        List<PodOwner> ownedOwners = new ArrayList<>();
        String last = null;
        boolean lastOwned = false;
        for (int i = 0; i < pods.size(); i++) {
            String node = pods.get(i).node();
            if (!node.equals(last)) {
                last = node;
                lastOwned = shard.ownsNode(node);
            }
            if (lastOwned) {
                ownedPods.add(pods.get(i));
                ownedOwners.add(owners.get(i));
            }
        }
        return new AllocationView(
                ofOwnedNodes(cards, CardAllocation::node, shard),
                ownedPods,
                ownedOwners,
                cluster ? quotas : List.of(),
                ofOwnedNodes(migInstances, MigInstanceOnCard::node, shard),
                cluster ? unregisteredCardShares : List.of(),
                cluster ? pending : List.of(),
                freshness);
    }

    /** The items of nodes {@code shard} owns; items come node by node, so each node is hashed about once. */
    private static <T> List<T> ofOwnedNodes(List<T> items, Function<T, String> node, Shard shard) {
        List<T> owned = new ArrayList<>();
        String last = null;
        boolean lastOwned = false;
        for (T item : items) {
            String itemNode = node.apply(item);
            if (!itemNode.equals(last)) {
                last = itemNode;
                lastOwned = shard.ownsNode(itemNode);
            }
            if (lastOwned) {
                owned.add(item);
            }
        }
        return owned;
    }

    /**
     * A registered card and what is allocated on it.
     *
     * @param node              the registering node
     * @param card              the registration
     * @param allocatedMemoryMib Σ over counting pods of their effective memory on the card
     * @param allocatedCores    Σ over counting pods of their effective compute on the card
     * @param sharedContainers  Σ over counting pods of their slots on the card
     * @param backend           HAMi's name of the device backend that owns the card (its CommonWord)
     * @param units             what the card's raw memory and core figures mean
     */
    public record CardAllocation(String node, RegisteredCard card, long allocatedMemoryMib,
                                 long allocatedCores, int sharedContainers, String backend, DeviceUnits units) {
        public CardAllocation {
            Objects.requireNonNull(backend, "backend");
            Objects.requireNonNull(units, "units");
        }

        public long allocatedMemoryBytes() {
            return Units.mibToBytes(allocatedMemoryMib);
        }

        /** Allocated memory as a fraction of registered memory; empty for a card registering none. */
        public OptionalDouble memoryAllocatedFraction() {
            return card.memoryMib() > 0
                    ? OptionalDouble.of(Units.fraction(allocatedMemoryMib, card.memoryMib()))
                    : OptionalDouble.empty();
        }

        /**
         * How much of this card {@code memoryMib} and {@code cores} (in the card's units) block, in
         * cards ({@link ShareSize}). Memory is a fraction of the card's raw figure whatever its unit
         * (a fixed figure and a percent of the card divide alike); a card registering none counts
         * by its cores only.
         */
        public double shareSize(long memoryMib, long cores) {
            double corePercent = units.cores().percentOfCard(cores, card.cores()).orElse(Double.NaN);
            return ShareSize.cards(memoryMib, card.memoryMib(), corePercent);
        }
    }

    /**
     * One container's share of one card (several entries for the same card merged).
     *
     * @param pod       the pod
     * @param node      the pod's node
     * @param container index, name and kind of the container (its devices are not repeated here)
     * @param uuid      the card
     * @param memoryMib memory granted on the card
     * @param cores     compute granted on the card
     */
    public record ContainerAllocation(PodRef pod, String node, ContainerRef container, String uuid,
                                      long memoryMib, long cores) {
        public long memoryBytes() {
            return Units.mibToBytes(memoryMib);
        }

        /**
         * A pod's shares per container and card, containers in annotation order, cards in the
         * order the container first lists them; several entries for one card are summed (saturating).
         */
        public static List<ContainerAllocation> of(PodPlacement placement) {
            List<ContainerAllocation> out = new ArrayList<>();
            for (ContainerShares container : placement.containers()) {
                ContainerRef ref = new ContainerRef(container.index(), container.name(), container.init());
                container.byCard().forEach((uuid, grant) -> out.add(new ContainerAllocation(placement.pod(),
                        placement.node(), ref, uuid, grant.memoryMib(), grant.cores())));
            }
            return out;
        }
    }

    /** A container's position, name and kind, without its shares. */
    public record ContainerRef(int index, String name, boolean init) {
    }

    /**
     * Use of one GPU resource in one namespace.
     *
     * @param used  Σ over the namespace's counting pods, in the resource's unit
     * @param limit the smallest hard limit a ResourceQuota sets, if any does
     */
    public record QuotaUsage(String namespace, QuotaResource resource, long used, OptionalLong limit) {
    }

    /** A ready MIG instance on a card registered in MIG mode. */
    public record MigInstanceOnCard(String node, RegisteredCard card, PodRef pod, MigInstance instance) {
    }

    /** A pod's effective use of a card that no node registers. */
    public record UnregisteredCardShare(PodRef pod, String node, CardUse use) {
    }

    /**
     * How current the ledger is.
     *
     * @param synced             whether the source has delivered a complete ledger at least once
     * @param lastSyncEpochMillis when the source last confirmed the ledger complete; 0 if never
     * @param version            increases with every change; equal versions mean equal views
     */
    public record LedgerFreshness(boolean synced, long lastSyncEpochMillis, long version) {
    }
}
