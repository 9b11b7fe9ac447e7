package io.hamiobserve.role.scheduler;

import io.hamiobserve.exposition.AllSegments;
import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.exposition.Families;
import io.hamiobserve.exposition.FamilyDecorator;
import io.hamiobserve.exposition.FamilySelection;
import io.hamiobserve.exposition.Fingerprint;
import io.hamiobserve.exposition.MetricFamily;
import io.hamiobserve.exposition.RenderCache;
import io.hamiobserve.exposition.SegmentedExposition;
import io.hamiobserve.exposition.Segments;
import io.hamiobserve.exposition.Twins;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.AllocationView.CardAllocation;
import io.hamiobserve.domain.AllocationView.ContainerAllocation;
import io.hamiobserve.domain.AllocationView.MigInstanceOnCard;
import io.hamiobserve.domain.AllocationView.QuotaUsage;
import io.hamiobserve.domain.CardUse;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.HamiCoreFigures;
import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.domain.NodeStamps;
import io.hamiobserve.domain.PendingDemand;
import io.hamiobserve.domain.PodOwner;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.domain.Units;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.hamiobserve.exposition.MetricFamily.gauge;
import static io.hamiobserve.exposition.MetricFamily.hamiGauge;

/**
 * The allocation endpoint's catalogue (HAMi scheduler, reference §2) and how an
 * {@link AllocationView} becomes its series. HAMi's names, HELP texts, labels and units are a
 * contract with existing dashboards; additions are prefixed {@code hami_observe_}.
 *
 * <p>The exposition is segmented (see {@link SegmentedExposition}): per node one segment of what it
 * registers, one of its cards' totals and one of its pods, so that after a pod event only the nodes
 * it touches are rendered again, and of those not what they register.
 * Segments are keyed by the domain's immutable records, which are equal exactly when their series
 * are; the role keys a node's segments by the ledger's stamp of the node instead ({@link NodeStamps}),
 * which changes with every event that touches the node, and what it registers by the stamp of the
 * registration, so a scrape compares no records.
 * Every per-card and per-container series carries its node, so segments of different nodes never
 * produce the same series; within a node, the segment's snapshot deduplicates (two pods of one name
 * on one card, a replaced pod whose deletion has not arrived yet, keep the first).
 */
public final class AllocationMetrics {
    // HAMi's allocation series.
    static final MetricFamily GPU_MEMORY_LIMIT = hamiGauge("hami_gpu_memory_limit_bytes",
            "Device memory limit for a certain GPU", "node", "device_uuid", "device_index", "device_type");
    static final MetricFamily GPU_CORE_LIMIT = hamiGauge("hami_gpu_core_limit_ratio",
            "Device core limit for a certain GPU", "node", "device_uuid", "device_index", "device_type");
    static final MetricFamily GPU_MEMORY_ALLOCATED = hamiGauge("hami_gpu_memory_allocated_bytes",
            "Device memory allocated for a certain GPU", "node", "device_uuid", "device_index", "device_cores",
            "device_type");
    static final MetricFamily GPU_CORE_ALLOCATED = hamiGauge("hami_gpu_core_allocated_ratio",
            "Device core allocated for a certain GPU", "node", "device_uuid", "device_index", "device_type");
    static final MetricFamily GPU_SHARED_COUNT = hamiGauge("hami_gpu_shared_count",
            "Number of containers sharing this GPU", "node", "device_uuid", "device_index", "device_type");
    static final MetricFamily NODE_GPU_OVERVIEW = hamiGauge("hami_node_gpu_overview",
            "GPU overview on a certain node", "node", "device_uuid", "device_index", "device_cores",
            "device_memory_limit", "device_type");
    static final MetricFamily NODE_GPU_MEMORY_ALLOCATED_RATIO = hamiGauge("hami_node_gpu_memory_allocated_ratio",
            "GPU Memory Allocated Percentage on a certain GPU", "node", "device_uuid", "device_index", "device_type");
    static final MetricFamily NODE_GPU_MIG_INSTANCE = hamiGauge("hami_node_gpu_mig_instance_info",
            "Realized MIG instance identity and scheduler placement", "node", "device_uuid", "device_index",
            "mig_uuid", "profile", "gpu_instance_id", "compute_instance_id", "placement_start", "placement_size");
    static final MetricFamily VGPU_MEMORY_ALLOCATED = hamiGauge("hami_vgpu_memory_allocated_bytes",
            "vGPU memory allocated from a container", "namespace", "node", "pod", "container_index", "device_uuid");
    static final MetricFamily VGPU_CORE_ALLOCATED = hamiGauge("hami_vgpu_core_allocated_ratio",
            "vGPU core allocated from a container", "namespace", "node", "pod", "container_index", "device_uuid");
    static final MetricFamily QUOTA_USED = hamiGauge("hami_resource_quota_used",
            "resourcequota usage for a certain device", "namespace", "quota_name", "limit");
    static final MetricFamily QUOTA_LIMIT = hamiGauge("hami_resource_quota_limit",
            "resourcequota limit for a certain device", "namespace", "quota_name");

