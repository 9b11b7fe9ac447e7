package io.hamiobserve.domain.fleet;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the metrics say about the fleet at one instant, series family by series family, before
 * anything is joined. The allocation side names a container by its index in the pod; the usage
 * side by its name; {@link FleetState#of} joins them.
 *
 * @param at          the instant the figures describe
 * @param registered  every registered card with what the scheduler allocated on it
 * @param hosts       what each card's driver reports (usage endpoints)
 * @param allocations each container's share of each card
 * @param names       container index → name, per pod
 * @param uses        each container's use of each card (HAMi-Core's accounting)
 * @param unmanaged   memory of processes outside HAMi-Core, by owning container
 * @param quotas      GPU resource quotas per namespace
 * @param sources     each exporter source's health
 * @param ledgerAges  seconds since each scheduler exporter last confirmed its ledger complete
 * @param skips       inputs skipped by the exporters over the last hour
 * @param targetsDown exporter targets Prometheus cannot scrape
 * @param containersByNode containers holding shares, per node of a cluster, when the scope left the
 *                    containers themselves out ({@link FleetScope.CardsOnly}); empty otherwise
 * @param provenance  the query behind each measure
 * @param physical    each card's physical counters from DCGM's exporter, by UUID; empty when no
 *                    DCGM exporter is scraped
 * @param origins     where a card's or container's use comes from when not from HAMi-Core's
 *                    accounting or HAMi's usage endpoint (vendor exporters, the driver's processes)
 * @param resources   the resources a container requests for a card, by card model, where they are
 *                    not HAMi's default names ({@code nvidia.com/gpumem}, ...)
 */
