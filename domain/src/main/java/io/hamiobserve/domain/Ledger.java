package io.hamiobserve.domain;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The scheduler's ledger, kept current by one source and read by scrapes.
 *
 * <p>Updates are incremental: applying one pod costs work proportional to that pod (its previous
 * contribution is subtracted, the new one added), never to the cluster. Every update is
 * idempotent, so a source that relists after a watch failure re-applies objects without double
 * counting. Thread-safe: one writer and any number of readers may call it concurrently.
 *
 * <p>Totals cannot overflow: each card's and namespace's totals are exact {@link RunningTotal}s,
 * read saturated (see {@link Quantities}). A card UUID registered by two nodes is counted once,
 * on the first of them by name ({@link #duplicateRegistrations}).
 *
 * <p>Each pod's top controller ({@link PodOwner}) is resolved through the intermediate owners the
 * source puts ({@link #putOwner}: ReplicaSets, Jobs) by {@link OwnerChains}, and kept with the pod.
 * Two indexes make an owner's event re-resolve only the pods whose chain can pass through it: pods
 * by the UID of their own controller (known or not), and owners by the UID of theirs. An owner's
 * event re-resolves the pods under its UID, then those under the owners it controls, and so on
 * ({@link OwnerChains#MAX_LOOKUPS} levels at most): for a ReplicaSet, its pods. A pod's event
 * resolves that pod only.
 */
public final class Ledger {
    /** HAMi's CommonWord of the backend that {@link #putNode} registers cards of. */
    public static final String NVIDIA_BACKEND = "NVIDIA";

    private final Map<String, List<VendorCard>> cardsByNode = new TreeMap<>();
    /** Which nodes register each card UUID; the first by name owns the card in the view. */
    private final Map<String, TreeSet<String>> nodesByCard = new HashMap<>();
    private final Map<String, PodEntry> podsByUid = new HashMap<>();
    /** The same pods in view order, kept sorted as they change so that a view never sorts. */
    private final TreeMap<PodOrder, PodEntry> podsInOrder = new TreeMap<>();
    /**
     * The view's nodes in name order (those registering cards and those with pods) as last found,
     * or {@code null} once a node may have come or gone: a scrape after a pod event on a known
     * node does not find them again (1,250 look-ups in the pods' order).
     */
    private TreeSet<String> viewNodes;
    private final Map<String, CardTotals> cardTotals = new HashMap<>();
    private final Map<String, EnumMap<QuotaResource, RunningTotal>> usedByNamespace = new HashMap<>();
    private final Map<String, Map<String, List<QuotaLimit>>> quotasByNamespace = new HashMap<>();
    /** The intermediate owners (ReplicaSets, Jobs) by UID: identity and controller only. */
    private final Map<String, OwnerObject> ownersByUid = new HashMap<>();
    /** The pods by the UID of their own controller reference. */
    private final Map<String, Set<String>> podsByControllerUid = new HashMap<>();
    /** The intermediate owners by the UID of their controller reference. */
    private final Map<String, Set<String>> ownersByControllerUid = new HashMap<>();
    private boolean synced;
    private long lastSyncEpochMillis;
    private long version;
    /**
     * Per node, the {@link #version} of the last change to what the node's series say (its cards'
     * totals, its pods and their owners); nodes untouched since the registry last changed are
     * absent. See {@link NodeStamps}.
     */
    private final Map<String, Long> nodeStamps = new HashMap<>();
    /** The {@link #version} of the last change to what any node registers. */
    private long registryStamp;
    /** Each node's part of the view as last assembled, reused while its stamp is the same. */
    private final Map<String, NodePart> parts = new HashMap<>();
    /** Pods that request a HAMi resource and are not placed, by UID (unmet demand). */
    private final Map<String, PendingPod> pendingByUid = new HashMap<>();
    /** The same, in view order. */
    private final TreeMap<PodOrder, PendingPod> pendingInOrder = new TreeMap<>();

    /**
     * The most pending pods kept: each is about 370 bytes (PendingDemandBenchmark), so a flood of
     * unschedulable pods (a runaway Job) costs 36 MiB at most; past it a new pod is refused and
     * counted by the source.
     */
    public static final int MAX_PENDING_PODS = 100_000;

    /** A pod as the ledger holds it; its owner changes with the owners above it (under the ledger's lock). */
    private static final class PodEntry {
        final PodPlacement placement;
        /** The pod's effective use of each card it holds. */
        final List<CardUse> uses;
        /** The same, of the shares HAMi's GPU quotas count ({@link QuotaResource#counts}). */
        final List<CardUse> quotaUses;
        /** The pod's top controller. */
        PodOwner owner;

        PodEntry(PodPlacement placement, PodOwner owner) {
            this.placement = placement;
            this.uses = CardUse.of(placement);
            this.quotaUses = CardUse.of(placement, QuotaResource::counts);
            this.owner = owner;
        }

        PodPlacement placement() {
            return placement;
        }

        List<CardUse> uses() {
            return uses;
        }

        List<CardUse> quotaUses() {
            return quotaUses;
        }
    }

    /** What the counting pods hold of one card. */
    private static final class CardTotals {
        final RunningTotal memoryMib = new RunningTotal();
        final RunningTotal cores = new RunningTotal();
        long slots;
    }

    /**
     * A card UUID that two nodes register. A UUID is a card's identity in every view, so the card
     * is counted once, on the node first by name (deterministic whatever order the nodes arrive
     * in); the other registration is left out of the view until one of them withdraws it.
     *
     * @param uuid    the card
     * @param keptBy  the node the card is counted on
     * @param ignored the node whose registration of the card is left out
     */
    public record DuplicateRegistration(String uuid, String keptBy, String ignored) {
    }

    /**
     * Replaces everything a node registers, as cards of HAMi's NVIDIA backend in MiB and percent
     * ({@link DeviceUnits#MIB_AND_PERCENT}). See {@link #putVendorCards}.
     */
    public synchronized void putNode(String node, List<RegisteredCard> cards) {
        List<VendorCard> vendorCards = new ArrayList<>(cards.size());
        for (RegisteredCard card : cards) {
            vendorCards.add(new VendorCard(card, NVIDIA_BACKEND, DeviceUnits.MIB_AND_PERCENT));
        }
        putVendorCards(node, vendorCards);
    }

    /**
     * Replaces everything a node registers, of every vendor. An empty list keeps the node with no
     * cards. A UUID listed twice in {@code cards} is kept once (the first by index).
     */
    public synchronized void putVendorCards(String node, List<VendorCard> cards) {
        Require.text(node, "node");
        List<VendorCard> sorted = new ArrayList<>(cards);
        sorted.sort(Comparator.comparingInt((VendorCard card) -> card.card().index())
                .thenComparing(card -> card.card().uuid()));
        Set<String> seen = new HashSet<>();
        sorted.removeIf(card -> !seen.add(card.card().uuid()));
        List<VendorCard> registered = List.copyOf(sorted);
        List<VendorCard> previous = cardsByNode.put(node, registered);
        if (previous == null) {
            viewNodes = null;
        }
        // A relist re-delivers unchanged nodes: keep the version so scrapes can reuse their rendering.
        if (!registered.equals(previous)) {
            unindex(node, previous);
            for (VendorCard card : registered) {
                nodesByCard.computeIfAbsent(card.card().uuid(), uuid -> new TreeSet<>()).add(node);
            }
            version++;
            registryChanged();
        }
    }

    /**
     * Forgets a node and its cards; pods placed on them now count as unregistered-card shares,
     * unless another node still registers the same card.
     */
    public synchronized void removeNode(String node) {
        List<VendorCard> previous = cardsByNode.remove(node);
        viewNodes = null;
        if (previous != null) {
            unindex(node, previous);
            version++;
            registryChanged();
        }
    }

    /**
     * A registration changed: which node counts a card, a card's type or size (which the series of
     * pods on other nodes may read), so every node's series may have changed. Rare next to pod
     * events; the per-node stamps start again, which also forgets nodes that left.
     */
    private void registryChanged() {
        registryStamp = version;
        nodeStamps.clear();
        parts.clear();
    }

    /**
     * A pod's entry changes: its node's series change, and so do those of every node that
     * registers a card it holds (the card's totals).
     */
    private void touched(PodEntry entry) {
        nodeStamps.put(entry.placement().node(), version);
        for (CardUse use : entry.uses()) {
            TreeSet<String> nodes = nodesByCard.get(use.uuid());
            if (nodes != null) {
                for (String node : nodes) {
                    nodeStamps.put(node, version);
                }
            }
        }
    }

    private void unindex(String node, List<VendorCard> cards) {
        if (cards == null) {
            return;
        }
        for (VendorCard card : cards) {
            String uuid = card.card().uuid();
            TreeSet<String> nodes = nodesByCard.get(uuid);
            if (nodes != null && nodes.remove(node) && nodes.isEmpty()) {
                nodesByCard.remove(uuid);
            }
        }
    }

    /** The cards {@code node} registers that other nodes register too, in the node's card order. */
    public synchronized List<DuplicateRegistration> duplicateRegistrations(String node) {
        List<DuplicateRegistration> duplicates = new ArrayList<>();
        for (VendorCard vendorCard : cardsByNode.getOrDefault(node, List.of())) {
            RegisteredCard card = vendorCard.card();
            TreeSet<String> nodes = nodesByCard.get(card.uuid());
            if (nodes == null || nodes.size() < 2) {
                continue;
            }
            String keeper = nodes.first();
            if (keeper.equals(node)) {
                nodes.tailSet(node, false).forEach(other -> duplicates.add(
                        new DuplicateRegistration(card.uuid(), node, other)));
            } else {
                duplicates.add(new DuplicateRegistration(card.uuid(), keeper, node));
            }
        }
        return duplicates;
    }

    /**
     * Records a pod's placement, replacing what was known of it. A pod that no longer holds its
     * allocation (Succeeded or Failed) is removed.
     *
     * @return the pod's owner chain if it was cut short (a cycle, too deep), for the source to count
     */
    public synchronized List<OwnerChains.Finding> putPod(PodPlacement placement) {
        Objects.requireNonNull(placement, "placement");
        String uid = placement.pod().uid();
        PodEntry known = podsByUid.get(uid);
        boolean unchanged = known == null ? !placement.holdsAllocation() : known.placement().equals(placement);
        if (unchanged) {
            return List.of();
        }
        version++;
        PodEntry previous = forget(uid);
        if (previous != null) {
            apply(previous, -1);
            touched(previous);
        }
        List<OwnerChains.Finding> findings = List.of();
        if (placement.holdsAllocation()) {
            OwnerChains.Resolution resolution = resolve(placement);
            PodEntry entry = new PodEntry(placement, resolution.owner());
            podsByUid.put(uid, entry);
            podsInOrder.put(PodOrder.of(placement), entry);
            if (viewNodes != null && !viewNodes.contains(placement.node())) {
                viewNodes = null;
            }
            controllerUid(placement).ifPresent(owner -> index(podsByControllerUid, owner, uid));
            apply(entry, +1);
            touched(entry);
            findings = finding(placement.pod(), resolution);
        }
        return findings;
    }

    /**
     * Records an intermediate owner (a ReplicaSet, a Job), replacing what was known under its UID,
     * and re-resolves the pods whose chain can pass through it: only those.
     *
     * @return the chains of those pods that were cut short (a cycle, too deep)
     */
    public synchronized List<OwnerChains.Finding> putOwner(OwnerObject owner) {
        Objects.requireNonNull(owner, "owner");
        OwnerObject previous = ownersByUid.put(owner.uid(), owner);
        if (owner.equals(previous)) {
            return List.of();
        }
        if (previous != null) {
            controllerUid(previous).ifPresent(above -> unindex(ownersByControllerUid, above, previous.uid()));
        }
        controllerUid(owner).ifPresent(above -> index(ownersByControllerUid, above, owner.uid()));
        return reresolve(owner.uid());
    }

    /** Forgets an intermediate owner (deleted) and re-resolves the pods whose chain can pass through it. */
    public synchronized List<OwnerChains.Finding> removeOwner(String uid) {
        OwnerObject previous = ownersByUid.remove(uid);
        if (previous == null) {
            return List.of();
        }
        controllerUid(previous).ifPresent(above -> unindex(ownersByControllerUid, above, uid));
        return reresolve(uid);
    }

    /** How many intermediate owners are known. */
    public synchronized int ownerCount() {
        return ownersByUid.size();
    }

    private OwnerChains.Resolution resolve(PodPlacement placement) {
        return OwnerChains.resolve(placement.pod(), placement.controller(), ownersByUid::get);
    }

    /** The UID a pod's chain looks up first; none without a controller or with a reference without UID. */
    private static Optional<String> controllerUid(PodPlacement placement) {
        return placement.controller().ref().map(OwnerRef::uid).filter(uid -> !uid.isEmpty());
    }

    private static Optional<String> controllerUid(OwnerObject owner) {
        return owner.controller().map(OwnerRef::uid).filter(uid -> !uid.isEmpty());
    }

    /**
     * Re-resolves the pods whose chain can pass through {@code ownerUid}: those it controls directly,
     * then those of the owners it controls, level by level, as deep as a chain is followed. A pod
     * re-resolved without need gets the same answer.
     */
    private List<OwnerChains.Finding> reresolve(String ownerUid) {
        List<OwnerChains.Finding> findings = List.of();
        List<String> level = List.of(ownerUid);
        Set<String> seen = null;
        for (int depth = 0; depth < OwnerChains.MAX_LOOKUPS && !level.isEmpty(); depth++) {
            List<String> next = List.of();
            for (String uid : level) {
                findings = reresolvePodsOf(uid, findings);
                Set<String> below = ownersByControllerUid.get(uid);
                if (below == null) {
                    continue;
                }
                if (seen == null) {
                    seen = new HashSet<>();
                    seen.add(ownerUid);
                }
                for (String child : below) {
                    if (seen.add(child)) {
                        if (next.isEmpty()) {
                            next = new ArrayList<>();
                        }
                        next.add(child);
                    }
                }
            }
            level = next;
        }
        return findings;
    }

    private List<OwnerChains.Finding> reresolvePodsOf(String controllerUid, List<OwnerChains.Finding> findings) {
        Set<String> pods = podsByControllerUid.get(controllerUid);
        if (pods == null) {
            return findings;
        }
        // A known owner's chain depends on the pod's namespace only (references stay in their
        // namespace): resolved once for its pods, usually all of one namespace.
        boolean known = ownersByUid.containsKey(controllerUid);
        String lastNamespace = null;
        OwnerChains.Resolution last = null;
        for (String podUid : pods) {
            PodEntry entry = podsByUid.get(podUid);
            String namespace = entry.placement.pod().namespace();
            OwnerChains.Resolution resolution = known && namespace.equals(lastNamespace) ? last
                    : resolve(entry.placement);
            lastNamespace = namespace;
            last = resolution;
            if (resolution.problem().isPresent()) {
                if (findings.isEmpty()) {
                    findings = new ArrayList<>(1);
                }
                findings.addAll(finding(entry.placement.pod(), resolution));
            }
            if (!resolution.owner().equals(entry.owner)) {
                entry.owner = resolution.owner();
                version++;
                nodeStamps.put(entry.placement.node(), version);
            }
        }
        return findings;
    }

    private static List<OwnerChains.Finding> finding(PodRef pod, OwnerChains.Resolution resolution) {
        return resolution.problem()
                .map(problem -> List.of(new OwnerChains.Finding(pod, problem, resolution.owner())))
                .orElse(List.of());
    }

    private static void index(Map<String, Set<String>> index, String key, String value) {
        index.computeIfAbsent(key, k -> new HashSet<>(4)).add(value);
    }

    private static void unindex(Map<String, Set<String>> index, String key, String value) {
        Set<String> values = index.get(key);
        if (values != null && values.remove(value) && values.isEmpty()) {
            index.remove(key);
        }
    }

    /** Forgets a pod (deleted, or no longer placed by HAMi). */
    /**
     * Records a pod that requests a HAMi resource and is not placed, replacing what was known of it.
     *
     * @return false when the pod is new and {@link #MAX_PENDING_PODS} are kept already (it is not kept)
     */
    public synchronized boolean putPending(PendingPod pending) {
        Objects.requireNonNull(pending, "pending");
        String uid = pending.pod().uid();
        PendingPod previous = pendingByUid.get(uid);
        if (pending.equals(previous)) {
            return true;
        }
        if (previous == null && pendingByUid.size() >= MAX_PENDING_PODS) {
            return false;
        }
        if (previous != null) {
            pendingInOrder.remove(PodOrder.of(previous.pod()));
        }
        pendingByUid.put(uid, pending);
        pendingInOrder.put(PodOrder.of(pending.pod()), pending);
        version++;
        return true;
    }

    /** Forgets a pending pod (placed, deleted, or no longer requesting a HAMi resource); unknown UIDs are ignored. */
    public synchronized void removePending(String uid) {
        PendingPod previous = pendingByUid.remove(uid);
        if (previous != null) {
            pendingInOrder.remove(PodOrder.of(previous.pod()));
            version++;
        }
    }

    /** How many pending pods are kept. */
    public synchronized int pendingCount() {
        return pendingByUid.size();
    }

    public synchronized void removePod(String uid) {
        PodEntry previous = forget(uid);
        if (previous != null) {
            apply(previous, -1);
            version++;
            touched(previous);
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

    // Exact running totals: subtracting what was added restores the previous figure even past a long's range.
    private void apply(PodEntry entry, int sign) {
        String namespace = entry.placement().pod().namespace();
        EnumMap<QuotaResource, RunningTotal> used = usedByNamespace.computeIfAbsent(namespace,
                ns -> new EnumMap<>(QuotaResource.class));
        for (CardUse use : entry.uses()) {
            CardTotals totals = cardTotals.computeIfAbsent(use.uuid(), uuid -> new CardTotals());
            totals.memoryMib.add(sign * use.memoryMib());
            totals.cores.add(sign * use.cores());
            totals.slots += sign * use.slots();
            if (totals.slots == 0) {
                cardTotals.remove(use.uuid());
            }
        }
        for (CardUse use : entry.quotaUses()) {
            used.computeIfAbsent(QuotaResource.GPU_MEMORY_MIB, r -> new RunningTotal()).add(sign * use.memoryMib());
            used.computeIfAbsent(QuotaResource.GPU_CORES_PERCENT, r -> new RunningTotal()).add(sign * use.cores());
        }
        if (used.values().stream().allMatch(RunningTotal::isZero)) {
            usedByNamespace.remove(namespace);
        }
    }

    private PodEntry forget(String uid) {
        PodEntry previous = podsByUid.remove(uid);
        if (previous != null) {
            podsInOrder.remove(PodOrder.of(previous.placement()));
            // A node left with neither cards nor pods leaves the view's nodes (and its kept part
            // with it); left among them, it would add nothing to the view.
            String node = previous.placement().node();
            PodOrder next = podsInOrder.ceilingKey(PodOrder.first(node));
            if (!cardsByNode.containsKey(node) && (next == null || !next.node().equals(node))) {
                viewNodes = null;
            }
            controllerUid(previous.placement()).ifPresent(owner -> unindex(podsByControllerUid, owner, uid));
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

        /** Before every pod of {@code node}. */
        static PodOrder first(String node) {
            return new PodOrder(node, "", "", "");
        }

        /** After every pod of {@code node}, before every pod of a node after it. */
        static PodOrder after(String node) {
            return new PodOrder(node + "\0", "", "", "");
        }

        /** A pending pod has no node: pending pods sort by namespace, name, UID. */
        static PodOrder of(PodRef pod) {
            return new PodOrder("", pod.namespace(), pod.name(), pod.uid());
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

    /**
     * The allocation view and its nodes' stamps, read at one moment: a reader that kept what it
     * made of a node's part of an earlier view may reuse it while the node's stamp is the same.
     */
    public synchronized StampedView stampedView() {
        List<NodeStamps.PodRun> podRuns = new ArrayList<>();
        AllocationView view = assemble(podRuns);
        return new StampedView(view, new NodeStamps(registryStamp, nodeStamps, podRuns));
    }

    /** A view and the stamps of its nodes at the same moment. */
    public record StampedView(AllocationView view, NodeStamps stamps) {
    }

    /**
     * What one node contributes to the view, assembled when its stamp (see {@link NodeStamps})
     * last changed: its cards with their totals, its pods and their owners, and what those pods
     * hold of cards no node registers and of MIG instances.
     */
    private record NodePart(long registry, long stamp, List<AllocationView.CardAllocation> cards,
                            List<PodPlacement> pods, int ghosts, List<PodOwner> owners,
                            List<AllocationView.UnregisteredCardShare> unregistered,
                            List<AllocationView.MigInstanceOnCard> migInstances) {
    }

    /**
     * The allocation view of the ledger as it is now. Assembled node by node from the parts kept
     * for the nodes no event touched since the last view: after one pod event, one or two nodes'
     * parts are assembled anew and the others' lists are copied, never the whole ledger walked.
     */
    public synchronized AllocationView view() {
        return assemble(null);
    }

    /** The view, and into {@code podRuns} (when given) each node's count of pods and ghosts in the view's order. */
    private AllocationView assemble(List<NodeStamps.PodRun> podRuns) {
        // Nodes in name order: those that register cards and those that pods are placed on.
        if (viewNodes == null) {
            TreeSet<String> found = new TreeSet<>(cardsByNode.keySet());
            for (PodOrder first = podsInOrder.isEmpty() ? null : podsInOrder.firstKey(); first != null;
                 first = podsInOrder.ceilingKey(PodOrder.after(first.node()))) {
                found.add(first.node());
            }
            viewNodes = found;
        }
        TreeSet<String> nodes = viewNodes;
        renewParts(nodes);
        List<AllocationView.CardAllocation> cards = new ArrayList<>();
        List<PodPlacement> pods = new ArrayList<>(podsInOrder.size());
        List<PodOwner> owners = new ArrayList<>(podsInOrder.size());
        List<AllocationView.UnregisteredCardShare> unregistered = new ArrayList<>();
        List<AllocationView.MigInstanceOnCard> migInstances = new ArrayList<>();
        for (String node : nodes) {
            NodePart part = parts.get(node);
            cards.addAll(part.cards());
            pods.addAll(part.pods());
            if (podRuns != null && !part.pods().isEmpty()) {
                podRuns.add(new NodeStamps.PodRun(node, part.pods().size(), part.ghosts()));
            }
            owners.addAll(part.owners());
            unregistered.addAll(part.unregistered());
            migInstances.addAll(part.migInstances());
        }
        if (parts.size() > nodes.size()) {
            parts.keySet().retainAll(nodes);
        }
        return new AllocationView(cards, pods, owners, quotaUsages(), migInstances, unregistered,
                List.copyOf(pendingInOrder.values()),
                new AllocationView.LedgerFreshness(synced, lastSyncEpochMillis, version));
    }

    /**
     * Below this many nodes whose parts are out of date, assembling them in parallel costs more
     * than it saves (as for the exposition's segments: at 1,250 nodes, after 1,000 pod events, not after 100).
     */
    private static final int PARALLEL_PARTS = 256;

    /**
     * Assembles anew the parts of {@code nodes} whose stamp moved since theirs were assembled. The
     * parts are independent and only read the ledger, which no event changes meanwhile (the caller
     * holds the ledger's lock): after 1,000 pod events at 100,000 pods some 700 nodes' parts are
     * assembled, a walk over most of the pods that takes both cores' time where it has them.
     */
    private void renewParts(TreeSet<String> nodes) {
        List<String> stale = new ArrayList<>();
        for (String node : nodes) {
            NodePart part = parts.get(node);
            if (part == null || part.registry() != registryStamp
                    || part.stamp() != nodeStamps.getOrDefault(node, registryStamp)) {
                stale.add(node);
            }
        }
        var assembling = stale.stream();
        if (stale.size() >= PARALLEL_PARTS) {
            assembling = assembling.parallel();
        }
        List<NodePart> renewed = assembling
                .map(node -> nodePart(node, nodeStamps.getOrDefault(node, registryStamp), parts.get(node)))
                .toList();
        for (int i = 0; i < stale.size(); i++) {
            parts.put(stale.get(i), renewed.get(i));
        }
    }

    /** The node's part as the ledger has it now; {@code before}, its last part if any, sizes the lists. */
    private NodePart nodePart(String node, long stamp, NodePart before) {
        List<AllocationView.CardAllocation> cards = new ArrayList<>();
        for (VendorCard vendorCard : cardsByNode.getOrDefault(node, List.of())) {
            RegisteredCard card = vendorCard.card();
            // A card registered by two nodes (moved, node renamed, or a node lying) is counted once: the
            // first node by name owns it, and it stays registered until no node lists it.
            if (!nodesByCard.get(card.uuid()).first().equals(node)) {
                continue;
            }
            CardTotals totals = cardTotals.get(card.uuid());
            cards.add(totals == null
                    ? new AllocationView.CardAllocation(node, card, 0, 0, 0, vendorCard.backend(),
                            vendorCard.units())
                    : new AllocationView.CardAllocation(node, card, totals.memoryMib.saturated(),
                            totals.cores.saturated(), Quantities.toIntSaturated(totals.slots),
                            vendorCard.backend(), vendorCard.units()));
        }
        Collection<PodEntry> entries = podsInOrder.subMap(PodOrder.first(node), true, PodOrder.after(node), false)
                .values();
        // A sub-map counts its entries by walking them: the node's last count is a close guess.
        int expected = before != null ? before.pods().size() + 4 : 16;
        List<PodPlacement> pods = new ArrayList<>(expected);
        List<PodOwner> owners = new ArrayList<>(expected);
        List<AllocationView.UnregisteredCardShare> unregistered = new ArrayList<>();
        List<AllocationView.MigInstanceOnCard> migInstances = new ArrayList<>();
        int ghosts = 0;
        for (PodEntry entry : entries) {
            PodPlacement placement = entry.placement();
            pods.add(placement);
            if (Ghost.of(placement).isPresent()) {
                ghosts++;
            }
            owners.add(entry.owner);
            for (CardUse use : entry.uses()) {
                if (!nodesByCard.containsKey(use.uuid())) {
                    unregistered.add(new AllocationView.UnregisteredCardShare(placement.pod(), placement.node(), use));
                }
            }
            for (MigInstance instance : placement.migInstances()) {
                TreeSet<String> registrants = nodesByCard.get(instance.gpuUuid());
                if (!instance.ready() || registrants == null) {
                    continue;
                }
                String owner = registrants.first();
                for (VendorCard vendorCard : cardsByNode.get(owner)) {
                    RegisteredCard card = vendorCard.card();
                    if (card.uuid().equals(instance.gpuUuid()) && card.mode() == CardMode.MIG) {
                        migInstances.add(new AllocationView.MigInstanceOnCard(owner, card, placement.pod(), instance));
                    }
                }
            }
        }
        return new NodePart(registryStamp, stamp, List.copyOf(cards), List.copyOf(pods), ghosts, List.copyOf(owners),
                List.copyOf(unregistered), List.copyOf(migInstances));
    }

    private List<AllocationView.QuotaUsage> quotaUsages() {
        TreeSet<String> namespaces = new TreeSet<>(usedByNamespace.keySet());
        namespaces.addAll(quotasByNamespace.keySet());
        List<AllocationView.QuotaUsage> usages = new ArrayList<>();
        for (String namespace : namespaces) {
            Map<QuotaResource, RunningTotal> used = usedByNamespace.getOrDefault(namespace,
                    new EnumMap<>(QuotaResource.class));
            for (QuotaResource resource : QuotaResource.values()) {
                OptionalLong limit = quotasByNamespace.getOrDefault(namespace, Map.of()).values().stream()
                        .flatMap(List::stream)
                        .filter(quota -> quota.resource() == resource)
                        .mapToLong(QuotaLimit::hardLimit)
                        .min();
                RunningTotal total = used.get(resource);
                usages.add(new AllocationView.QuotaUsage(namespace, resource, total == null ? 0 : total.saturated(),
                        limit));
            }
        }
        return usages;
    }
}