    // Pre-2.9 names, behind --legacy-metrics: twins of the modern families (LEGACY_NAMES).
    static final MetricFamily LEGACY_MEMORY_LIMIT = hamiGauge("GPUDeviceMemoryLimit",
            "Device memory limit for a certain GPU", "nodeid", "deviceuuid", "deviceidx", "devicetype");
    static final MetricFamily LEGACY_CORE_LIMIT = hamiGauge("GPUDeviceCoreLimit",
            "Device core limit for a certain GPU", "nodeid", "deviceuuid", "deviceidx", "devicetype");
    static final MetricFamily LEGACY_MEMORY_ALLOCATED = hamiGauge("GPUDeviceMemoryAllocated",
            "Device memory allocated for a certain GPU", "nodeid", "deviceuuid", "deviceidx", "devicecores",
            "devicetype");
    static final MetricFamily LEGACY_SHARED_NUM = hamiGauge("GPUDeviceSharedNum",
            "Number of containers sharing this GPU", "nodeid", "deviceuuid", "deviceidx", "devicetype");
    static final MetricFamily LEGACY_CORE_ALLOCATED = hamiGauge("GPUDeviceCoreAllocated",
            "Device core allocated for a certain GPU", "nodeid", "deviceuuid", "deviceidx", "devicetype");
    static final MetricFamily LEGACY_OVERVIEW = hamiGauge("nodeGPUOverview",
            "GPU overview on a certain node", "nodeid", "deviceuuid", "deviceidx", "devicecores",
            "devicememorylimit", "devicetype");
    static final MetricFamily LEGACY_MEMORY_PERCENTAGE = hamiGauge("nodeGPUMemoryPercentage",
            "GPU Memory Allocated Percentage on a certain GPU", "nodeid", "deviceuuid", "deviceidx");
    static final MetricFamily LEGACY_MIG_INSTANCE = hamiGauge("nodeGPUMigInstance",
            "Realized MIG instance identity and scheduler placement", "nodeid", "deviceuuid", "deviceidx", "migname");
    static final MetricFamily LEGACY_QUOTA_USED = hamiGauge("QuotaUsed",
            "resourcequota usage for a certain device", "quotanamespace", "quotaName", "limit");
    static final MetricFamily LEGACY_VGPU_MEMORY = hamiGauge("vGPUMemoryAllocated",
            "vGPU memory allocated from a container", "podnamespace", "nodename", "podname", "containeridx",
            "deviceuuid");
    static final MetricFamily LEGACY_VGPU_CORE = hamiGauge("vGPUCoreAllocated",
            "vGPU core allocated from a container", "podnamespace", "nodename", "podname", "containeridx",
            "deviceuuid");

    // Additions of this project.
    static final MetricFamily CONTAINER_INFO = gauge("hami_observe_container_info",
            "Names the container behind a container_index, so allocation series join usage series "
                    + "(which use the container name), and its pod's top controller as an operator knows it "
                    + "(owner_kind, owner_name: as hami_observe_pod_owner); value 1", "namespace", "node", "pod",
            "container_index", "container", "init", "owner_kind", "owner_name");
    static final MetricFamily NODE_ALLOCATIONS_FINGERPRINT = gauge("hami_observe_node_allocations_fingerprint",
            "A fingerprint of the node's container series on this endpoint (shares, names, owners), made from "
                    + "what they are written from: another once any of them changes, the same while that stays, so "
                    + "that a reader re-reads only the nodes whose series changed; a number below 2^52 with no order",
            "node");
    static final MetricFamily NODE_CARDS_FINGERPRINT = gauge("hami_observe_node_cards_fingerprint",
            "A fingerprint of the node's card series on this endpoint (each card's registration, health and "
                    + "totals), made from what they are written from: another once any of them changes, the same while "
                    + "that stays, so that a reader re-reads only the nodes whose cards' series changed; a number below "
                    + "2^52 with no order", "node");
    static final MetricFamily POD_OWNER = gauge("hami_observe_pod_owner",
            "The pod's top controller as an operator knows it (Deployment, StatefulSet, DaemonSet, CronJob, "
                    + "Rollout, an operator's kind; a ReplicaSet or Job with no controller above it; Pod for a pod "
                    + "with none); value 1", "namespace", "node", "pod", "owner_kind", "owner_name");
    static final MetricFamily GPU_SHARE_LIMIT = gauge("hami_observe_gpu_share_limit",
            "Maximum number of containers that may share the GPU, as registered (count)", "node", "device_uuid",
            "device_index", "device_type");
    static final MetricFamily GPU_HEALTHY = gauge("hami_observe_gpu_healthy",
            "Whether the node registers the GPU as healthy (1) or not (0)", "node", "device_uuid", "device_index",
            "device_type", "mode");
    static final MetricFamily UNREGISTERED_CARD_MEMORY = gauge("hami_observe_unregistered_gpu_memory_allocated_bytes",
            "Memory a pod holds on a GPU that no node registers: a ledger inconsistency, kept out of the GPU totals",
            "namespace", "node", "pod", "device_uuid");
    static final MetricFamily UNREGISTERED_CARD_SHARES = gauge("hami_observe_unregistered_gpu_allocations",
            "Number of pod allocations on GPUs that no node registers");
    static final MetricFamily VGPU_CONTAINER_MEMORY = gauge("hami_observe_vgpu_container_memory_allocated_bytes",
            "vGPU memory allocated to one container, by its position and name, in pods whose containers HAMi's "
                    + "series cannot tell apart (elsewhere hami_vgpu_memory_allocated_bytes under container_index 0 "
                    + "is the pod's one container's share)",
            "namespace", "node", "pod", "container_index", "container", "device_uuid");
    static final MetricFamily VGPU_CONTAINER_CORES = gauge("hami_observe_vgpu_container_core_allocated_ratio",
            "vGPU cores allocated to one container, by its position and name, in the unit of "
                    + "hami_vgpu_core_allocated_ratio, in pods whose containers HAMi's series cannot tell apart",
            "namespace", "node", "pod", "container_index", "container", "device_uuid");
    static final MetricFamily GPU_DEVICE_INFO = gauge("hami_observe_gpu_device_info",
            "The card's vendor (HAMi's device backend) and what its raw memory and core figures mean "
                    + "(memory_unit: mib, fixed_mib, percent_of_card, none; core_unit: percent, compute_units, "
                    + "core_slices, core_bitmask, ai_cores); value 1",
            "node", "device_uuid", "device_index", "device_type", "vendor", "memory_unit", "core_unit");
    static final MetricFamily GPU_CORE_ALLOCATED_PERCENT = gauge("hami_observe_gpu_core_allocated_percent",
            "Cores allocated on the card as a percent of the card, whatever unit the vendor counts them in "
                    + "(hami_gpu_core_allocated_ratio is raw where HAMi is raw)",
            "node", "device_uuid", "device_index", "device_type");
    static final MetricFamily PENDING_PODS = gauge("hami_observe_pending_gpu_pods",
            "Pods that request a HAMi resource and are not placed on a node, by namespace and why (reason: "
                    + "insufficient_memory, insufficient_cores, no_card_of_type, quota, node_affinity, other, "
                    + "not_yet_tried, from the PodScheduled condition)", "namespace", "reason");
    static final MetricFamily PENDING_OLDEST_WAIT = gauge("hami_observe_pending_gpu_pod_oldest_wait_seconds",
            "The longest wait among the pending pods of hami_observe_pending_gpu_pods, seconds since the pod's "
                    + "creation", "namespace", "reason");
    /**
     * The waits of the pods pending now: a histogram of a moment, not of events, so its counts fall
     * as pods are placed (read it with {@code histogram_quantile} as it is, never through {@code rate}).
     * Typed {@code histogram}, not OpenMetrics' {@code gaugehistogram}: the text format has no such
     * type, and the library writes one as several families.
     */
    static final String PENDING_WAIT = "hami_observe_pending_gpu_pod_wait_seconds";
    static final String PENDING_WAIT_HELP = "Waits of the pods pending now (requesting a HAMi resource, not placed), "
            + "seconds since each pod's creation; a histogram of now, not cumulative: counts fall as pods are placed";
    static final MetricFamily LEDGER_SYNCED = gauge("hami_observe_ledger_synced",
            "Whether the scheduler ledger has been read completely at least once (1) or not yet (0)");
    static final MetricFamily LEDGER_LAST_SYNC = gauge("hami_observe_ledger_last_sync_timestamp_seconds",
            "When the ledger source last confirmed the ledger complete, unix seconds; "
                    + "time() minus this is the ledger's age");