public record FleetReadings(Instant at, List<Registered> registered, List<Host> hosts, List<Allocation> allocations,
                            List<ContainerName> names, List<Use> uses, List<Unmanaged> unmanaged, List<Quota> quotas,
                            List<SourceStatus> sources, List<LedgerAge> ledgerAges, List<Skip> skips,
                            List<TargetDown> targetsDown, Map<ClusterNode, Long> containersByNode,
                            Map<Measure, Provenance> provenance, List<Physical> physical, List<Origin> origins,
                            Map<String, CardResources> resources) {

    /** Readings whose use is all HAMi's, on cards requested by HAMi's default names. */
    public FleetReadings(Instant at, List<Registered> registered, List<Host> hosts, List<Allocation> allocations,
                         List<ContainerName> names, List<Use> uses, List<Unmanaged> unmanaged, List<Quota> quotas,
                         List<SourceStatus> sources, List<LedgerAge> ledgerAges, List<Skip> skips,
                         List<TargetDown> targetsDown, Map<ClusterNode, Long> containersByNode,
                         Map<Measure, Provenance> provenance, List<Physical> physical) {
        this(at, registered, hosts, allocations, names, uses, unmanaged, quotas, sources, ledgerAges, skips,
                targetsDown, containersByNode, provenance, physical, List.of(), Map.of());
    }

    /** Readings without DCGM's counters (no DCGM exporter scraped). */
    public FleetReadings(Instant at, List<Registered> registered, List<Host> hosts, List<Allocation> allocations,
                         List<ContainerName> names, List<Use> uses, List<Unmanaged> unmanaged, List<Quota> quotas,
                         List<SourceStatus> sources, List<LedgerAge> ledgerAges, List<Skip> skips,
                         List<TargetDown> targetsDown, Map<ClusterNode, Long> containersByNode,
                         Map<Measure, Provenance> provenance) {
        this(at, registered, hosts, allocations, names, uses, unmanaged, quotas, sources, ledgerAges, skips,
                targetsDown, containersByNode, provenance, List.of());
    }

    public FleetReadings {
        Objects.requireNonNull(at);
        registered = List.copyOf(registered);
        hosts = List.copyOf(hosts);
        allocations = List.copyOf(allocations);
        names = List.copyOf(names);
        uses = List.copyOf(uses);
        unmanaged = List.copyOf(unmanaged);
        quotas = List.copyOf(quotas);
        sources = List.copyOf(sources);
        ledgerAges = List.copyOf(ledgerAges);
        skips = List.copyOf(skips);
        targetsDown = List.copyOf(targetsDown);
        containersByNode = Map.copyOf(containersByNode);
        provenance = Map.copyOf(provenance);
        physical = List.copyOf(physical);
        origins = List.copyOf(origins);
        resources = Map.copyOf(resources);
    }

    /**
     * The measures that describe single containers: what a read of {@link FleetScope.CardsOnly}
     * leaves out.
     */
    private static final java.util.Set<Measure> CONTAINER_MEASURES = java.util.EnumSet.of(
            Measure.CONTAINER_MEMORY_ALLOCATED, Measure.CONTAINER_CORES_ALLOCATED, Measure.CONTAINER_NAMES,
            Measure.CONTAINER_MEMORY_USED, Measure.CONTAINER_UTILISATION, Measure.CONTAINER_LAST_KERNEL,
            Measure.CONTAINER_UNMANAGED_MEMORY, Measure.CONTAINER_USAGE_SOURCE,
            Measure.EXPORTER_CONTAINER_MEMORY_USED, Measure.EXPORTER_CONTAINER_UTILISATION);

    /**
     * These readings as a read of {@link FleetScope.CardsOnly} at the same instant answers: every
     * card as it is, the containers left out and counted per node of a cluster instead — each
     * container holding shares of a node's cards once, its cluster the one its share's series
     * carry (else the cluster registering the card), as the count per node a cards-only read asks
     * for counts them. Readings of every container
     * hold all of it, so the console's background refresh reads them once and derives this view
     * rather than asking the source for the cards twice.
     *
     * @throws IllegalStateException when these readings left the containers out themselves
     */
    public FleetReadings cardsOnly() {
        if (!containersByNode.isEmpty()) {
            throw new IllegalStateException("these readings counted the containers instead of holding them");
        }
        Map<String, String> clusterOfCard = new java.util.HashMap<>();
        registered.forEach(card -> clusterOfCard.putIfAbsent(card.uuid(), card.cluster()));
        Map<ClusterNode, java.util.Set<List<Object>>> containers = new java.util.HashMap<>();
        for (Allocation allocation : allocations) {
            // The share's series carry its cluster (a pod on a card gone from the register too).
            ClusterNode where = new ClusterNode(allocation.cluster().isEmpty()
                    ? clusterOfCard.getOrDefault(allocation.uuid(), "") : allocation.cluster(), allocation.node());
            containers.computeIfAbsent(where, key -> new java.util.HashSet<>())
                    .add(List.of(allocation.namespace(), allocation.pod(), allocation.containerIndex()));
        }
        Map<ClusterNode, Long> counted = new java.util.HashMap<>();
        containers.forEach((where, distinct) -> counted.put(where, (long) distinct.size()));
        Map<Measure, Provenance> cardsProvenance = new java.util.EnumMap<>(Measure.class);
        provenance.forEach((measure, query) -> {
            if (!CONTAINER_MEASURES.contains(measure)) {
                cardsProvenance.put(measure, query);
            }
        });
        Provenance allocated = provenance.get(Measure.CONTAINER_MEMORY_ALLOCATED);
        if (allocated != null) {
            // The count comes from the containers' allocations, so that query is what it was read by.
            cardsProvenance.put(Measure.CONTAINER_COUNT, allocated);
        }
        return new FleetReadings(at, registered, hosts, List.of(), List.of(), List.of(), List.of(), quotas, sources,
                ledgerAges, skips, targetsDown, counted, cardsProvenance, physical,
                origins.stream().filter(Origin::card).toList(), resources);
    }

    /**
     * These readings' part of one cluster, as a read narrowed to that cluster answers it, from the
     * same queries (their provenance is this read's, over every cluster): the console serves one
     * cluster's pages so from the fleet-wide read it keeps, without asking the engine again.
     * Each card's figures, use and counters go with the cluster that registers the card or holds
     * a share of it (a card's UUID is the same card in any cluster); each share, container name,
     * quota, source, ledger, skip and target down with the cluster its series carry (a share whose
     * series carry none, with its card's). Empty where
     * any of them cannot be placed: a card that no cluster registers or shares, or a series
     * without the label beside labelled ones. Which cluster such an item is of, only a narrowed
     * read can tell.
     */
    public Optional<FleetReadings> inCluster(String cluster) {
        Objects.requireNonNull(cluster);
        Map<String, String> clusterOfCard = new java.util.HashMap<>();
        for (Registered card : registered) {
            if (!placed(clusterOfCard, card.uuid(), card.cluster())) {
                return Optional.empty();
            }
        }
        Map<Allocation, String> clusterOfShare = new java.util.IdentityHashMap<>();
        for (Allocation share : allocations) {
            // A share's series carry its cluster; one read without the label is its card's.
            String where = share.cluster().isEmpty() ? clusterOfCard.getOrDefault(share.uuid(), "") : share.cluster();
            if (!placed(clusterOfCard, share.uuid(), where)) {
                return Optional.empty();
            }
            clusterOfShare.put(share, where);
        }
        java.util.function.Predicate<String> cardHere = uuid -> cluster.equals(clusterOfCard.get(uuid));
        boolean unplaced = hosts.stream().anyMatch(host -> !clusterOfCard.containsKey(host.uuid()))
                || unmanaged.stream().anyMatch(each -> !clusterOfCard.containsKey(each.uuid()))
                || physical.stream().anyMatch(each -> !clusterOfCard.containsKey(each.uuid()))
                || uses.stream().anyMatch(use -> !clusterOfCard.containsKey(use.uuid()))
                || origins.stream().anyMatch(origin -> !clusterOfCard.containsKey(origin.uuid()))
                || names.stream().anyMatch(name -> name.cluster().isEmpty())
                || quotas.stream().anyMatch(quota -> quota.cluster().isEmpty())
                || sources.stream().anyMatch(source -> source.cluster().isEmpty())
                || ledgerAges.stream().anyMatch(age -> age.cluster().isEmpty())
                || skips.stream().anyMatch(skip -> skip.cluster().isEmpty())
                || targetsDown.stream().anyMatch(down -> down.cluster().isEmpty())
                || containersByNode.keySet().stream().anyMatch(where -> where.cluster().isEmpty());
        if (unplaced) {
            return Optional.empty();
        }
        Map<ClusterNode, Long> counted = new java.util.HashMap<>();
        containersByNode.forEach((where, count) -> {
            if (where.cluster().equals(cluster)) {
                counted.put(where, count);
            }
        });
        return Optional.of(new FleetReadings(at,
                registered.stream().filter(card -> card.cluster().equals(cluster)).toList(),
                hosts.stream().filter(host -> cardHere.test(host.uuid())).toList(),
                allocations.stream().filter(share -> clusterOfShare.get(share).equals(cluster)).toList(),
                names.stream().filter(name -> name.cluster().equals(cluster)).toList(),
                uses.stream().filter(use -> cardHere.test(use.uuid())).toList(),
                unmanaged.stream().filter(each -> cardHere.test(each.uuid())).toList(),
                quotas.stream().filter(quota -> quota.cluster().equals(cluster)).toList(),
                sources.stream().filter(source -> source.cluster().equals(cluster)).toList(),
                ledgerAges.stream().filter(age -> age.cluster().equals(cluster)).toList(),
                skips.stream().filter(skip -> skip.cluster().equals(cluster)).toList(),
                targetsDown.stream().filter(down -> down.cluster().equals(cluster)).toList(),
                counted, provenance,
                physical.stream().filter(each -> cardHere.test(each.uuid())).toList(),
                origins.stream().filter(origin -> cardHere.test(origin.uuid())).toList(), resources));
    }

    /**
     * Notes {@code uuid}'s cluster; false where it has none or another item placed the card in
     * another cluster (the same UUID in two clusters: only a narrowed read can tell them apart).
     */
    private static boolean placed(Map<String, String> clusterOfCard, String uuid, String cluster) {
        if (cluster.isEmpty()) {
            return false;
        }
        String before = clusterOfCard.putIfAbsent(uuid, cluster);
        return before == null || before.equals(cluster);
    }

    /**
     * Where one card's use (namespace, pod and container empty) or one container's use of a card
     * comes from. A container's figure that names no card has an empty {@code uuid}.
     */
    public record Origin(String uuid, String namespace, String pod, String container, UsageOrigin origin) {
        public Origin {
            Objects.requireNonNull(uuid);
            Objects.requireNonNull(namespace);
            Objects.requireNonNull(pod);
            Objects.requireNonNull(container);
            Objects.requireNonNull(origin);
        }

        /** Whether this is a card's origin rather than a container's. */
        public boolean card() {
            return pod.isEmpty();
        }
    }

    /**
     * A registered card and the scheduler's totals on it (allocation endpoint).
     *
     * @param mode      {@code hami-core}, {@code mig}, or empty when the exporter does not say
     * @param healthy   1 healthy, 0 not
     * @param coresAllocated        in the vendor's own unit (percent, AI cores, compute units, slices)
     * @param slotsUsed             containers sharing the card; {@code slotsTotal} how many may
     * @param coresAllocatedPercent the same as a percent of the card whatever the unit
     *                              ({@code hami_observe_gpu_core_allocated_percent}): the figure to
     *                              average across vendors
     * @param cluster               the cluster that registers it, by the label that tells clusters
     *                              apart in one engine; empty where the source holds one cluster
     */
    public record Registered(String node, String uuid, int index, String model, String mode, Figure healthy,
                             Figure memoryTotal, Figure memoryAllocated, Figure coresTotal, Figure coresAllocated,
                             Figure slotsUsed, Figure slotsTotal, Figure coresAllocatedPercent, String cluster) {
        /** A card of a source that tells no clusters apart. */
        public Registered(String node, String uuid, int index, String model, String mode, Figure healthy,
                          Figure memoryTotal, Figure memoryAllocated, Figure coresTotal, Figure coresAllocated,
                          Figure slotsUsed, Figure slotsTotal, Figure coresAllocatedPercent) {
            this(node, uuid, index, model, mode, healthy, memoryTotal, memoryAllocated, coresTotal, coresAllocated,
                    slotsUsed, slotsTotal, coresAllocatedPercent, "");
        }

        /** A card whose cores are counted in percent of the card (NVIDIA's unit): the raw figure is the percent. */
        public Registered(String node, String uuid, int index, String model, String mode, Figure healthy,
                          Figure memoryTotal, Figure memoryAllocated, Figure coresTotal, Figure coresAllocated,
                          Figure slotsUsed, Figure slotsTotal) {
            this(node, uuid, index, model, mode, healthy, memoryTotal, memoryAllocated, coresTotal, coresAllocated,
                    slotsUsed, slotsTotal, coresAllocated.fractionOf(coresTotal).map(fraction -> 100 * fraction));
        }
    }

    /**
     * A card as its driver sees it (usage endpoint). Memory in bytes, utilisation 0–100.
     *
     * @param beyondAllocation used beyond everything allocated on the card
     */
    public record Host(String node, String uuid, Figure memoryUsed, Figure utilisation, Figure temperature,
                       Figure power, Figure beyondAllocation) {
    }

    /**
     * One container's share of one card, in bytes and percent of a card.
     *
     * @param cluster the pod's cluster, by the label that tells clusters apart in one engine; empty
     *                where the source holds one cluster
     */
    public record Allocation(String namespace, String pod, int containerIndex, String node, String uuid,
                             Figure memory, Figure cores, String cluster) {
        /** A share of an engine that tells no clusters apart. */
        public Allocation(String namespace, String pod, int containerIndex, String node, String uuid, Figure memory,
                          Figure cores) {
            this(namespace, pod, containerIndex, node, uuid, memory, cores, "");
        }
    }

    /**
     * The name of a pod's container at an index.
     *
     * @param cluster the pod's cluster, by the label that tells clusters apart in one engine; empty
     *                where the source holds one cluster
     */
    public record ContainerName(String namespace, String pod, int containerIndex, String container, boolean init,
                                String cluster) {
        /** A container of an engine that tells no clusters apart. */
        public ContainerName(String namespace, String pod, int containerIndex, String container, boolean init) {
            this(namespace, pod, containerIndex, container, init, "");
        }
    }

    /**
     * A container's use of one card: HAMi-Core's memory accounting (bytes), SM utilisation
     * (percent of a card, summed over the container's processes, so above 100 is possible) and
     * seconds since its last kernel.
     */
    public record Use(String namespace, String pod, String container, String node, String uuid, Figure memory,
                      Figure utilisation, Figure lastKernelSeconds) {
    }

    /** Memory used on a card by processes HAMi-Core does not account, by owning container. */
    public record Unmanaged(String node, String uuid, String namespace, String pod, String container, double bytes) {
    }

    /**
     * A GPU resource quota: used and limit in the resource's own unit (MiB for memory, percent for cores).
     *
     * @param resource e.g. {@code nvidia.com/gpumem}
     */
    public record Quota(String namespace, String resource, Figure used, Figure limit, String cluster) {
        /** A quota of an engine that tells no clusters apart. */
        public Quota(String namespace, String resource, Figure used, Figure limit) {
            this(namespace, resource, used, limit, "");
        }
    }

    /**
     * A node by its name within its cluster: two clusters in one engine may both name a node
     * {@code gpu-node-a}. The cluster is empty where the source tells no clusters apart.
     */
    public record ClusterNode(String cluster, String node) {
        public ClusterNode {
            Objects.requireNonNull(cluster);
            Objects.requireNonNull(node);
        }
    }

    /**
     * Whether one exporter's source answered at its last scrape.
     *
     * @param cluster the cluster of the exporter's node, by the label that tells clusters apart in
     *                one engine; empty where the source holds one cluster
     */
    public record SourceStatus(String instance, String node, String source, boolean ok, String cluster) {
        /** A source of an engine that tells no clusters apart. */
        public SourceStatus(String instance, String node, String source, boolean ok) {
            this(instance, node, source, ok, "");
        }

        /** The node the source reports from, within its cluster. */
        public ClusterNode where() {
            return new ClusterNode(cluster, node);
        }
    }

    /** Seconds since a scheduler exporter last confirmed its ledger complete. */
    public record LedgerAge(String instance, double seconds, String cluster) {
        /** An exporter of an engine that tells no clusters apart. */
        public LedgerAge(String instance, double seconds) {
            this(instance, seconds, "");
        }
    }

    /** Inputs skipped over the last hour, with the stable reason. */
    public record Skip(String source, String kind, String reason, double count, String cluster) {
        /** Skips of an engine that tells no clusters apart. */
        public Skip(String source, String kind, String reason, double count) {
            this(source, kind, reason, count, "");
        }
    }

    /** A scrape target of an exporter job that Prometheus cannot reach. */
    public record TargetDown(String job, String instance, String cluster) {
        /** A target of an engine that tells no clusters apart. */
        public TargetDown(String job, String instance) {
            this(job, instance, "");
        }
    }
}
