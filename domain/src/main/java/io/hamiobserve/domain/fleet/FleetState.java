package io.hamiobserve.domain.fleet;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The fleet at one instant, joined from {@link FleetReadings}: every card with the containers on
 * it, every workload with its cards, per node and per namespace summaries, and the exporters'
 * health. Every list is sorted, so two states of the same readings compare and render alike.
 * {@code clusterOfCard} (by UUID) and {@code clusterOfNode} (by name) say which clusters register
 * each, where the source tells clusters apart ({@link #cluster(Card)}).
 *
 * <p>Where it does, a card keeps its UUID as its key (a GPU's UUID is unique in the world) and its
 * cluster is the one that registers it; a node is keyed by (cluster, name) and a workload by
 * (cluster, namespace/pod/container), their cluster being that of the cards they hold, so two
 * clusters' {@code node-a} are two rows. Lists are sorted by cluster first: without clusters the
 * cluster is empty everywhere and the rows and their order are as without that key. A card that two
 * clusters both register (colliding UUIDs: a broken source) stays one row named by both clusters
 * ("east, west"), and so does the node or workload row its shares fall in.
 */
public record FleetState(Instant at, List<Card> cards, List<Workload> workloads, List<NodeSummary> nodes,
                         List<NamespaceSummary> namespaces, Health health, Map<Measure, Provenance> provenance,
                         Map<String, Set<String>> clusterOfCard, Map<String, Set<String>> clusterOfNode) {

    /** A ledger not confirmed complete for this long is stale (the alert rule's threshold). */
    public static final double LEDGER_STALE_SECONDS = 300;

    public FleetState {
        cards = List.copyOf(cards);
        workloads = List.copyOf(workloads);
        nodes = List.copyOf(nodes);
        namespaces = List.copyOf(namespaces);
        provenance = Map.copyOf(provenance);
        clusterOfCard = sortedCopy(clusterOfCard);
        clusterOfNode = sortedCopy(clusterOfNode);
    }

    /**
     * Per node: its cards and workloads, summed. {@code cluster} is the cluster whose cards it
     * registers (empty where the source tells no clusters apart): two clusters' nodes of one name are
     * two summaries.
     */
    public record NodeSummary(String name, int cards, int workloads, Figure memoryTotal, Figure memoryAllocated,
                              Figure memoryUsed, Figure coresTotal, Figure coresAllocated, Figure utilisation,
                              int cardsWithoutUsage, int sourcesFailing, Figure coresAllocatedFraction,
                              String cluster) {
    }

    /**
     * Per namespace: its workloads summed, against its quotas (memory quota in bytes, cores in
     * percent of a card; missing when the namespace has no quota).
     */
    public record NamespaceSummary(String name, int workloads, Figure memoryAllocated, Figure memoryUsed,
                                   Figure coresAllocated, Figure utilisation, Figure memoryQuota,
                                   Figure coresQuota) {
    }

    /** What the exporters say about themselves. */
    public record Health(List<FleetReadings.SourceStatus> failing, List<FleetReadings.LedgerAge> ledgerAges,
                         List<FleetReadings.Skip> skips, List<FleetReadings.TargetDown> targetsDown,
                         int sourcesReporting) {
        public Health {
            failing = List.copyOf(failing);
            ledgerAges = List.copyOf(ledgerAges);
            skips = List.copyOf(skips);
            targetsDown = List.copyOf(targetsDown);
        }

        public boolean ledgerStale() {
            return ledgerAges.stream().anyMatch(age -> age.seconds() > LEDGER_STALE_SECONDS);
        }

        public double skippedLastHour() {
            return skips.stream().mapToDouble(FleetReadings.Skip::count).sum();
        }

        /**
         * Whether any exporter has reported its sources: a Prometheus that has not scraped one yet
         * (a fresh start, history loaded from elsewhere) says nothing about their health.
         */
        public boolean reported() {
            return sourcesReporting > 0 || !failing.isEmpty();
        }

        /** Reported, and nothing failing, down or stale. */
        public boolean healthy() {
            return reported() && failing.isEmpty() && targetsDown.isEmpty() && !ledgerStale();
        }
    }

    private record ShareKey(String namespace, String pod, String container, String uuid) {
    }

    /** Joins the readings. Rows that repeat a key (two scheduler replicas) are taken once. */
    public static FleetState of(FleetReadings readings) {
        Map<String, FleetReadings.Registered> registered = firstBy(readings.registered(),
                FleetReadings.Registered::uuid);
        Map<String, FleetReadings.Host> hosts = firstBy(readings.hosts(), FleetReadings.Host::uuid);
        Map<String, Physical> physical = firstBy(readings.physical(), Physical::uuid);
        Map<ShareKey, Double> unmanaged = new HashMap<>();
        for (FleetReadings.Unmanaged each : readings.unmanaged()) {
            unmanaged.merge(new ShareKey(each.namespace(), each.pod(), each.container(), each.uuid()), each.bytes(),
                    Double::sum);
        }
        // Which cluster registers each card and each node, named in full where two clusters hold the
        // same UUID (a broken source: that card's row is both clusters' together).
        Map<String, Set<String>> cardClusters = new HashMap<>();
        Map<String, Set<String>> nodeClusters = new HashMap<>();
        for (FleetReadings.Registered card : readings.registered()) {
            if (!card.cluster().isEmpty()) {
                cardClusters.computeIfAbsent(card.uuid(), uuid -> new TreeSet<>()).add(card.cluster());
                nodeClusters.computeIfAbsent(card.node(), node -> new TreeSet<>()).add(card.cluster());
            }
        }
        Map<String, String> cardCluster = new HashMap<>();
        cardClusters.forEach((uuid, registering) -> cardCluster.put(uuid, named(registering)));
        Function<String, String> clusterOf = uuid -> cardCluster.getOrDefault(uuid, "");

        // A container's name by (cluster, namespace, pod, index), and by (namespace, pod, index) for a
        // share whose cluster names none (a card two clusters register: a broken source).
        Map<List<Object>, String> names = new HashMap<>();
        for (FleetReadings.ContainerName name : readings.names()) {
            names.putIfAbsent(List.of(name.cluster(), name.namespace(), name.pod(), name.containerIndex()),
                    name.container());
            names.putIfAbsent(List.of(name.namespace(), name.pod(), name.containerIndex()), name.container());
        }
        Function<FleetReadings.Allocation, String> containerOf = allocation -> {
            String named = names.get(List.of(clusterOf.apply(allocation.uuid()), allocation.namespace(),
                    allocation.pod(), allocation.containerIndex()));
            return named != null ? named : names.getOrDefault(List.of(allocation.namespace(), allocation.pod(),
                    allocation.containerIndex()), WorkloadRef.unnamed(allocation.containerIndex()));
        };

        // The exporters' sources by the node they report from within its cluster: a node name two
        // clusters share is two nodes, one of them failing does not make the other's figures missing.
        // A status without the cluster label (a relabeling that labels the scheduler's job only)
        // speaks for every cluster's node of its name, as before clusters were told apart.
        Set<FleetReadings.ClusterNode> failingCacheNodes = new HashSet<>();
        Set<FleetReadings.ClusterNode> failingDriverNodes = new HashSet<>();
        Set<FleetReadings.ClusterNode> reportingNodes = new HashSet<>();
        for (FleetReadings.SourceStatus source : readings.sources()) {
            if (!source.node().isEmpty() && !source.source().equals("ledger")) {
                reportingNodes.add(source.where());
            }
            if (!source.ok() && source.source().equals("cachefile")) {
                failingCacheNodes.add(source.where());
            }
            if (!source.ok() && source.source().equals("nvml")) {
                failingDriverNodes.add(source.where());
            }
        }
        readings.hosts().forEach(host -> reportingNodes.add(
                new FleetReadings.ClusterNode(clusterOf.apply(host.uuid()), host.node())));

        // A container's figure that names no card (some vendors' exporters) is the container's use of
        // its only card; of a container holding several, it cannot be placed and is left out.
        Map<List<String>, Set<String>> cardsOfContainer = new HashMap<>();
        for (FleetReadings.Allocation allocation : readings.allocations()) {
            String container = containerOf.apply(allocation);
            cardsOfContainer.computeIfAbsent(List.of(allocation.namespace(), allocation.pod(), container),
                    key -> new java.util.TreeSet<>()).add(allocation.uuid());
        }
        Function<List<String>, Optional<String>> onlyCard = container -> {
            Set<String> held = cardsOfContainer.getOrDefault(container, Set.of());
            return held.size() == 1 ? Optional.of(held.iterator().next()) : Optional.empty();
        };
        Map<ShareKey, FleetReadings.Use> uses = new LinkedHashMap<>();
        for (FleetReadings.Use use : readings.uses()) {
            Optional<String> uuid = !use.uuid().isEmpty() ? Optional.of(use.uuid())
                    : onlyCard.apply(List.of(use.namespace(), use.pod(), use.container()));
            uuid.ifPresent(card -> uses.putIfAbsent(new ShareKey(use.namespace(), use.pod(), use.container(), card),
                    use.uuid().isEmpty() ? new FleetReadings.Use(use.namespace(), use.pod(), use.container(),
                            use.node(), card, use.memory(), use.utilisation(), use.lastKernelSeconds()) : use));
        }
        Map<ShareKey, UsageOrigin> containerOrigins = new HashMap<>();
        Map<String, UsageOrigin> cardOrigins = new HashMap<>();
        for (FleetReadings.Origin origin : readings.origins()) {
            if (origin.card()) {
                cardOrigins.putIfAbsent(origin.uuid(), origin.origin());
                continue;
            }
            Optional<String> uuid = !origin.uuid().isEmpty() ? Optional.of(origin.uuid())
                    : onlyCard.apply(List.of(origin.namespace(), origin.pod(), origin.container()));
            uuid.ifPresent(card -> containerOrigins.putIfAbsent(
                    new ShareKey(origin.namespace(), origin.pod(), origin.container(), card), origin.origin()));
        }

        List<WorkloadShare> shares = new ArrayList<>();
        Set<ShareKey> joined = new HashSet<>();
        for (FleetReadings.Allocation allocation : readings.allocations()) {
            String container = containerOf.apply(allocation);
            ShareKey key = new ShareKey(allocation.namespace(), allocation.pod(), container, allocation.uuid());
            if (!joined.add(key)) {
                continue;
            }
            FleetReadings.Use use = uses.get(key);
            FleetReadings.Registered card = registered.get(allocation.uuid());
            double outside = unmanaged.getOrDefault(key, 0.0);
            Figure used;
            Figure utilisation;
            Figure lastKernel;
            if (use != null) {
                used = use.memory();
                utilisation = use.utilisation();
                lastKernel = use.lastKernelSeconds();
            } else {
                FleetReadings.ClusterNode where = new FleetReadings.ClusterNode(clusterOf.apply(allocation.uuid()),
                        allocation.node());
                Absence why = outside > 0 ? Absence.OUTSIDE_HAMI_CORE
                        : card != null && "mig".equals(card.mode()) ? Absence.MIG_INSTANCE
                        : holds(failingCacheNodes, where) ? Absence.SOURCE_FAILING
                        : !holds(reportingNodes, where) ? Absence.NO_USAGE_EXPORTER
                        : Absence.NO_USAGE_YET;
                used = Figure.missing(why);
                utilisation = Figure.missing(why);
                lastKernel = Figure.missing(why);
            }
            String model = card == null ? "" : card.model();
            shares.add(new WorkloadShare(new WorkloadRef(allocation.namespace(), allocation.pod(), container),
                    allocation.containerIndex(), allocation.node(), allocation.uuid(), model, allocation.memory(),
                    allocation.cores(), used, utilisation, lastKernel, outside,
                    use == null ? Optional.empty() : Optional.ofNullable(containerOrigins.get(key)),
                    resources(readings, model)));
        }
        for (Map.Entry<ShareKey, FleetReadings.Use> entry : uses.entrySet()) {
            if (joined.contains(entry.getKey())) {
                continue;
            }
            // Usage of a container the allocation side does not list (another scheduler, or a
            // ledger that has not caught up): shown, with its allocation missing.
            FleetReadings.Use use = entry.getValue();
            FleetReadings.Registered card = registered.get(use.uuid());
            String node = !use.node().isEmpty() ? use.node() : card != null ? card.node() : "";
            String model = card == null ? "" : card.model();
            shares.add(new WorkloadShare(new WorkloadRef(use.namespace(), use.pod(), use.container()), -1, node,
                    use.uuid(), model, Figure.missing(Absence.NOT_REPORTED),
                    Figure.missing(Absence.NOT_REPORTED), use.memory(), use.utilisation(), use.lastKernelSeconds(),
                    unmanaged.getOrDefault(entry.getKey(), 0.0),
                    Optional.ofNullable(containerOrigins.get(entry.getKey())), resources(readings, model)));
        }
        shares.sort(Comparator.comparing(WorkloadShare::workload).thenComparing(WorkloadShare::uuid));


        Map<String, List<WorkloadShare>> sharesByCard = new HashMap<>();
        shares.forEach(share -> sharesByCard.computeIfAbsent(share.uuid(), uuid -> new ArrayList<>()).add(share));

        List<Card> cards = new ArrayList<>();
        for (FleetReadings.Registered card : registered.values()) {
            FleetReadings.Host host = hosts.get(card.uuid());
            cards.add(card(card.node(), card.uuid(), card.index(), card.model(), card.mode(), card.healthy(),
                    card.memoryTotal(), card.memoryAllocated(), card.coresTotal(), card.coresAllocated(),
                    card.coresAllocatedPercent(), card.slotsUsed(), card.slotsTotal(), host, failingDriverNodes,
                    reportingNodes,
                    sharesByCard.getOrDefault(card.uuid(), List.of()), physical.get(card.uuid()),
                    cardOrigins.get(card.uuid()), clusterOf.apply(card.uuid())));
        }
        for (FleetReadings.Host host : hosts.values()) {
            if (!registered.containsKey(host.uuid())) {
                Figure unknown = Figure.missing(Absence.NOT_REPORTED);
                cards.add(card(host.node(), host.uuid(), -1, "", "", unknown, unknown, unknown, unknown, unknown,
                        unknown, unknown, unknown, host, failingDriverNodes, reportingNodes,
                        sharesByCard.getOrDefault(host.uuid(), List.of()), physical.get(host.uuid()),
                        cardOrigins.get(host.uuid()), clusterOf.apply(host.uuid())));
            }
        }
        cards.sort(Comparator.comparing((Card card) -> clusterOf.apply(card.uuid())).thenComparing(Card::node)
                .thenComparingInt(Card::index).thenComparing(Card::uuid));

        // A workload is keyed by its cluster and its reference: a namespace/pod/container that two
        // clusters both run is two workloads, each holding its own cluster's shares.
        Map<Keyed<WorkloadRef>, List<WorkloadShare>> byWorkload = new TreeMap<>();
        shares.forEach(share -> byWorkload.computeIfAbsent(new Keyed<>(clusterOf.apply(share.uuid()),
                share.workload()), key -> new ArrayList<>()).add(share));
        List<Workload> workloads = new ArrayList<>();
        byWorkload.forEach((key, parts) -> workloads.add(new Workload(key.key(), parts.getFirst().node(), parts)));

        return new FleetState(readings.at(), cards, workloads,
                nodes(cards, workloads, clusterOf, readings.containersByNode(), readings.sources()),
                namespaces(workloads, readings.quotas()), health(readings), readings.provenance(),
                cardClusters, nodeClusters);
    }

    /** A row's key within its cluster (empty where the source tells no clusters apart), sorted by cluster first. */
    private record Keyed<K extends Comparable<? super K>>(String cluster, K key) implements Comparable<Keyed<K>> {
        @Override
        public int compareTo(Keyed<K> other) {
            int byCluster = cluster.compareTo(other.cluster);
            return byCluster != 0 ? byCluster : key.compareTo(other.key);
        }
    }

    private static Map<String, Set<String>> sortedCopy(Map<String, Set<String>> clusters) {
        Map<String, Set<String>> copy = new HashMap<>();
        clusters.forEach((key, names) -> copy.put(key, java.util.Collections.unmodifiableSortedSet(new TreeSet<>(names))));
        return Map.copyOf(copy);
    }

    private static String named(Set<String> clusters) {
        return String.join(", ", clusters);
    }

    /**
     * The cluster that registers {@code card}, by the label that tells clusters apart in one
     * engine: empty where the source holds one cluster; several, comma-separated, where clusters
     * share the card's UUID.
     */
    public String cluster(Card card) {
        return named(clusterOfCard.getOrDefault(card.uuid(), Set.of()));
    }

    /** The cluster whose cards {@code node} registers (as {@link #cluster(Card)}). */
    public String cluster(NodeSummary node) {
        return node.cluster();
    }

    /** The cluster(s) of the cards {@code workload} holds shares of (as {@link #cluster(Card)}). */
    public String cluster(Workload workload) {
        Set<String> names = new TreeSet<>();
        workload.shares().forEach(share -> names.addAll(clusterOfCard.getOrDefault(share.uuid(), Set.of())));
        return named(names);
    }

    private static Card card(String node, String uuid, int index, String model, String mode, Figure healthy,
                             Figure memoryTotal, Figure memoryAllocated, Figure coresTotal, Figure coresAllocated,
                             Figure coresAllocatedPercent, Figure slotsUsed, Figure slotsTotal, FleetReadings.Host host,
                             Set<FleetReadings.ClusterNode> failingDriverNodes,
                             Set<FleetReadings.ClusterNode> reportingNodes, List<WorkloadShare> shares,
                             Physical physical, UsageOrigin origin, String cluster) {
        if (host != null) {
            return new Card(node, uuid, index, model, mode, healthy, memoryTotal, memoryAllocated, host.memoryUsed(),
                    coresTotal, coresAllocated, host.utilisation(), slotsUsed, slotsTotal, host.temperature(),
                    host.power(), host.beyondAllocation(), coresAllocatedPercent, shares, Optional.ofNullable(physical),
                    Optional.ofNullable(origin));
        }
        FleetReadings.ClusterNode where = new FleetReadings.ClusterNode(cluster, node);
        Figure none = Figure.missing(holds(failingDriverNodes, where) ? Absence.SOURCE_FAILING
                : holds(reportingNodes, where) ? Absence.NOT_REPORTED : Absence.NO_USAGE_EXPORTER);
        return new Card(node, uuid, index, model, mode, healthy, memoryTotal, memoryAllocated, none, coresTotal,
                coresAllocated, none, slotsUsed, slotsTotal, none, none, none, coresAllocatedPercent, shares,
                Optional.ofNullable(physical));
    }

    /** Whether {@code nodes} has {@code where}, or its name with no cluster (a status that tells none). */
    private static boolean holds(Set<FleetReadings.ClusterNode> nodes, FleetReadings.ClusterNode where) {
        return nodes.contains(where) || !where.cluster().isEmpty()
                && nodes.contains(new FleetReadings.ClusterNode("", where.node()));
    }

    /** The resources requested for a card of {@code model}: the vendor's where the readings name them. */
    private static CardResources resources(FleetReadings readings, String model) {
        return readings.resources().getOrDefault(model, CardResources.HAMI_DEFAULT);
    }

    /**
     * Per (cluster, node), the cluster being that of its cards; the containers counted per node
     * ({@code counted}) and the exporters' failing sources are those of the same cluster's node.
     */
    private static List<NodeSummary> nodes(List<Card> cards, List<Workload> workloads,
                                           Function<String, String> clusterOf,
                                           Map<FleetReadings.ClusterNode, Long> counted,
                                           List<FleetReadings.SourceStatus> sources) {
        Map<Keyed<String>, List<Card>> cardsByNode = new TreeMap<>();
        cards.forEach(card -> cardsByNode.computeIfAbsent(new Keyed<>(clusterOf.apply(card.uuid()), card.node()),
                node -> new ArrayList<>()).add(card));
        Map<Keyed<String>, Integer> workloadsByNode = new HashMap<>();
        workloads.forEach(workload -> workloadsByNode.merge(new Keyed<>(clusterOf.apply(
                workload.shares().getFirst().uuid()), workload.node()), 1, Integer::sum));
        Map<FleetReadings.ClusterNode, Integer> failing = new HashMap<>();
        sources.stream().filter(source -> !source.ok() && !source.node().isEmpty())
                .forEach(source -> failing.merge(source.where(), 1, Integer::sum));
        List<NodeSummary> nodes = new ArrayList<>();
        cardsByNode.forEach((key, onNode) -> {
            FleetReadings.ClusterNode where = new FleetReadings.ClusterNode(key.cluster(), key.key());
            nodes.add(new NodeSummary(key.key(), onNode.size(),
                    workloadsByNode.getOrDefault(key, 0) + counted.getOrDefault(where, 0L).intValue(),
                    total(onNode, Card::memoryTotal), total(onNode, Card::memoryAllocated),
                    total(onNode, Card::memoryUsed), total(onNode, Card::coresTotal),
                    total(onNode, Card::coresAllocated), total(onNode, Card::utilisation),
                    (int) onNode.stream().filter(card -> !card.memoryUsed().isKnown()).count(),
                    failing.getOrDefault(where, 0) + (key.cluster().isEmpty() ? 0
                            : failing.getOrDefault(new FleetReadings.ClusterNode("", key.key()), 0)),
                    coresAllocatedFraction(onNode), key.cluster()));
        });
        return nodes;
    }

    /**
     * The share of the cards' compute allocated: the mean over the cards of each one's allocated
     * percent, as the Grafana dashboard takes it. A sum of allocated cores over a sum of card cores
     * would add AI cores (Ascend) to percents (NVIDIA); each card's percent is in no vendor's unit.
     * Where no card reports the percent (HAMi's own exporter alone), the raw sums, right when every
     * card counts in percent.
     */
    static Figure coresAllocatedFraction(List<Card> cards) {
        List<Figure> percents = cards.stream().map(Card::coresAllocatedPercent).filter(Figure::isKnown).toList();
        if (percents.isEmpty()) {
            return total(cards, Card::coresAllocated).fractionOf(total(cards, Card::coresTotal));
        }
        return Figure.of(percents.stream().mapToDouble(Figure::orElseThrow).average().orElseThrow() / 100);
    }

    private static List<NamespaceSummary> namespaces(List<Workload> workloads, List<FleetReadings.Quota> quotas) {
        Map<String, List<Workload>> byNamespace = new TreeMap<>();
        workloads.forEach(workload -> byNamespace.computeIfAbsent(workload.ref().namespace(), ns -> new ArrayList<>())
                .add(workload));
        Map<String, Figure> memoryQuota = new HashMap<>();
        Map<String, Figure> coresQuota = new HashMap<>();
        for (FleetReadings.Quota quota : quotas) {
            byNamespace.computeIfAbsent(quota.namespace(), ns -> new ArrayList<>());
            // A namespace of one name in several clusters is one row here, as its workloads are:
            // its quota the largest of theirs.
            if (quota.resource().endsWith("gpumem")) {
                // HAMi's quota series speak MiB; everything else here speaks bytes.
                memoryQuota.merge(quota.namespace(), quota.limit().map(mib -> mib * 1024 * 1024), Figure::max);
            } else if (quota.resource().endsWith("gpucores")) {
                coresQuota.merge(quota.namespace(), quota.limit(), Figure::max);
            }
        }
        List<NamespaceSummary> namespaces = new ArrayList<>();
        Figure none = Figure.missing(Absence.NO_QUOTA);
        byNamespace.forEach((namespace, members) -> namespaces.add(new NamespaceSummary(namespace, members.size(),
                total(members, Workload::memoryAllocated), total(members, Workload::memoryUsed),
                total(members, Workload::coresAllocated), total(members, Workload::utilisation),
                memoryQuota.getOrDefault(namespace, none), coresQuota.getOrDefault(namespace, none))));
        return namespaces;
    }

    private static Health health(FleetReadings readings) {
        List<FleetReadings.SourceStatus> failing = readings.sources().stream()
                .filter(source -> !source.ok())
                .sorted(Comparator.comparing(FleetReadings.SourceStatus::cluster)
                        .thenComparing(FleetReadings.SourceStatus::node)
                        .thenComparing(FleetReadings.SourceStatus::source))
                .toList();
        return new Health(failing, readings.ledgerAges(), acrossClusters(readings.skips()), readings.targetsDown(),
                readings.sources().size());
    }

    /**
     * The skips of each source, kind and reason summed over the clusters, in their order: the
     * health line counts inputs skipped, not where (a read of one cluster holds that cluster's).
     */
    private static List<FleetReadings.Skip> acrossClusters(List<FleetReadings.Skip> skips) {
        Map<List<String>, Double> counts = new java.util.LinkedHashMap<>();
        skips.forEach(skip -> counts.merge(List.of(skip.source(), skip.kind(), skip.reason()), skip.count(),
                Double::sum));
        return counts.entrySet().stream().map(entry -> new FleetReadings.Skip(entry.getKey().get(0),
                entry.getKey().get(1), entry.getKey().get(2), entry.getValue())).toList();
    }

    /** The known parts summed; missing only when no part is known. */
    static <T> Figure total(List<T> items, Function<T, Figure> figure) {
        return Figure.Total.of(items.stream().map(figure).toList()).figure();
    }

    private static <T> Map<String, T> firstBy(List<T> rows, Function<T, String> key) {
        Map<String, T> first = new LinkedHashMap<>();
        rows.forEach(row -> first.putIfAbsent(key.apply(row), row));
        return first;
    }

    /**
     * Whether any card of the fleet has DCGM's counters: when none has, no DCGM exporter is scraped
     * (or none reports these cards), and a page says so once instead of per figure.
     */
    public boolean dcgmScraped() {
        return cards.stream().anyMatch(card -> card.physical().isPresent());
    }

    public Optional<Card> card(String uuid) {
        return cards.stream().filter(card -> card.uuid().equals(uuid)).findFirst();
    }

    /** The node of this name: the first cluster's where clusters share the name ({@link #node(String, String)}). */
    public Optional<NodeSummary> node(String name) {
        return nodes.stream().filter(node -> node.name().equals(name)).findFirst();
    }

    /** The node of this name in {@code cluster} (empty where the source tells no clusters apart). */
    public Optional<NodeSummary> node(String cluster, String name) {
        return nodes.stream().filter(node -> node.cluster().equals(cluster) && node.name().equals(name)).findFirst();
    }

    public Optional<Workload> workload(WorkloadRef ref) {
        return workloads.stream().filter(workload -> workload.ref().equals(ref)).findFirst();
    }

    public Provenance provenance(Measure measure) {
        return provenance.getOrDefault(measure, new Provenance(measure.name().toLowerCase(java.util.Locale.ROOT), ""));
    }
}