    /**
     * HAMi's pre-2.9 names ({@code --legacy-metrics}), as one decorator over this catalogue: each
     * legacy family follows a modern one point by point, under its old label names.
     */
    public static final FamilyDecorator LEGACY_NAMES = Twins.builder()
            .renamed(GPU_MEMORY_LIMIT, LEGACY_MEMORY_LIMIT)
            .renamed(GPU_CORE_LIMIT, LEGACY_CORE_LIMIT)
            .renamed(GPU_MEMORY_ALLOCATED, LEGACY_MEMORY_ALLOCATED)
            .renamed(GPU_CORE_ALLOCATED, LEGACY_CORE_ALLOCATED)
            .renamed(GPU_SHARED_COUNT, LEGACY_SHARED_NUM)
            .renamed(NODE_GPU_OVERVIEW, LEGACY_OVERVIEW)
            // The legacy percentage family never had the device type label.
            .derived(NODE_GPU_MEMORY_ALLOCATED_RATIO, LEGACY_MEMORY_PERCENTAGE,
                    (labels, families) -> new String[] {labels[0], labels[1], labels[2]})
            .renamed(VGPU_MEMORY_ALLOCATED, LEGACY_VGPU_MEMORY)
            .renamed(VGPU_CORE_ALLOCATED, LEGACY_VGPU_CORE)
            .renamed(QUOTA_USED, LEGACY_QUOTA_USED)
            // node, card, index; the MIG instance named profile-gpuInstance.
            .derived(NODE_GPU_MIG_INSTANCE, LEGACY_MIG_INSTANCE,
                    (labels, families) -> new String[] {labels[0], labels[1], labels[2], labels[4] + "-" + labels[5]})
            .build();

    /**
     * Families written only when asked ({@code --metric-opt-in-list}): {@code hami_observe_pod_owner}
     * (one series per pod, 12 MB of text at 100,000 pods), whose owner labels every container's
     * {@code hami_observe_container_info} carries too. The console's and {@code rightsize}'s
     * per-workload grouping and showback by workload read the owner there (and from this family
     * where a history or a user's setup has it), so it is left for rules and dashboards written
     * against it.
     */
    public static final Set<String> OPT_IN = Set.of("hami_observe_pod_owner");

    /** What the endpoint writes unless told: everything but {@link #OPT_IN}. */
    public static final FamilySelection DEFAULT_SELECTION = FamilySelection.defaults(OPT_IN);

    private AllocationMetrics() {
    }

