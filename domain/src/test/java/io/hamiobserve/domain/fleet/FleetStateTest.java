package io.hamiobserve.domain.fleet;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.hamiobserve.domain.fleet.Readings.GIB;
import static io.hamiobserve.domain.fleet.Readings.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FleetStateTest {
    private static final String A100 = "NVIDIA A100";

    private static Readings twoCards() {
        return new Readings()
                .card("node-a", "GPU-0", 0, A100, "hami-core", 40, 16, 70, 3, 10)
                .card("node-a", "GPU-1", 1, A100, "hami-core", 40, 0, 0, 0, 10)
                .host("node-a", "GPU-0", 7, 30)
                .host("node-a", "GPU-1", 0.4, 0)
                .share("ml", "llm", 0, "server", "node-a", "GPU-0", 8192, 30)
                .use("ml", "llm", "server", "node-a", "GPU-0", 2100, 20);
    }

    @Test
    void allocationByIndexJoinsUsageByName() {
        FleetState state = twoCards().state();
        Workload llm = state.workload(new WorkloadRef("ml", "llm", "server")).orElseThrow();
        WorkloadShare share = llm.shares().getFirst();
        assertEquals(8192 * MIB, share.memoryAllocated().orElseThrow());
        assertEquals(2100 * MIB, share.memoryUsed().orElseThrow());
        assertEquals((8192 - 2100) * MIB, share.memoryIdle().orElseThrow());
        assertEquals(A100, share.model());
        assertEquals(List.of(share), state.card("GPU-0").orElseThrow().shares());
    }

    @Test
    void aContainerWithoutUsageIsMissingWithTheReasonNotZero() {
        FleetState state = twoCards()
                .share("ml", "pending", 0, "worker", "node-a", "GPU-1", 4096, 10)
                .state();
        WorkloadShare pending = state.workload(new WorkloadRef("ml", "pending", "worker")).orElseThrow()
                .shares().getFirst();
        assertEquals(Figure.missing(Absence.NO_USAGE_YET), pending.memoryUsed());
        assertEquals(Figure.missing(Absence.NO_USAGE_YET), pending.memoryIdle());
        assertEquals(Figure.missing(Absence.NO_USAGE_YET), pending.utilisation());
    }

    @Test
    void theReasonForMissingUsageSaysWhatIsWrong() {
        Readings readings = twoCards()
                .card("node-b", "GPU-2", 0, A100, "hami-core", 40, 8, 10, 1, 10)
                .card("node-c", "GPU-3", 0, "H100", "mig", 80, 10, 14, 1, 7)
                .share("research", "sim", 0, "sim", "node-a", "GPU-1", 2048, 10)
                .share("ml", "far", 0, "x", "node-b", "GPU-2", 8192, 10)
                .share("ml", "mig", 0, "tuner", "node-c", "GPU-3", 10240, 14);
        readings.unmanaged.add(new FleetReadings.Unmanaged("node-a", "GPU-1", "research", "sim", "sim", 6 * GIB));
        FleetState state = readings.state();
        assertEquals(Figure.missing(Absence.OUTSIDE_HAMI_CORE),
                state.workload(new WorkloadRef("research", "sim", "sim")).orElseThrow().memoryUsed());
        assertEquals(6 * GIB, state.workload(new WorkloadRef("research", "sim", "sim")).orElseThrow().unmanagedMemory());
        assertEquals(Figure.missing(Absence.NO_USAGE_EXPORTER),
                state.workload(new WorkloadRef("ml", "far", "x")).orElseThrow().memoryUsed());
        assertEquals(Figure.missing(Absence.NO_USAGE_EXPORTER), state.card("GPU-2").orElseThrow().memoryUsed());
        assertEquals(Figure.missing(Absence.MIG_INSTANCE),
                state.workload(new WorkloadRef("ml", "mig", "tuner")).orElseThrow().memoryUsed());

        readings.sources.add(new FleetReadings.SourceStatus("node-b:9394", "node-b", "cachefile", false));
        readings.sources.add(new FleetReadings.SourceStatus("node-b:9394", "node-b", "nvml", false));
        FleetState failing = readings.state();
        assertEquals(Figure.missing(Absence.SOURCE_FAILING),
                failing.workload(new WorkloadRef("ml", "far", "x")).orElseThrow().memoryUsed());
        assertEquals(Figure.missing(Absence.SOURCE_FAILING), failing.card("GPU-2").orElseThrow().utilisation());
        assertEquals(2, failing.health().failing().size());
        assertFalse(failing.health().healthy());
    }

    @Test
    void usageOfAContainerTheLedgerDoesNotListIsShownWithItsAllocationMissing() {
        FleetState state = twoCards().use("ml", "stray", "main", "node-a", "GPU-1", 512, 5).state();
        Workload stray = state.workload(new WorkloadRef("ml", "stray", "main")).orElseThrow();
        assertEquals(Figure.missing(Absence.NOT_REPORTED), stray.memoryAllocated());
        assertEquals(512 * MIB, stray.memoryUsed().orElseThrow());
        assertEquals(-1, stray.shares().getFirst().containerIndex());
    }

    @Test
    void aContainerWhoseNameIsUnknownIsNamedByItsIndex() {
        Readings readings = twoCards();
        readings.allocations.add(new FleetReadings.Allocation("ml", "old", 2, "node-a", "GPU-1", Figure.of(MIB),
                Figure.of(5)));
        FleetState state = readings.state();
        assertTrue(state.workload(new WorkloadRef("ml", "old", "#2")).isPresent());
    }

    @Test
    void aMultiCardContainerSumsOverItsCardsAndAMissingPartMakesTheSumMissing() {
        FleetState state = twoCards()
                .share("vision", "embed", 0, "worker", "node-a", "GPU-0", 10240, 40)
                .share("vision", "embed", 0, "worker", "node-a", "GPU-1", 10240, 40)
                .use("vision", "embed", "worker", "node-a", "GPU-0", 9000, 30)
                .state();
        Workload embed = state.workload(new WorkloadRef("vision", "embed", "worker")).orElseThrow();
        assertEquals(20480 * MIB, embed.memoryAllocated().orElseThrow());
        assertEquals(80, embed.coresAllocated().orElseThrow());
        assertEquals(Figure.missing(Absence.NO_USAGE_YET), embed.memoryUsed());
        assertEquals(List.of("GPU-0", "GPU-1"), embed.cards());
    }

    @Test
    void totalsCountUseOverTheCardsThatReportIt() {
        Readings readings = twoCards().card("node-b", "GPU-2", 0, A100, "hami-core", 40, 8, 10, 1, 10);
        FleetTotals totals = FleetTotals.of(readings.state());
        assertEquals(3, totals.cards());
        assertEquals(2, totals.nodes());
        assertEquals(1, totals.cardsWithoutUsage());
        assertEquals(120 * GIB, totals.memoryTotal().orElseThrow());
        assertEquals(24.0 / 120, totals.memoryAllocatedFraction().orElseThrow(), 1e-9);
        // 7.4 GiB used on the two reporting cards (80 GiB), not over all three (120 GiB).
        assertEquals(7.4 / 80, totals.memoryUsedFraction().orElseThrow(), 1e-9);
        assertEquals(80.0 / 300, totals.coresAllocatedFraction().orElseThrow(), 1e-9);
        assertEquals(30.0 / 200, totals.coresUsedFraction().orElseThrow(), 1e-9);
        assertEquals((8192 - 2100) * MIB, totals.memoryIdle().orElseThrow());
        assertEquals((8192 - 2100) * MIB / (40 * GIB), totals.memoryIdleCards().orElseThrow(), 1e-9);
    }

    @Test
    void cardsUsedBeyondTheirAllocationAreFound() {
        Readings readings = new Readings().card("node-a", "GPU-0", 0, A100, "hami-core", 40, 2, 10, 1, 10);
        readings.hosts.add(new FleetReadings.Host("node-a", "GPU-0", Figure.of(6.5 * GIB), Figure.of(50),
                Figure.missing(Absence.NOT_SUPPORTED), Figure.missing(Absence.NOT_SUPPORTED),
                Figure.missing(Absence.NOT_REPORTED)));
        FleetState state = readings.state();
        assertEquals(List.of("GPU-0"), FleetTotals.usedBeyondAllocation(state).stream().map(Card::uuid).toList());
        Card card = state.card("GPU-0").orElseThrow();
        assertEquals(Figure.missing(Absence.NOT_SUPPORTED), card.temperature());
        assertEquals(6.5 * GIB, card.memoryOutsideHamiCore().orElseThrow());
    }

    @Test
    void topIdleAllocationsAreTheLargestFirst() {
        FleetState state = twoCards()
                .share("ml", "small", 0, "c", "node-a", "GPU-1", 1024, 5)
                .use("ml", "small", "c", "node-a", "GPU-1", 512, 5)
                .state();
        List<WorkloadShare> top = FleetTotals.topIdle(state, 5);
        assertEquals(List.of("llm", "small"), top.stream().map(share -> share.workload().pod()).toList());
        assertEquals(1, FleetTotals.topIdle(state, 1).size());
    }

    @Test
    void namespacesAreSummedAndSetAgainstTheirQuotaInBytes() {
        Readings readings = twoCards();
        readings.quotas.add(new FleetReadings.Quota("ml", "nvidia.com/gpumem", Figure.of(8192), Figure.of(40960)));
        readings.quotas.add(new FleetReadings.Quota("idle-team", "nvidia.com/gpucores", Figure.of(0), Figure.of(100)));
        FleetState state = readings.state();
        FleetState.NamespaceSummary ml = state.namespaces().getFirst();
        assertEquals("idle-team", ml.name());
        FleetState.NamespaceSummary team = state.namespaces().get(1);
        assertEquals(40 * GIB, team.memoryQuota().orElseThrow());
        assertEquals(8192 * MIB, team.memoryAllocated().orElseThrow());
        assertEquals(Figure.missing(Absence.NO_QUOTA), team.coresQuota());
        assertEquals(100, ml.coresQuota().orElseThrow());
    }

    @Test
    void aStaleLedgerIsUnhealthy() {
        Readings readings = twoCards();
        FleetReadings fresh = readings.build();
        FleetReadings stale = new FleetReadings(fresh.at(), fresh.registered(), fresh.hosts(), fresh.allocations(),
                fresh.names(), fresh.uses(), fresh.unmanaged(), fresh.quotas(), fresh.sources(),
                List.of(new FleetReadings.LedgerAge("scheduler:9395", 301)), List.of(), List.of(), Map.of(),
                fresh.provenance());
        assertTrue(FleetState.of(fresh).health().healthy());
        assertTrue(FleetState.of(stale).health().ledgerStale());
    }

    @Test
    void nothingReportedIsNotHealthy() {
        FleetReadings fresh = twoCards().build();
        FleetReadings silent = new FleetReadings(fresh.at(), fresh.registered(), fresh.hosts(), fresh.allocations(),
                fresh.names(), fresh.uses(), fresh.unmanaged(), fresh.quotas(), List.of(), fresh.ledgerAges(),
                List.of(), List.of(), Map.of(), fresh.provenance());
        assertTrue(FleetState.of(fresh).health().reported());
        assertFalse(FleetState.of(silent).health().reported());
        assertFalse(FleetState.of(silent).health().healthy(), "no exporter reporting says nothing of their health");
    }

    @Test
    void eachCardNodeAndWorkloadNamesTheClusterThatRegistersIt() {
        Readings readings = new Readings();
        readings.registered.add(registered("east", "gpu-1", "GPU-E0"));
        readings.registered.add(registered("west", "gpu-2", "GPU-W0"));
        FleetState state = readings.share("ml", "llm", 0, "server", "gpu-1", "GPU-E0", 1024, 10)
                .share("ml", "trainer", 0, "main", "gpu-2", "GPU-W0", 1024, 10).state();
        assertEquals("east", state.cluster(state.card("GPU-E0").orElseThrow()));
        assertEquals("west", state.cluster(state.card("GPU-W0").orElseThrow()));
        assertEquals("west", state.cluster(state.node("gpu-2").orElseThrow()));
        assertEquals("east", state.cluster(state.workload(new WorkloadRef("ml", "llm", "server")).orElseThrow()));
        assertEquals("west", state.cluster(state.workload(new WorkloadRef("ml", "trainer", "main")).orElseThrow()));
        // A source that tells no clusters apart names none.
        FleetState single = twoCards().state();
        assertEquals("", single.cluster(single.card("GPU-0").orElseThrow()));
        assertEquals("", single.cluster(single.node("node-a").orElseThrow()));
        assertTrue(single.nodes().stream().allMatch(node -> node.cluster().isEmpty()), single.nodes().toString());
    }

    @Test
    void aNodeAndAPodThatTwoClustersShareAreOneRowPerClusterEachWithItsOwnCards() {
        Readings readings = new Readings();
        // Both clusters run node-a and the pod ml/trainer on it, on cards of their own (distinct UUIDs).
        readings.registered.add(registered("west", "node-a", "GPU-W0"));
        readings.registered.add(registered("east", "node-a", "GPU-E0"));
        readings.registered.add(registered("east", "node-a", "GPU-E1"));
        readings.registered.add(registered("east", "node-b", "GPU-E2"));
        FleetState state = readings.share("ml", "trainer", 0, "main", "node-a", "GPU-W0", 2048, 20)
                .share("ml", "trainer", 0, "main", "node-a", "GPU-E0", 1024, 10)
                .share("ml", "trainer", 0, "main", "node-a", "GPU-E1", 1024, 10)
                .share("ml", "llm", 0, "server", "node-b", "GPU-E2", 512, 5).state();

        assertEquals(List.of("east node-a 2 cards 1 workloads", "east node-b 1 cards 1 workloads",
                        "west node-a 1 cards 1 workloads"),
                state.nodes().stream().map(node -> state.cluster(node) + " " + node.name() + " " + node.cards()
                        + " cards " + node.workloads() + " workloads").toList());
        assertEquals(40 * GIB, state.node("west", "node-a").orElseThrow().memoryTotal().orElseThrow());
        assertEquals(80 * GIB, state.node("east", "node-a").orElseThrow().memoryTotal().orElseThrow());

        // The workload both clusters run: two rows, sorted by cluster, each holding its cluster's shares.
        List<Workload> trainers = state.workloads().stream()
                .filter(workload -> workload.ref().equals(new WorkloadRef("ml", "trainer", "main"))).toList();
        assertEquals(List.of("east", "west"), trainers.stream().map(state::cluster).toList());
        assertEquals(List.of(List.of("GPU-E0", "GPU-E1"), List.of("GPU-W0")),
                trainers.stream().map(Workload::cards).toList());
        assertEquals(List.of("east", "east", "west"), state.workloads().stream().map(state::cluster).toList(),
                "sorted by cluster, then reference");
        assertEquals(List.of("east", "east", "east", "west"), state.cards().stream().map(state::cluster).toList(),
                "cards sorted by cluster, then node");
    }

    @Test
    void aCardThatTwoClustersBothRegisterIsOneRowNamedByBoth() {
        // Colliding UUIDs (a broken source): the card, its node and its workload stay one row each,
        // named by both clusters, apart from the rows of each cluster alone.
        Readings readings = new Readings();
        readings.registered.add(registered("east", "node-a", "GPU-SAME"));
        readings.registered.add(registered("west", "node-a", "GPU-SAME"));
        readings.registered.add(registered("west", "node-a", "GPU-W1"));
        FleetState state = readings.share("ml", "trainer", 0, "main", "node-a", "GPU-SAME", 1024, 10)
                .share("ml", "trainer", 0, "main", "node-a", "GPU-W1", 1024, 10).state();
        assertEquals("east, west", state.cluster(state.card("GPU-SAME").orElseThrow()));
        assertEquals(List.of("east, west node-a", "west node-a"),
                state.nodes().stream().map(node -> state.cluster(node) + " " + node.name()).toList());
        assertEquals(List.of("east, west", "west"), state.workloads().stream().map(state::cluster).toList());
    }

    @Test
    void eachClustersTotalsComeFromItsOwnCardsAndNodesWhereEachNamesOneCluster() {
        Readings readings = new Readings();
        readings.registered.add(registered("west", "node-a", "GPU-W0"));
        readings.registered.add(registered("east", "node-a", "GPU-E0"));
        readings.registered.add(registered("east", "node-b", "GPU-E1"));
        FleetState state = readings.share("ml", "trainer", 0, "main", "node-a", "GPU-W0", 2048, 20)
                .share("ml", "llm", 0, "server", "node-b", "GPU-E1", 512, 5).state();
        Map<String, FleetTotals> byCluster = FleetTotals.byCluster(state).orElseThrow();
        assertEquals(List.of("east", "west"), List.copyOf(byCluster.keySet()));
        FleetTotals east = byCluster.get("east");
        assertEquals(2, east.cards());
        assertEquals(2, east.nodes(), "node-a and node-b");
        assertEquals(80 * GIB, east.memoryTotal().orElseThrow());
        assertEquals(0, east.workloads(), "a cards-only read of a cluster holds no workloads");
        FleetTotals west = byCluster.get("west");
        assertEquals(1, west.cards());
        assertEquals(1, west.nodes());
        assertEquals(40 * GIB, west.memoryTotal().orElseThrow());

        // A source without the cluster label, or a UUID two clusters register: each cluster's own read says.
        assertTrue(FleetTotals.byCluster(twoCards().state()).isEmpty());
        Readings colliding = new Readings();
        colliding.registered.add(registered("east", "node-a", "GPU-SAME"));
        colliding.registered.add(registered("west", "node-a", "GPU-SAME"));
        assertTrue(FleetTotals.byCluster(colliding.state()).isEmpty());
    }

    @Test
    void aSourceFailingOnOneClustersNodeLeavesTheOtherClustersNodeOfThatNameAlone() {
        Readings readings = new Readings();
        readings.registered.add(registered("east", "node-a", "GPU-E0"));
        readings.registered.add(registered("west", "node-a", "GPU-W0"));
        readings.sources.add(new FleetReadings.SourceStatus("w:9394", "node-a", "nvml", false, "west"));
        readings.sources.add(new FleetReadings.SourceStatus("w:9394", "node-a", "cachefile", false, "west"));
        readings.sources.add(new FleetReadings.SourceStatus("e:9394", "node-a", "nvml", true, "east"));
        readings.sources.add(new FleetReadings.SourceStatus("e:9394", "node-a", "cachefile", true, "east"));
        FleetState state = readings.share("ml", "llm", 0, "server", "node-a", "GPU-E0", 1024, 10)
                .share("ml", "llm", 0, "server", "node-a", "GPU-W0", 1024, 10).state();
        assertEquals(List.of("east node-a 0 failing NOT_REPORTED NO_USAGE_YET",
                        "west node-a 2 failing SOURCE_FAILING SOURCE_FAILING"),
                state.nodes().stream().map(node -> node.cluster() + " " + node.name() + " " + node.sourcesFailing()
                        + " failing " + why(state.cards().stream().filter(card -> state.cluster(card)
                                .equals(node.cluster())).findFirst().orElseThrow().memoryUsed()) + " "
                        + why(state.workloads().stream().filter(workload -> state.cluster(workload)
                                .equals(node.cluster())).findFirst().orElseThrow().memoryUsed())).toList());
        assertEquals(List.of("west node-a cachefile", "west node-a nvml"), state.health().failing().stream()
                .map(source -> source.cluster() + " " + source.node() + " " + source.source()).toList());
    }

    @Test
    void aSourceStatusWithoutTheClusterLabelSpeaksForEveryClustersNodeOfItsName() {
        // A relabeling that puts the cluster label on the scheduler's job only: the node exporters'
        // statuses name no cluster, and count for each cluster's node of their node's name, as before.
        Readings readings = new Readings();
        readings.registered.add(registered("east", "node-a", "GPU-E0"));
        readings.registered.add(registered("west", "node-a", "GPU-W0"));
        readings.sources.add(new FleetReadings.SourceStatus("a:9394", "node-a", "nvml", false));
        FleetState state = readings.state();
        assertEquals(List.of("east 1 SOURCE_FAILING", "west 1 SOURCE_FAILING"), state.nodes().stream()
                .map(node -> node.cluster() + " " + node.sourcesFailing() + " " + why(state.cards().stream()
                        .filter(card -> state.cluster(card).equals(node.cluster())).findFirst().orElseThrow()
                        .memoryUsed())).toList());
    }

    @Test
    void aPodNameTwoClustersRunTakesItsOwnClustersContainerNames() {
        Readings readings = new Readings();
        readings.registered.add(registered("east", "node-a", "GPU-E0"));
        readings.registered.add(registered("west", "node-a", "GPU-W0"));
        readings.allocations.add(new FleetReadings.Allocation("ml", "llm", 0, "node-a", "GPU-E0", Figure.of(1), Figure.of(1)));
        readings.allocations.add(new FleetReadings.Allocation("ml", "llm", 0, "node-a", "GPU-W0", Figure.of(1), Figure.of(1)));
        readings.names.add(new FleetReadings.ContainerName("ml", "llm", 0, "api", false, "west"));
        readings.names.add(new FleetReadings.ContainerName("ml", "llm", 0, "server", false, "east"));
        FleetState state = readings.state();
        assertEquals(List.of("east server", "west api"), state.workloads().stream()
                .map(workload -> state.cluster(workload) + " " + workload.ref().container()).toList());
    }

    private static String why(Figure figure) {
        return figure instanceof Figure.Missing missing ? missing.why().name() : "known";
    }

    @Test
    void oneClustersPartOfTheFleetWideReadingsIsWhatItsOwnReadHolds() {
        // Two clusters with the same node, namespace and pod names on cards of their own.
        FleetReadings whole = twoClusters(true);
        FleetReadings east = whole.inCluster("east").orElseThrow();
        assertEquals(List.of("GPU-E0", "GPU-E1"), east.registered().stream().map(FleetReadings.Registered::uuid).toList());
        // The share on a card no cluster registers goes with the cluster its series carry, and so
        // does that card's use.
        assertEquals(List.of("GPU-E0", "GPU-GONE"), east.allocations().stream().map(FleetReadings.Allocation::uuid)
                .toList());
        assertEquals(List.of("GPU-E0", "GPU-GONE"), east.uses().stream().map(FleetReadings.Use::uuid).toList());
        assertEquals(List.of("GPU-E0"), east.hosts().stream().map(FleetReadings.Host::uuid).toList());
        assertEquals(List.of("east"), east.names().stream().map(FleetReadings.ContainerName::cluster).distinct().toList());
        assertEquals(List.of(Figure.of(8)), east.quotas().stream().map(FleetReadings.Quota::limit).toList());
        assertEquals(List.of(3.0), east.skips().stream().map(FleetReadings.Skip::count).toList());
        assertEquals(List.of("10.0.0.1:9395"), east.ledgerAges().stream().map(FleetReadings.LedgerAge::instance).toList());
        assertEquals(List.of("10.0.0.1:9394"), east.targetsDown().stream().map(FleetReadings.TargetDown::instance)
                .toList());
        assertEquals(List.of("east"), east.sources().stream().map(FleetReadings.SourceStatus::cluster).distinct().toList());

        // Its state is the state of a read of that cluster alone: the same cards, nodes, workloads,
        // namespaces and health, with the quota and skips of that cluster, not the fleet's.
        FleetState narrowed = FleetState.of(east);
        FleetState alone = FleetState.of(onlyEast());
        assertEquals(alone.cards(), narrowed.cards());
        assertEquals(alone.nodes(), narrowed.nodes());
        assertEquals(alone.workloads(), narrowed.workloads());
        assertEquals(alone.namespaces(), narrowed.namespaces());
        assertEquals(alone.health(), narrowed.health());
        assertEquals(FleetState.of(onlyEast().cardsOnly()).nodes(), FleetState.of(east.cardsOnly()).nodes());
        // Counted per node of the cluster its share's series carry, the stale pod's included, as a
        // cards-only read counts them.
        assertEquals(Map.of(new FleetReadings.ClusterNode("east", "node-a"), 1L,
                new FleetReadings.ClusterNode("east", "node-b"), 1L), east.cardsOnly().containersByNode());
        // Fleet-wide, the namespace is one row with the larger quota, the skips summed.
        FleetState fleet = FleetState.of(whole);
        assertEquals(List.of(Figure.of(16)), fleet.namespaces().stream().map(FleetState.NamespaceSummary::coresQuota)
                .toList());
        assertEquals(List.of(8.0), fleet.health().skips().stream().map(FleetReadings.Skip::count).toList());

        // What cannot be placed leaves the narrowing to a read of the cluster.
        assertTrue(twoClusters(false).inCluster("east").isEmpty(), "a card's use that no cluster registers or shares");
        Readings unlabelled = new Readings();
        unlabelled.registered.add(registered("east", "node-a", "GPU-E0"));
        unlabelled.quotas.add(new FleetReadings.Quota("ml", "nvidia.com/gpucores", Figure.of(1), Figure.of(8)));
        assertTrue(unlabelled.build().inCluster("east").isEmpty(), "a quota without the cluster label");
        Readings twice = new Readings();
        twice.registered.add(registered("east", "node-a", "GPU-SAME"));
        twice.registered.add(registered("west", "node-a", "GPU-SAME"));
        assertTrue(twice.build().inCluster("east").isEmpty(), "one UUID in two clusters");
    }

    /** East and west as one engine answers them; {@code placed}: no card's use outside both. */
    private static FleetReadings twoClusters(boolean placed) {
        Readings readings = eastPart(new Readings());
        readings.registered.add(registered("west", "node-a", "GPU-W0"));
        readings.allocations.add(new FleetReadings.Allocation("ml", "trainer", 0, "node-a", "GPU-W0",
                Figure.of(2048 * MIB), Figure.of(20), "west"));
        readings.names.add(new FleetReadings.ContainerName("ml", "trainer", 0, "main", false, "west"));
        readings.use("ml", "trainer", "main", "node-a", "GPU-W0", 900, 15);
        readings.hosts.add(new FleetReadings.Host("node-a", placed ? "GPU-W0" : "GPU-NOWHERE", Figure.of(GIB),
                Figure.of(15), Figure.of(40), Figure.of(150), Figure.of(0)));
        readings.sources.add(new FleetReadings.SourceStatus("10.0.1.1:9394", "node-a", "nvml", false, "west"));
        readings.quotas.add(new FleetReadings.Quota("ml", "nvidia.com/gpucores", Figure.of(20), Figure.of(16), "west"));
        FleetReadings built = readings.build();
        return new FleetReadings(built.at(), built.registered(), built.hosts(), built.allocations(), built.names(),
                built.uses(), built.unmanaged(), built.quotas(), built.sources(),
                List.of(new FleetReadings.LedgerAge("10.0.0.1:9395", 12, "east"),
                        new FleetReadings.LedgerAge("10.0.1.1:9395", 900, "west")),
                List.of(new FleetReadings.Skip("pod", "annotation", "malformed", 3, "east"),
                        new FleetReadings.Skip("pod", "annotation", "malformed", 5, "west")),
                List.of(new FleetReadings.TargetDown("hami-observe-node", "10.0.0.1:9394", "east"),
                        new FleetReadings.TargetDown("hami-observe-node", "10.0.1.1:9394", "west")),
                Map.of(), Map.of());
    }

    /** East alone, as a read narrowed to it answers. */
    private static FleetReadings onlyEast() {
        FleetReadings built = eastPart(new Readings()).build();
        return new FleetReadings(built.at(), built.registered(), built.hosts(), built.allocations(), built.names(),
                built.uses(), built.unmanaged(), built.quotas(), built.sources(),
                List.of(new FleetReadings.LedgerAge("10.0.0.1:9395", 12, "east")),
                List.of(new FleetReadings.Skip("pod", "annotation", "malformed", 3, "east")),
                List.of(new FleetReadings.TargetDown("hami-observe-node", "10.0.0.1:9394", "east")),
                Map.of(), Map.of());
    }

    private static Readings eastPart(Readings readings) {
        readings.registered.add(registered("east", "node-a", "GPU-E0"));
        readings.registered.add(registered("east", "node-b", "GPU-E1"));
        readings.allocations.add(new FleetReadings.Allocation("ml", "trainer", 0, "node-a", "GPU-E0",
                Figure.of(1024 * MIB), Figure.of(10), "east"));
        // A pod whose card is gone from the register: its share's series still carry the cluster.
        readings.allocations.add(new FleetReadings.Allocation("ml", "stale", 0, "node-b", "GPU-GONE",
                Figure.of(512 * MIB), Figure.of(5), "east"));
        readings.names.add(new FleetReadings.ContainerName("ml", "trainer", 0, "main", false, "east"));
        readings.names.add(new FleetReadings.ContainerName("ml", "stale", 0, "main", false, "east"));
        readings.use("ml", "trainer", "main", "node-a", "GPU-E0", 700, 30);
        readings.use("ml", "stale", "main", "node-b", "GPU-GONE", 100, 0);
        readings.hosts.add(new FleetReadings.Host("node-a", "GPU-E0", Figure.of(GIB), Figure.of(30), Figure.of(40),
                Figure.of(150), Figure.of(0)));
        readings.sources.add(new FleetReadings.SourceStatus("10.0.0.1:9394", "node-a", "nvml", true, "east"));
        readings.quotas.add(new FleetReadings.Quota("ml", "nvidia.com/gpucores", Figure.of(15), Figure.of(8), "east"));
        return readings;
    }

    private static FleetReadings.Registered registered(String cluster, String node, String uuid) {
        Figure one = Figure.of(1);
        return new FleetReadings.Registered(node, uuid, 0, A100, "hami-core", one, Figure.of(40 * Readings.GIB),
                Figure.of(0), Figure.of(100), Figure.of(0), Figure.of(0), Figure.of(10), Figure.of(0), cluster);
    }
}
