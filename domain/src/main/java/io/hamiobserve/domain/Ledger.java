package io.hamiobserve.domain;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The scheduler's ledger, kept current by one source and read by scrapes.
 *
 * <p>Updates are incremental: applying one pod costs work proportional to that pod (its previous
 * contribution is subtracted, the new one added), never to the cluster. Every update is
 * idempotent, so a source that relists after a watch failure re-applies objects without double
 * counting. Thread-safe: one writer and any number of readers may call it concurrently.
 */
public final class Ledger {
    private final Map<String, List<RegisteredCard>> cardsByNode = new TreeMap<>();
    private final Map<String, PodEntry> podsByUid = new HashMap<>();
    /** The same pods in view order, kept sorted as they change so that a view never sorts. */
    private final TreeMap<PodOrder, PodEntry> podsInOrder = new TreeMap<>();
    private final Map<String, long[]> cardTotals = new HashMap<>();
    private final Map<String, EnumMap<QuotaResource, Long>> usedByNamespace = new HashMap<>();
    private final Map<String, Map<String, List<QuotaLimit>>> quotasByNamespace = new HashMap<>();
    private boolean synced;
    private long lastSyncEpochMillis;
    private long version;

    private record PodEntry(PodPlacement placement, List<CardUse> uses) {
    }

    // Indexes into a card's totals array.
    private static final int MEMORY = 0;
    private static final int CORES = 1;
    private static final int SLOTS = 2;

    /** Replaces everything a node registers. An empty list keeps the node with no cards. */
    public synchronized void putNode(String node, List<RegisteredCard> cards) {
        Require.text(node, "node");
        List<RegisteredCard> sorted = new ArrayList<>(cards);
        sorted.sort(Comparator.comparingInt(RegisteredCard::index).thenComparing(RegisteredCard::uuid));
        List<RegisteredCard> registered = List.copyOf(sorted);
        // A relist re-delivers unchanged nodes: keep the version so scrapes can reuse their rendering.
        if (!registered.equals(cardsByNode.put(node, registered))) {
            version++;
        }
    }

    /**
     * Forgets a node and its cards; pods placed on them now count as unregistered-card shares,
     * unless another node still registers the same card.
     */
    public synchronized void removeNode(String node) {
        if (cardsByNode.remove(node) != null) {
            version++;
        }
    }

    /**
     * Records a pod's placement, replacing what was known of it. A pod that no longer holds its
     * allocation (Succeeded or Failed) is removed.
     */
    public synchronized void putPod(PodPlacement placement) {
        Objects.requireNonNull(placement, "placement");
        String uid = placement.pod().uid();
        PodEntry known = podsByUid.get(uid);
        boolean unchanged = known == null ? !placement.holdsAllocation() : known.placement().equals(placement);
        if (unchanged) {
            return;
        }
        PodEntry previous = forget(uid);
        if (previous != null) {
            apply(previous, -1);
        }
        if (placement.holdsAllocation()) {
            PodEntry entry = new PodEntry(placement, CardUse.of(placement));
            podsByUid.put(uid, entry);
            podsInOrder.put(PodOrder.of(placement), entry);
            apply(entry, +1);
        }
        version++;
    }

    /** Forgets a pod (deleted, or no longer placed by HAMi). */
    public synchronized void removePod(String uid) {
        PodEntry previous = forget(uid);
        if (previous != null) {
            apply(previous, -1);
            version++;
        }
    }

    /** Replaces the GPU limits one ResourceQuota object sets; an empty list forgets the object. */
    public synchronized void putQuota(String namespace, String quotaObject, List<QuotaLimit> limits) {
        Require.text(namespace, "namespace");
        Require.text(quotaObject, "quotaObject");
        List<QuotaLimit> copy = List.copyOf(limits);
        Map<String, List<QuotaLimit>> objects = quotasByNamespace.computeIfAbsent(namespace, ns -> new TreeMap<>());
        List<QuotaLimit> previous = copy.isEmpty() ? objects.remove(quotaObject) : objects.put(quotaObject, copy);
        if (objects.isEmpty()) {
            quotasByNamespace.remove(namespace);
        }
        // Removing an unknown object, or re-delivering an unchanged one, is no change.
        if (!copy.equals(previous == null ? List.of() : previous)) {
            version++;
        }
    }

    public synchronized void removeQuota(String namespace, String quotaObject) {
        putQuota(namespace, quotaObject, List.of());
    }

    /** The source delivered (or re-confirmed) a complete ledger at this time. */
    public synchronized void markSynced(long epochMillis) {
        // The freshness is part of the view, and equal versions promise equal views.
        if (!synced || lastSyncEpochMillis != epochMillis) {
            synced = true;
            lastSyncEpochMillis = epochMillis;
            version++;
        }
    }

    public synchronized boolean isSynced() {
        return synced;
    }

    /** How current the ledger is, without building a view: cheap enough to call on every scrape. */
    public synchronized AllocationView.LedgerFreshness freshness() {
        return new AllocationView.LedgerFreshness(synced, lastSyncEpochMillis, version);
    }

    /**
     * Increases with every change to the ledger, including a sync; a scrape can reuse its last
     * rendering while equal. Re-delivering an unchanged object or removing an unknown one is no change.
     */
    public synchronized long version() {
        return version;
    }