    /**
     * The allocation endpoint's exposition for one view, reusing what {@code cache} rendered for
     * earlier views.
     *
     * @param decorator {@link #LEGACY_NAMES} to emit HAMi's pre-2.9 names too, else {@link FamilyDecorator#NONE}
     * @param tail      series written after the view's (the exporter's own), as collected now
     */
    public static Exposition exposition(AllocationView view, FamilyDecorator decorator, RenderCache cache,
                                        Families tail) {
        return exposition(view, decorator, ContainerSeries.POD_EFFECTIVE, cache, tail);
    }

    /**
     * The same, with HAMi's {@code hami_vgpu_*_allocated_*} series in the given form.
     */
    public static Exposition exposition(AllocationView view, FamilyDecorator decorator, ContainerSeries form,
                                        RenderCache cache, Families tail) {
        return exposition(view, Shard.ALL, decorator, form, cache, tail);
    }

    /**
     * The exposition of {@code shard}'s part of the view (see {@link AllocationView#ownedBy}), with
     * HAMi's {@code hami_vgpu_*_allocated_*} series in the given form.
     */
    public static Exposition exposition(AllocationView view, Shard shard, FamilyDecorator decorator,
                                        ContainerSeries form, RenderCache cache, Families tail) {
        return exposition(view, shard, decorator, form, cache, tail, System.currentTimeMillis());
    }

    /**
     * The same, pending pods' waits told at {@code nowEpochMillis}. Unmet demand (pods with no node)
     * is written by the shard that owns the series of no node only.
     */
    public static Exposition exposition(AllocationView view, Shard shard, FamilyDecorator decorator,
                                        ContainerSeries form, RenderCache cache, Families tail,
                                        long nowEpochMillis) {
        return exposition(view, shard, decorator, form, FamilySelection.ALL, cache, tail, nowEpochMillis);
    }

    /** The same, writing only the families {@code selection} keeps (the role's is {@link #DEFAULT_SELECTION} unless told). */
    public static Exposition exposition(AllocationView view, Shard shard, FamilyDecorator decorator,
                                        ContainerSeries form, FamilySelection selection, RenderCache cache,
                                        Families tail, long nowEpochMillis) {
        return exposition(view, null, shard, decorator, form, selection, cache, tail, nowEpochMillis);
    }

    /**
     * The same, each node's segments keyed by the ledger's stamp of the node ({@link NodeStamps})
     * rather than by its records: a scrape after an event compares no records and renders only the
     * nodes the event touched.
     *
     * @param stamps the stamps of {@code view}'s moment ({@link io.hamiobserve.domain.Ledger#stampedView}),
     *               or {@code null} to key nodes by their records
     */
    public static Exposition exposition(AllocationView view, NodeStamps stamps, Shard shard,
                                        FamilyDecorator decorator, ContainerSeries form, FamilySelection selection,
                                        RenderCache cache, Families tail, long nowEpochMillis) {
        SegmentedExposition exposition = new SegmentedExposition(cache, decorator, selection);
        describe(view, stamps, shard, form, exposition);
        if (shard.ownsClusterSeries()) {
            exposition.append(pendingDemand(PendingDemand.of(view.pending(), nowEpochMillis)));
        }
        exposition.append(tail);
        return exposition;
    }

    /**
     * Unmet demand's series: per namespace and reason the pods and the oldest wait, and the waits'
     * histogram (always, zero when nothing waits, so that its buckets exist for queries).
     * Written through the library's snapshots, as the exporter's own series are: the catalogue's
     * families are gauges and counters only, and these are a handful of points.
     */
    static MetricSnapshots pendingDemand(PendingDemand demand) {
        MetricFamily.Points pods = PENDING_PODS.points();
        MetricFamily.Points oldest = PENDING_OLDEST_WAIT.points();
        for (PendingDemand.Group group : demand.groups()) {
            pods.add(group.pods(), group.namespace(), group.reason().label());
            oldest.add(group.oldestWaitSeconds(), group.namespace(), group.reason().label());
        }
        PendingDemand.WaitHistogram waits = demand.histogram();
        long[] cumulative = waits.cumulativeCounts();
        double[] bounds = new double[cumulative.length + 1];
        long[] counts = new long[cumulative.length + 1];
        long below = 0;
        for (int i = 0; i < cumulative.length; i++) {
            bounds[i] = PendingDemand.WAIT_BUCKETS_SECONDS[i];
            counts[i] = cumulative[i] - below;
            below = cumulative[i];
        }
        bounds[cumulative.length] = Double.POSITIVE_INFINITY;
        counts[cumulative.length] = waits.count() - below;
        HistogramSnapshot histogram = HistogramSnapshot.builder().name(PENDING_WAIT).help(PENDING_WAIT_HELP)
                .dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                        .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, counts))
                        .sum(waits.sumSeconds()).build())
                .build();
        List<MetricSnapshot> snapshots = new ArrayList<>(3);
        if (!pods.isEmpty()) {
            snapshots.add(pods.snapshot());
            snapshots.add(oldest.snapshot());
        }
        snapshots.add(histogram);
        return new MetricSnapshots(snapshots);
    }

    /** The view's series, modern names only, as one set of snapshots (the demo's history is written from it). */
    public static MetricSnapshots snapshots(AllocationView view) {
        AllSegments all = new AllSegments(FamilyDecorator.NONE);
        describe(view, all);
        return all.snapshots();
    }

    /** Fills {@code into} with the view's series, HAMi v2.10's container form. */
    public static void describe(AllocationView view, Segments into) {
        describe(view, ContainerSeries.POD_EFFECTIVE, into);
    }

    /** Fills {@code into} with the view's series: a section per kind of object, a segment per node. */
    public static void describe(AllocationView view, ContainerSeries form, Segments into) {
        describe(view, Shard.ALL, form, into);
    }

    /**
     * Fills {@code into} with the series of {@code shard}'s part of the view: its nodes' cards, pods (and their ghost allocations, {@link GhostSeries})
     * and MIG instances; the series of no node (quotas, unregistered cards, their count even when
     * zero) only on the shard that owns them; the ledger's health on every shard.
     */
    public static void describe(AllocationView view, Shard shard, ContainerSeries form, Segments into) {
        describe(view, null, shard, form, into);
    }

    /**
     * The same, each node's segments keyed by {@code stamps} (see {@link NodeStamps}), or by the
     * node's records when {@code null}.
     */
    public static void describe(AllocationView view, NodeStamps stamps, Shard shard, ContainerSeries form,
                                Segments into) {
        AllocationView owned = view.ownedBy(shard);
        // A shard's pods are fewer than the stamps' runs count: those are walked.
        NodeRuns runs = stamps != null && owned == view ? NodeRuns.of(owned.pods(), stamps) : NodeRuns.of(owned.pods());
        addCards(owned, stamps, into);
        addContainers(owned, form, stamps, runs, into);
        GhostSeries.describe(owned, stamps, runs, into);
        if (shard.ownsClusterSeries()) {
            addUnregisteredCards(owned, into);
        }
        addQuotas(owned, into);
        addMigInstances(owned, into);
        addLedgerHealth(owned, into);
    }

    private static void addCards(AllocationView view, NodeStamps stamps, Segments exposition) {
        // What a node registers (sizes, limits, health, vendor) changes only with its registration;
        // what its pods hold of its cards changes with every pod event on them. Two sections, so
        // that a pod event renders and compresses again the node's totals only, not its registration.
        var registered = exposition.section("cards", families -> {
            families.of(GPU_MEMORY_LIMIT);
            families.of(GPU_CORE_LIMIT);
            families.of(GPU_SHARE_LIMIT);
            families.of(GPU_HEALTHY);
            families.of(GPU_DEVICE_INFO);
        });
        var totals = exposition.section("card-totals", families -> {
            families.of(GPU_MEMORY_ALLOCATED);
            families.of(GPU_CORE_ALLOCATED);
            families.of(GPU_SHARED_COUNT);
            families.of(NODE_GPU_OVERVIEW);
            families.of(NODE_GPU_MEMORY_ALLOCATED_RATIO);
            families.of(GPU_CORE_ALLOCATED_PERCENT);
            families.of(NODE_CARDS_FINGERPRINT);
        });
        // Cards come node by node: one segment per node in each section.
        List<CardAllocation> cards = view.cards();
        for (int from = 0; from < cards.size(); ) {
            int to = from + 1;
            while (to < cards.size() && cards.get(to).node().equals(cards.get(from).node())) {
                to++;
            }
            List<CardAllocation> node = cards.subList(from, to);
            String name = node.get(0).node();
            // Without stamps, the registration's records are the key: the cards, their vendor and
            // units, not their totals. With them, the registration's stamp, which every change of
            // any node's registration moves.
            Object registration = stamps == null
                    ? node.stream().map(card -> List.of(card.card(), card.backend(), card.units())).toList()
                    : stamps.registry();
            registered.segment(List.of(name, registration),
                    families -> node.forEach(card -> addRegisteredCard(card, families)));
            Object key = stamps == null ? List.copyOf(node) : stamps.of(name);
            // The totals' segment is rendered again with the node's pods and with any registration
            // (its key moves with both), so it writes the fingerprint of both sections' series.
            totals.segment(key, families -> {
                node.forEach(card -> addCardTotals(card, families));
                families.get(NODE_CARDS_FINGERPRINT).add(cardsFingerprint(node), name);
            });
            from = to;
        }
    }

    /**
     * What a node's card series are written from ({@link #addRegisteredCard}, {@link #addCardTotals}),
     * card by card in their order, fingerprinted: each figure and label value they write.
     */
    static double cardsFingerprint(List<CardAllocation> node) {
        Fingerprint fingerprint = new Fingerprint().add(node.size());
        for (CardAllocation allocation : node) {
            RegisteredCard card = allocation.card();
            DeviceUnits units = allocation.units();
            fingerprint.add(allocation.node()).add(card.uuid()).add(card.index()).add(card.type())
                    .add(card.memoryBytes()).add(card.memoryMib()).add(card.cores()).add(card.maxShares())
                    .add(card.healthy() ? 1 : 0).add(card.mode().label()).add(allocation.backend())
                    .add(units.memory().label()).add(units.cores().label())
                    .add(allocation.allocatedMemoryBytes()).add(allocation.allocatedCores())
                    .add(allocation.sharedContainers())
                    .add(allocation.memoryAllocatedFraction().orElse(-1))
                    .add(units.cores().percentOfCard(allocation.allocatedCores(), card.cores()).orElse(-1));
        }
        return fingerprint.value();
    }

    private static void addRegisteredCard(CardAllocation allocation, Families families) {
        RegisteredCard card = allocation.card();
        String node = allocation.node();
        String index = Integer.toString(card.index());
        families.get(GPU_MEMORY_LIMIT).add(card.memoryBytes(), node, card.uuid(), index, card.type());
        families.get(GPU_CORE_LIMIT).add(HamiCoreFigures.limit(card.type(), card.cores()), node, card.uuid(), index,
                card.type());
        families.get(GPU_SHARE_LIMIT).add(card.maxShares(), node, card.uuid(), index, card.type());
        families.get(GPU_HEALTHY).add(card.healthy() ? 1 : 0, node, card.uuid(), index, card.type(),
                card.mode().label());
        DeviceUnits units = allocation.units();
        families.get(GPU_DEVICE_INFO).add(1, node, card.uuid(), index, card.type(), allocation.backend(),
                units.memory().label(), units.cores().label());
    }

    private static void addCardTotals(CardAllocation allocation, Families families) {
        RegisteredCard card = allocation.card();
        String node = allocation.node();
        String index = Integer.toString(card.index());
        String cores = Long.toString(card.cores());
        String memoryMib = Long.toString(card.memoryMib());
        families.get(GPU_MEMORY_ALLOCATED).add(allocation.allocatedMemoryBytes(), node, card.uuid(), index, cores,
                card.type());
        families.get(GPU_CORE_ALLOCATED).add(HamiCoreFigures.allocated(card.type(), card.cores(),
                allocation.allocatedCores()), node, card.uuid(), index, card.type());
        families.get(GPU_SHARED_COUNT).add(allocation.sharedContainers(), node, card.uuid(), index, card.type());
        families.get(NODE_GPU_OVERVIEW).add(allocation.allocatedMemoryBytes(), node, card.uuid(), index, cores,
                memoryMib, card.type());
        allocation.memoryAllocatedFraction().ifPresent(fraction ->
                families.get(NODE_GPU_MEMORY_ALLOCATED_RATIO).add(fraction, node, card.uuid(), index, card.type()));
        allocation.units().cores().percentOfCard(allocation.allocatedCores(), card.cores()).ifPresent(percent ->
                families.get(GPU_CORE_ALLOCATED_PERCENT).add(percent, node, card.uuid(), index, card.type()));
    }

    private static void addContainers(AllocationView view, ContainerSeries form, NodeStamps stamps, NodeRuns runs,
                                      Segments exposition) {
        var section = exposition.section("containers", families -> {
            families.of(VGPU_MEMORY_ALLOCATED);
            families.of(VGPU_CORE_ALLOCATED);
            families.of(CONTAINER_INFO);
            families.of(VGPU_CONTAINER_MEMORY);
            families.of(VGPU_CONTAINER_CORES);
            families.of(POD_OWNER);
            families.of(NODE_ALLOCATIONS_FINGERPRINT);
        });
        // HAMi reads a share's cores through its card's type and total (AMD's compute units become
        // percent): the cards it does that for, of those a node's pods hold, are part of the
        // node's segment key, so a segment is rendered again when one of them changes.
        Map<String, RegisteredCard> normalised = new HashMap<>();
        for (CardAllocation card : view.cards()) {
            if (HamiCoreFigures.normalises(card.card().type(), card.card().cores())) {
                normalised.put(card.card().uuid(), card.card());
            }
        }
        // Pods come node by node: one segment per node's pods, with their owners (an owner's
        // change renders again only the nodes of the pods it reaches).
        List<PodPlacement> pods = view.pods();
        List<PodOwner> owners = view.owners();
        for (int run = 0; run < runs.count(); run++) {
            int from = runs.from(run);
            int to = runs.to(run);
            List<PodPlacement> node = stamps == null ? List.copyOf(pods.subList(from, to)) : pods.subList(from, to);
            List<PodOwner> nodeOwners = stamps == null ? List.copyOf(owners.subList(from, to))
                    : owners.subList(from, to);
            // A stamp changes with the node's pods and owners and with every registration; without
            // one the records themselves, and the normalised cards they hold, are the key. Keyed by
            // a stamp, the held cards are looked up only when the node is rendered.
            Map<String, RegisteredCard> heldInKey = stamps == null ? held(node, normalised) : null;
            Object key = stamps == null ? List.of(node, nodeOwners, heldInKey, form)
                    : List.of(stamps.of(runs.node(run)), form);
            String nodeName = runs.node(run);
            // A part per pod: a node rendered again after an event writes again only the pods that
            // changed (a changed pod is another record), and copies the other pods' lines. What else
            // a pod's lines are written from, the normalised cards it holds, is in the lineage: the
            // registration's stamp, which moves with any card's (the full map then serves the
            // lookups: the same figures for the cards a pod holds), or the node's held cards.
            Object lineage = List.of(nodeName, form, stamps != null ? stamps.registry() : heldInKey);
            Map<String, RegisteredCard> cards = heldInKey != null ? heldInKey : normalised;
            section.segment(key, lineage, parts -> {
                addPods(node, nodeOwners, form, cards, parts);
                // What this node's segment says, fingerprinted: the form, then each pod's fingerprint
                // of what its series are written from, as written (addPod), in order.
                Fingerprint fingerprint = new Fingerprint().add(form.name()).add(parts.partsFingerprint());
                parts.families().get(NODE_ALLOCATIONS_FINGERPRINT).add(fingerprint.value(), nodeName);
            });
        }
    }

    /**
     * Each pod as a part of its node's segment, kept while the pod is the same record with the same
     * owner (and the lineage the same: the normalised cards). Pods of one namespace and name (a
     * replaced pod whose deletion has not arrived) would write the same series: they are one part,
     * written together, so that the first is kept, and never kept (a pod of them may change alone).
     */
    private static void addPods(List<PodPlacement> pods, List<PodOwner> owners, ContainerSeries form,
                                Map<String, RegisteredCard> normalised, Segments.Parts parts) {
        if (!inNameOrder(pods)) {
            // Pods of one name apart (a view not from the ledger, which orders them): one part.
            addAsOnePart(pods, owners, form, normalised, parts);
            return;
        }
        for (int from = 0; from < pods.size(); ) {
            int to = from + 1;
            while (to < pods.size() && samePodName(pods.get(from), pods.get(to))) {
                to++;
            }
            if (to == from + 1) {
                PodPlacement pod = pods.get(from);
                PodOwner owner = owners.get(from);
                parts.part(pod, owner, (families, fingerprint) ->
                        addPod(pod, owner, form, normalised, families, fingerprint));
            } else {
                addAsOnePart(pods.subList(from, to), owners.subList(from, to), form, normalised, parts);
            }
            from = to;
        }
    }

    /** Pods written together as one part, never kept: each of them may change alone. */
    private static void addAsOnePart(List<PodPlacement> pods, List<PodOwner> owners, ContainerSeries form,
                                     Map<String, RegisteredCard> normalised, Segments.Parts parts) {
        parts.part(null, null, (families, fingerprint) -> {
            for (int i = 0; i < pods.size(); i++) {
                addPod(pods.get(i), owners.get(i), form, normalised, families, fingerprint);
            }
        });
    }

    /** Whether the pods come in the order of their namespaces and names, as the ledger's view has them. */
    private static boolean inNameOrder(List<PodPlacement> pods) {
        for (int i = 1; i < pods.size(); i++) {
            var before = pods.get(i - 1).pod();
            var pod = pods.get(i).pod();
            int byNamespace = before.namespace().compareTo(pod.namespace());
            if (byNamespace > 0 || byNamespace == 0 && before.name().compareTo(pod.name()) > 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean samePodName(PodPlacement one, PodPlacement other) {
        return one.pod().name().equals(other.pod().name()) && one.pod().namespace().equals(other.pod().namespace());
    }

    private static void addUnregisteredCards(AllocationView view, Segments exposition) {
        var unregistered = exposition.section("unregistered", families -> {
            families.of(UNREGISTERED_CARD_MEMORY);
            families.of(UNREGISTERED_CARD_SHARES);
        });
        List<AllocationView.UnregisteredCardShare> shares = view.unregisteredCardShares();
        unregistered.segment(shares, families -> {
            var memory = families.get(UNREGISTERED_CARD_MEMORY);
            for (AllocationView.UnregisteredCardShare share : shares) {
                memory.add(Units.mibToBytes(share.use().memoryMib()), share.pod().namespace(), share.node(),
                        share.pod().name(), share.use().uuid());
            }
            families.get(UNREGISTERED_CARD_SHARES).add(shares.size());
        });
    }

    /** The normalised cards that {@code pods} hold shares of (usually cards of their own node). */
    private static Map<String, RegisteredCard> held(List<PodPlacement> pods, Map<String, RegisteredCard> normalised) {
        if (normalised.isEmpty()) {
            return Map.of();
        }
        Map<String, RegisteredCard> held = new HashMap<>();
        for (PodPlacement pod : pods) {
            for (ContainerShares container : pod.containers()) {
                for (DeviceShare share : container.devices()) {
                    RegisteredCard card = normalised.get(share.uuid());
                    if (card != null) {
                        held.put(share.uuid(), card);
                    }
                }
            }
        }
        return held;
    }

    /** HAMi's figure for cores on a card: raw, or AMD's compute units as percent. */
    private static double cores(long cores, String uuid, Map<String, RegisteredCard> normalised) {
        RegisteredCard card = normalised.get(uuid);
        return card == null ? cores : HamiCoreFigures.allocated(card.type(), card.cores(), cores);
    }

    /**
     * The pod's series, and what they are written from folded into its node's {@code fingerprint}:
     * the label values every series of the pod shares once (not once a series: a fifth of the
     * rendering after 1,000 pod events was the fold of every point, docs/benchmarks.md), then each
     * card's effective share and each container's share as written, each list after its length so
     * that where one pod's part ends is never in doubt. Whatever a series says is folded in, and
     * what is left out (which series a share appears in) follows from what is folded.
     */
    private static void addPod(PodPlacement pod, PodOwner owner, ContainerSeries form,
                               Map<String, RegisteredCard> normalised, Families families, Fingerprint fingerprint) {
        var memory = families.get(VGPU_MEMORY_ALLOCATED);
        var cores = families.get(VGPU_CORE_ALLOCATED);
        var info = families.get(CONTAINER_INFO);
        var containerMemory = families.get(VGPU_CONTAINER_MEMORY);
        var containerCores = families.get(VGPU_CONTAINER_CORES);
        String namespace = pod.pod().namespace();
        String name = pod.pod().name();
        // The node, as on every per-pod series: two pods of one name on two nodes (a dump, a move
        // whose deletion has not arrived) are two series, never one line twice.
        families.get(POD_OWNER).add(1, namespace, pod.node(), name, owner.kind(), owner.name());
        fingerprint.add(namespace).add(pod.node()).add(name).add(owner.kind()).add(owner.name());
        if (form == ContainerSeries.POD_EFFECTIVE) {
            // HAMi v2.10 collapses a pod's containers before it reports them: one series per pod and
            // card, container_index 0, the pod's effective use, so that the card's sum is its total.
            List<CardUse> uses = CardUse.of(pod);
            fingerprint.add(uses.size());
            for (CardUse use : uses) {
                double useCores = cores(use.cores(), use.uuid(), normalised);
                memory.add(Units.mibToBytes(use.memoryMib()), namespace, pod.node(), name, "0", use.uuid());
                cores.add(useCores, namespace, pod.node(), name, "0", use.uuid());
                fingerprint.add(use.uuid()).add(use.memoryMib()).add(useCores);
            }
        }
        List<ContainerAllocation> allocations = ContainerAllocation.of(pod);
        boolean detail = !toldByPodSeries(allocations);
        fingerprint.add(allocations.size());
        for (ContainerAllocation allocation : allocations) {
            String index = Integer.toString(allocation.container().index());
            String container = allocation.container().name();
            double share = cores(allocation.cores(), allocation.uuid(), normalised);
            fingerprint.add(allocation.container().index()).add(container).add(allocation.container().init() ? 1 : 0)
                    .add(allocation.uuid()).add(allocation.memoryMib()).add(share);
            if (form == ContainerSeries.PER_CONTAINER) {
                memory.add(allocation.memoryBytes(), namespace, allocation.node(), name, index, allocation.uuid());
                cores.add(share, namespace, allocation.node(), name, index, allocation.uuid());
            }
            if (detail) {
                containerMemory.add(allocation.memoryBytes(), namespace, allocation.node(), name, index, container,
                        allocation.uuid());
                containerCores.add(share, namespace, allocation.node(), name, index, container, allocation.uuid());
            }
            if (!container.isEmpty()) {
                info.add(1, namespace, allocation.node(), name, index, container,
                        Boolean.toString(allocation.container().init()), owner.kind(), owner.name());
            }
        }
    }

    /**
     * Whether HAMi's own pod series already say what the per-container detail would: the pod's every
     * share is held by one named app container at position 0, so {@code hami_vgpu_*_allocated_*}
     * under {@code container_index="0"} is that container's share on each card (HAMi v2.10's
     * effective use of a pod with one container is that container's use), and
     * {@code hami_observe_container_info} names it. Most pods are such pods: writing the detail only
     * for the others keeps two series per container out of the exposition (42 MB of text at 100,000
     * containers). Readers take the detail where it is and HAMi's series joined with the name
     * elsewhere (the console's queries: docs/metrics.md "Per-container detail").
     */
    static boolean toldByPodSeries(List<ContainerAllocation> allocations) {
        if (allocations.isEmpty()) {
            return false;
        }
        var container = allocations.getFirst().container();
        if (container.index() != 0 || container.init() || container.name().isEmpty()) {
            return false;
        }
        for (ContainerAllocation allocation : allocations) {
            if (!allocation.container().equals(container)) {
                return false;
            }
        }
        return true;
    }

    private static void addQuotas(AllocationView view, Segments exposition) {
        var section = exposition.section("quotas", families -> {
            families.of(QUOTA_USED);
            families.of(QUOTA_LIMIT);
        });
        List<QuotaUsage> quotas = view.quotas();
        section.segment(quotas, families -> {
            var used = families.get(QUOTA_USED);
            var limits = families.get(QUOTA_LIMIT);
            for (QuotaUsage quota : quotas) {
                String limit = Long.toString(quota.limit().orElse(0));
                String quotaName = quota.resource().quotaName();
                used.add(quota.used(), quota.namespace(), quotaName, limit);
                quota.limit().ifPresent(value -> limits.add(value, quota.namespace(), quotaName));
            }
        });
    }

    private static void addMigInstances(AllocationView view, Segments exposition) {
        var section = exposition.section("mig", families -> families.of(NODE_GPU_MIG_INSTANCE));
        List<MigInstanceOnCard> instances = view.migInstances();
        section.segment(instances, families -> {
            for (MigInstanceOnCard onCard : instances) {
                MigInstance instance = onCard.instance();
                String index = Integer.toString(onCard.card().index());
                families.get(NODE_GPU_MIG_INSTANCE).add(1, onCard.node(), onCard.card().uuid(), index,
                        instance.migUuid(), instance.profile(), Integer.toString(instance.gpuInstanceId()),
                        Integer.toString(instance.computeInstanceId()), Integer.toString(instance.placementStart()),
                        Integer.toString(instance.placementSize()));
            }
        });
    }

    private static void addLedgerHealth(AllocationView view, Segments exposition) {
        var section = exposition.section("ledger", families -> {
            families.of(LEDGER_SYNCED);
            families.of(LEDGER_LAST_SYNC);
        });
        boolean synced = view.freshness().synced();
        long lastSync = view.freshness().lastSyncEpochMillis();
        section.segment(List.of(synced, lastSync), families -> {
            families.get(LEDGER_SYNCED).add(synced ? 1 : 0);
            if (lastSync > 0) {
                families.get(LEDGER_LAST_SYNC).add(lastSync / 1000.0);
            }
        });
    }
}