    private void apply(PodEntry entry, int sign) {
        String namespace = entry.placement().pod().namespace();
        EnumMap<QuotaResource, Long> used = usedByNamespace.computeIfAbsent(namespace,
                ns -> new EnumMap<>(QuotaResource.class));
        for (CardUse use : entry.uses()) {
            long[] totals = cardTotals.computeIfAbsent(use.uuid(), uuid -> new long[3]);
            totals[MEMORY] += sign * use.memoryMib();
            totals[CORES] += sign * use.cores();
            totals[SLOTS] += sign * use.slots();
            if (totals[SLOTS] == 0) {
                cardTotals.remove(use.uuid());
            }
            used.merge(QuotaResource.GPU_MEMORY_MIB, sign * use.memoryMib(), Long::sum);
            used.merge(QuotaResource.GPU_CORES_PERCENT, sign * use.cores(), Long::sum);
        }
        if (used.values().stream().allMatch(value -> value == 0)) {
            usedByNamespace.remove(namespace);
        }
    }

    private PodEntry forget(String uid) {
        PodEntry previous = podsByUid.remove(uid);
        if (previous != null) {
            podsInOrder.remove(PodOrder.of(previous.placement()));
        }
        return previous;
    }

    /**
     * View order of pods: node, namespace, name, UID. Node first, like the cards, so that readers
     * can take a node's cards and pods together.
     */
    private record PodOrder(String node, String namespace, String name, String uid) implements Comparable<PodOrder> {
        static PodOrder of(PodPlacement placement) {
            PodRef pod = placement.pod();
            return new PodOrder(placement.node(), pod.namespace(), pod.name(), pod.uid());
        }

        @Override
        public int compareTo(PodOrder other) {
            int byNode = node.compareTo(other.node);
            if (byNode != 0) {
                return byNode;
            }
            int byNamespace = namespace.compareTo(other.namespace);
            if (byNamespace != 0) {
                return byNamespace;
            }
            int byName = name.compareTo(other.name);
            return byName != 0 ? byName : uid.compareTo(other.uid);
        }
    }

    /** The allocation view of the ledger as it is now. */
    public synchronized AllocationView view() {
        List<AllocationView.CardAllocation> cards = new ArrayList<>();
        List<AllocationView.MigInstanceOnCard> migInstances = new ArrayList<>();
        // A card may briefly be registered by two nodes (moved, node renamed): the first node by
        // name owns it here, and it stays registered until no node lists it.
        Map<String, RegisteredCard> registered = new HashMap<>();
        Map<String, String> nodeByCard = new HashMap<>();
        cardsByNode.forEach((node, nodeCards) -> {
            for (RegisteredCard card : nodeCards) {
                registered.putIfAbsent(card.uuid(), card);
                nodeByCard.putIfAbsent(card.uuid(), node);
                long[] totals = cardTotals.getOrDefault(card.uuid(), new long[3]);
                cards.add(new AllocationView.CardAllocation(node, card, totals[MEMORY], totals[CORES],
                        (int) totals[SLOTS]));
            }
        });

        Collection<PodEntry> entries = podsInOrder.values();
        List<PodPlacement> pods = new ArrayList<>(entries.size());
        List<AllocationView.UnregisteredCardShare> unregistered = new ArrayList<>();
        for (PodEntry entry : entries) {
            PodPlacement placement = entry.placement();
            pods.add(placement);
            for (CardUse use : entry.uses()) {
                if (!nodeByCard.containsKey(use.uuid())) {
                    unregistered.add(new AllocationView.UnregisteredCardShare(placement.pod(), placement.node(), use));
                }
            }
            for (MigInstance instance : placement.migInstances()) {
                RegisteredCard card = registered.get(instance.gpuUuid());
                if (instance.ready() && card != null && card.mode() == CardMode.MIG) {
                    migInstances.add(new AllocationView.MigInstanceOnCard(nodeByCard.get(card.uuid()), card,
                            placement.pod(), instance));
                }
            }
        }
        return new AllocationView(cards, pods, quotaUsages(), migInstances, unregistered,
                new AllocationView.LedgerFreshness(synced, lastSyncEpochMillis, version));
    }

    private List<AllocationView.QuotaUsage> quotaUsages() {
        TreeSet<String> namespaces = new TreeSet<>(usedByNamespace.keySet());
        namespaces.addAll(quotasByNamespace.keySet());
        List<AllocationView.QuotaUsage> usages = new ArrayList<>();
        for (String namespace : namespaces) {
            Map<QuotaResource, Long> used = usedByNamespace.getOrDefault(namespace, new EnumMap<>(QuotaResource.class));
            for (QuotaResource resource : QuotaResource.values()) {
                OptionalLong limit = quotasByNamespace.getOrDefault(namespace, Map.of()).values().stream()
                        .flatMap(List::stream)
                        .filter(quota -> quota.resource() == resource)
                        .mapToLong(QuotaLimit::hardLimit)
                        .min();
                usages.add(new AllocationView.QuotaUsage(namespace, resource, used.getOrDefault(resource, 0L), limit));
            }
        }
        return usages;
    }
}
