package io.hamiobserve.domain;

import static io.hamiobserve.domain.Fixtures.MIB;
import static io.hamiobserve.domain.Fixtures.app;
import static io.hamiobserve.domain.Fixtures.card;
import static io.hamiobserve.domain.Fixtures.init;
import static io.hamiobserve.domain.Fixtures.mig;
import static io.hamiobserve.domain.Fixtures.placement;
import static io.hamiobserve.domain.Fixtures.pod;
import static io.hamiobserve.domain.Fixtures.quota;
import static io.hamiobserve.domain.Fixtures.running;
import static io.hamiobserve.domain.Fixtures.runningOne;
import static io.hamiobserve.domain.Fixtures.share;
import static io.hamiobserve.domain.Fixtures.uid;
import static io.hamiobserve.domain.QuotaResource.GPU_CORES_PERCENT;
import static io.hamiobserve.domain.QuotaResource.GPU_MEMORY_MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hamiobserve.domain.AllocationView.CardAllocation;
import io.hamiobserve.domain.AllocationView.ContainerAllocation;
import io.hamiobserve.domain.AllocationView.ContainerRef;
import io.hamiobserve.domain.AllocationView.QuotaUsage;
import io.hamiobserve.domain.AllocationView.UnregisteredCardShare;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class LedgerTest {
    private final Ledger ledger = new Ledger();

    static CardAllocation cardOf(AllocationView view, String uuid) {
        List<CardAllocation> matches = view.cards().stream().filter(card -> card.card().uuid().equals(uuid)).toList();
        assertEquals(1, matches.size(), () -> "cards with uuid " + uuid + " in " + view.cards());
        return matches.get(0);
    }

    /** Memory MiB, cores and shared count of a card, in one comparable value. */
    static List<Long> totals(AllocationView view, String uuid) {
        CardAllocation card = cardOf(view, uuid);
        return List.of(card.allocatedMemoryMib(), card.allocatedCores(), (long) card.sharedContainers());
    }

    static QuotaUsage quotaOf(AllocationView view, String namespace, QuotaResource resource) {
        List<QuotaUsage> matches = view.quotas().stream()
                .filter(q -> q.namespace().equals(namespace) && q.resource() == resource).toList();
        assertEquals(1, matches.size(), () -> "quota " + namespace + "/" + resource + " in " + view.quotas());
        return matches.get(0);
    }

    @Test
    void seedExampleAPodAsking8192MibIsAllocated8192MibOnItsCard() {
        ledger.putNode("gpu-node-1", List.of(card("GPU-0055", 0, 81559)));
        ledger.putPod(runningOne(pod("ml", "small-model"), "gpu-node-1", "GPU-0055", 8192, 30));

        AllocationView view = ledger.view();
        CardAllocation card = cardOf(view, "GPU-0055");
        assertEquals("gpu-node-1", card.node());
        assertEquals(8192, card.allocatedMemoryMib());
        assertEquals(8192L * 1024 * 1024, card.allocatedMemoryBytes());
        assertEquals(30, card.allocatedCores());
        assertEquals(1, card.sharedContainers());
        assertEquals(8192.0 / 81559.0, card.memoryAllocatedFraction().getAsDouble(), 1e-12);
        assertEquals(List.of(new ContainerAllocation(pod("ml", "small-model"), "gpu-node-1",
                new ContainerRef(0, "main", false), "GPU-0055", 8192, 30)), view.containers());
        assertEquals(8192L * MIB, view.containers().get(0).memoryBytes());
        assertEquals(8192, quotaOf(view, "ml", GPU_MEMORY_MIB).used());
        assertEquals(30, quotaOf(view, "ml", GPU_CORES_PERCENT).used());
        assertEquals(List.of(), view.unregisteredCardShares());
    }

    @Test
    void cardTotalsSumTheEffectiveUseOfEveryPodOnEveryNode() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960), card("GPU-A1", 1, 40960)));
        ledger.putNode("node-b", List.of(card("GPU-B0", 0, 81920)));
        ledger.putPod(running(pod("ns", "p1"), "node-a",
                app(0, "x", share("GPU-A0", 1000, 10)),
                app(1, "y", share("GPU-A0", 2000, 20))));
        ledger.putPod(running(pod("ns", "p2"), "node-a",
                init(0, "warm", share("GPU-A0", 9000, 5)),
                app(1, "z", share("GPU-A0", 500, 5), share("GPU-A1", 700, 7))));
        ledger.putPod(runningOne(pod("other", "p3"), "node-b", "GPU-B0", 4096, 50));

        AllocationView view = ledger.view();
        // p1: 3000/30 in two slots; p2: init peak 9000 beats 500, cores 5 vs 5, one slot.
        assertEquals(List.of(12000L, 35L, 3L), totals(view, "GPU-A0"));
        assertEquals(List.of(700L, 7L, 1L), totals(view, "GPU-A1"));
        assertEquals(List.of(4096L, 50L, 1L), totals(view, "GPU-B0"));
    }

    @Test
    void cardsWithoutPodsAreListedWithZeroTotals() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));

        CardAllocation card = cardOf(ledger.view(), "GPU-A0");
        assertEquals(List.of(0L, 0L, 0L), totals(ledger.view(), "GPU-A0"));
        assertEquals(OptionalDouble.of(0.0), card.memoryAllocatedFraction());
    }

    @Test
    void aCardRegisteringNoMemoryHasNoAllocatedFraction() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 0)));
        ledger.putPod(runningOne(pod("ns", "p"), "node-a", "GPU-A0", 100, 10));

        assertEquals(OptionalDouble.empty(), cardOf(ledger.view(), "GPU-A0").memoryAllocatedFraction());
    }

    @ParameterizedTest
    @EnumSource(value = PodPhase.class, names = {"SUCCEEDED", "FAILED"})
    void finishedPodsAreNotCounted(PodPhase phase) {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
        ledger.putPod(placement(pod("ns", "done"), "node-a", phase, true, app(0, "x", share("GPU-A0", 1000, 10))));

        AllocationView view = ledger.view();
        assertEquals(List.of(0L, 0L, 0L), totals(view, "GPU-A0"));
        assertEquals(List.of(), view.containers());
        assertEquals(List.of(), view.quotas());
    }

    @ParameterizedTest
    @EnumSource(value = PodPhase.class, names = {"PENDING", "RUNNING", "UNKNOWN"})
    void placedPodsHoldTheirAllocationInEveryOtherPhase(PodPhase phase) {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
        ledger.putPod(placement(pod("ns", "p"), "node-a", phase, false, app(0, "x", share("GPU-A0", 1000, 10))));

        assertEquals(List.of(1000L, 10L, 1L), totals(ledger.view(), "GPU-A0"));
    }

    @Test
    void aPodThatSucceedsReleasesItsShare() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
        ledger.putPod(runningOne(pod("ns", "other"), "node-a", "GPU-A0", 300, 3));
        ledger.putPod(runningOne(pod("ns", "job"), "node-a", "GPU-A0", 1000, 10));
        ledger.putPod(placement(pod("ns", "job"), "node-a", PodPhase.SUCCEEDED, true,
                app(0, "main", share("GPU-A0", 1000, 10))));

        AllocationView view = ledger.view();
        assertEquals(List.of(300L, 3L, 1L), totals(view, "GPU-A0"));
        assertEquals(List.of(pod("ns", "other")), view.containers().stream().map(ContainerAllocation::pod).toList());
        assertEquals(300, quotaOf(view, "ns", GPU_MEMORY_MIB).used());
    }

    @Test
    void reputtingTheSamePodDoesNotDoubleCount() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
        PodPlacement placement = running(pod("ns", "p"), "node-a",
                app(0, "x", share("GPU-A0", 1000, 10)), app(1, "y", share("GPU-A0", 1000, 10)));
        ledger.putPod(placement);
        AllocationView once = ledger.view();
        ledger.putPod(placement);
        ledger.putPod(placement);
        AllocationView thrice = ledger.view();

        assertEquals(List.of(2000L, 20L, 2L), totals(thrice, "GPU-A0"));
        assertEquals(once.cards(), thrice.cards());
        assertEquals(once.containers(), thrice.containers());
        assertEquals(once.quotas(), thrice.quotas());
    }

    @Test
    void replacingAPodOntoAnotherCardAndNodeMovesItsContribution() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
        ledger.putNode("node-b", List.of(card("GPU-B0", 0, 40960)));
        ledger.putPod(runningOne(pod("ns", "p"), "node-a", "GPU-A0", 1000, 10));
        ledger.putPod(runningOne(pod("ns", "p"), "node-b", "GPU-B0", 2000, 20));

        AllocationView view = ledger.view();
        assertEquals(List.of(0L, 0L, 0L), totals(view, "GPU-A0"));
        assertEquals(List.of(2000L, 20L, 1L), totals(view, "GPU-B0"));
        assertEquals(1, view.containers().size());
        assertEquals("node-b", view.containers().get(0).node());
        assertEquals(2000, quotaOf(view, "ns", GPU_MEMORY_MIB).used());
    }

    @Test
    void removingAPodRemovesItsShareAndQuotaUse() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
        ledger.putPod(runningOne(pod("ns", "p"), "node-a", "GPU-A0", 1000, 10));
        ledger.putPod(runningOne(pod("ns", "q"), "node-a", "GPU-A0", 500, 5));
        ledger.removePod(uid("ns", "p"));

        AllocationView view = ledger.view();
        assertEquals(List.of(500L, 5L, 1L), totals(view, "GPU-A0"));
        assertEquals(500, quotaOf(view, "ns", GPU_MEMORY_MIB).used());
        assertEquals(5, quotaOf(view, "ns", GPU_CORES_PERCENT).used());

        ledger.removePod(uid("ns", "q"));
        assertEquals(List.of(0L, 0L, 0L), totals(ledger.view(), "GPU-A0"));
        assertEquals(List.of(), ledger.view().quotas());
    }

    @Test
    void podsAreIdentifiedByUidNotByName() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
        ledger.putPod(runningOne(new PodRef("ns", "p", "uid-1"), "node-a", "GPU-A0", 1000, 10));
        ledger.putPod(runningOne(new PodRef("ns", "p", "uid-2"), "node-a", "GPU-A0", 500, 5));

        assertEquals(List.of(1500L, 15L, 2L), totals(ledger.view(), "GPU-A0"));
        ledger.removePod("uid-1");
        assertEquals(List.of(500L, 5L, 1L), totals(ledger.view(), "GPU-A0"));
    }

    @Test
    void removingANodeTurnsItsPodsSharesIntoUnregisteredSharesAndReaddingRestoresThem() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
        ledger.putNode("node-b", List.of(card("GPU-B0", 0, 40960)));
        ledger.putPod(runningOne(pod("ns", "p"), "node-a", "GPU-A0", 1000, 10));
        ledger.putPod(runningOne(pod("ns", "q"), "node-b", "GPU-B0", 700, 7));
        AllocationView before = ledger.view();

        ledger.removeNode("node-a");
        AllocationView without = ledger.view();
        assertEquals(List.of("GPU-B0"), without.cards().stream().map(card -> card.card().uuid()).toList());
        assertEquals(List.of(new UnregisteredCardShare(pod("ns", "p"), "node-a", new CardUse("GPU-A0", 1000, 10, 1))),
                without.unregisteredCardShares());
        // The pod still holds its share: its quota use and container series stay.
        assertEquals(1700, quotaOf(without, "ns", GPU_MEMORY_MIB).used());
        assertEquals(2, without.containers().size());

        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
        AllocationView after = ledger.view();
        assertEquals(List.of(), after.unregisteredCardShares());
        assertEquals(before.cards(), after.cards());
    }

    @Test
    void aNodeRegisteringNoCardsStaysWithoutCardsAndItsFormerCardsSharesBecomeUnregistered() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
        ledger.putPod(runningOne(pod("ns", "p"), "node-a", "GPU-A0", 1000, 10));
        ledger.putNode("node-a", List.of());

        AllocationView view = ledger.view();
        assertEquals(List.of(), view.cards());
        assertEquals(1, view.unregisteredCardShares().size());
    }

    @Test
    void aPodOnACardNoNodeEverRegisteredIsReportedApart() {
        ledger.putPod(runningOne(pod("ns", "p"), "node-x", "GPU-GHOST", 1000, 10));

        AllocationView view = ledger.view();
        assertEquals(List.of(), view.cards());
        assertEquals(List.of(new UnregisteredCardShare(pod("ns", "p"), "node-x", new CardUse("GPU-GHOST", 1000, 10, 1))),
                view.unregisteredCardShares());
    }

    @Test
    void aCardStaysRegisteredWhileAnyNodeStillRegistersIt() {
        // A card seen under two nodes (moved, or a node renamed) must not vanish with the first.
        ledger.putNode("node-old", List.of(card("GPU-1", 0, 40960)));
        ledger.putNode("node-new", List.of(card("GPU-1", 0, 40960)));
        ledger.putPod(runningOne(pod("ns", "p"), "node-new", "GPU-1", 1000, 10));
        ledger.removeNode("node-new");

        AllocationView view = ledger.view();
        assertEquals(List.of(), view.unregisteredCardShares());
        assertEquals(List.of(1000L, 10L, 1L), totals(view, "GPU-1"));
        assertEquals("node-old", cardOf(view, "GPU-1").node());
    }

    @Test
    void aCardRegisteredByTwoNodesIsCountedOnceOnTheFirstNodeByNameWhateverTheOrder() {
        for (List<String> order : List.of(List.of("node-b", "node-a"), List.of("node-a", "node-b"))) {
            Ledger ledger = new Ledger();
            for (String node : order) {
                ledger.putNode(node, List.of(card("GPU-1", 0, 40960), card("GPU-" + node, 1, 40960)));
            }
            ledger.putPod(runningOne(pod("ns", "p"), "node-b", "GPU-1", 1000, 10));

            AllocationView view = ledger.view();
            assertEquals(List.of("node-a/GPU-1", "node-a/GPU-node-a", "node-b/GPU-node-b"),
                    view.cards().stream().map(c -> c.node() + "/" + c.card().uuid()).toList(), order.toString());
            assertEquals(List.of(1000L, 10L, 1L), totals(view, "GPU-1"));
            List<Ledger.DuplicateRegistration> expected = List.of(
                    new Ledger.DuplicateRegistration("GPU-1", "node-a", "node-b"));
            assertEquals(expected, ledger.duplicateRegistrations("node-a"));
            assertEquals(expected, ledger.duplicateRegistrations("node-b"));

            // When the keeper withdraws the card, the other registration counts.
            ledger.putNode("node-a", List.of(card("GPU-node-a", 1, 40960)));
            assertEquals("node-b", cardOf(ledger.view(), "GPU-1").node());
            assertEquals(List.of(), ledger.duplicateRegistrations("node-b"));
        }
    }

    @Test
    void aCardListedTwiceByOneNodeIsRegisteredOnce() {
        ledger.putNode("node-a", List.of(card("GPU-1", 0, 40960), card("GPU-1", 3, 1)));

        assertEquals(List.of(40960L), ledger.view().cards().stream().map(c -> c.card().memoryMib()).toList());
        assertEquals(List.of(), ledger.duplicateRegistrations("node-a"));
    }

    @Test
    void reregistrationWithChangedMemoryUpdatesTheAllocatedFraction() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40000)));
        ledger.putPod(runningOne(pod("ns", "p"), "node-a", "GPU-A0", 10000, 10));
        assertEquals(0.25, cardOf(ledger.view(), "GPU-A0").memoryAllocatedFraction().getAsDouble(), 1e-12);

        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 80000)));
        CardAllocation card = cardOf(ledger.view(), "GPU-A0");
        assertEquals(80000, card.card().memoryMib());
        assertEquals(0.125, card.memoryAllocatedFraction().getAsDouble(), 1e-12);
        assertEquals(10000, card.allocatedMemoryMib());
    }

    @Test
    void containerAllocationsListEveryContainerCardPairWithRepeatedCardsMerged() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960), card("GPU-A1", 1, 40960)));
        PodRef p = pod("ns", "p");
        ledger.putPod(running(p, "node-a",
                init(0, "warm", share("GPU-A0", 100, 1)),
                app(1, "cpu-only"),
                app(2, "main", share("GPU-A0", 1000, 10), share("GPU-A1", 2000, 20), share("GPU-A0", 500, 5))));

        assertEquals(List.of(
                new ContainerAllocation(p, "node-a", new ContainerRef(0, "warm", true), "GPU-A0", 100, 1),
                new ContainerAllocation(p, "node-a", new ContainerRef(2, "main", false), "GPU-A0", 1500, 15),
                new ContainerAllocation(p, "node-a", new ContainerRef(2, "main", false), "GPU-A1", 2000, 20)),
                ledger.view().containers());
    }

    @Nested
    class Quotas {
        @Test
        void usedSumsEffectiveUseOfTheNamespacesCountingPods() {
            ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960), card("GPU-A1", 1, 40960)));
            ledger.putPod(running(pod("ns", "p"), "node-a",
                    init(0, "warm", share("GPU-A0", 3000, 40)),
                    app(1, "a", share("GPU-A0", 1000, 10), share("GPU-A1", 200, 2))));
            ledger.putPod(runningOne(pod("ns", "q"), "node-a", "GPU-A1", 500, 5));
            ledger.putPod(placement(pod("ns", "done"), "node-a", PodPhase.FAILED, true,
                    app(0, "a", share("GPU-A1", 9999, 99))));
            ledger.putPod(runningOne(pod("elsewhere", "r"), "node-a", "GPU-A1", 64, 1));

            AllocationView view = ledger.view();
            // p: GPU-A0 max(3000, 1000) + GPU-A1 200; q: 500. Cores: max(40, 10) + 2 + 5.
            assertEquals(3700, quotaOf(view, "ns", GPU_MEMORY_MIB).used());
            assertEquals(47, quotaOf(view, "ns", GPU_CORES_PERCENT).used());
            assertEquals(64, quotaOf(view, "elsewhere", GPU_MEMORY_MIB).used());
            assertEquals(OptionalLong.empty(), quotaOf(view, "ns", GPU_MEMORY_MIB).limit());
        }

        @Test
        void theLimitIsTheSmallestHardLimitAcrossQuotaObjects() {
            ledger.putQuota("ns", "team", List.of(quota("ns", "team", GPU_MEMORY_MIB, 20000),
                    quota("ns", "team", GPU_CORES_PERCENT, 300)));
            ledger.putQuota("ns", "strict", List.of(quota("ns", "strict", GPU_MEMORY_MIB, 8000)));
            ledger.putPod(runningOne(pod("ns", "p"), "node-a", "GPU-A0", 1000, 10));

            AllocationView view = ledger.view();
            assertEquals(new QuotaUsage("ns", GPU_MEMORY_MIB, 1000, OptionalLong.of(8000)),
                    quotaOf(view, "ns", GPU_MEMORY_MIB));
            assertEquals(new QuotaUsage("ns", GPU_CORES_PERCENT, 10, OptionalLong.of(300)),
                    quotaOf(view, "ns", GPU_CORES_PERCENT));

            ledger.removeQuota("ns", "strict");
            assertEquals(OptionalLong.of(20000), quotaOf(ledger.view(), "ns", GPU_MEMORY_MIB).limit());
        }

        @Test
        void replacingAQuotaObjectReplacesItsLimits() {
            ledger.putQuota("ns", "team", List.of(quota("ns", "team", GPU_MEMORY_MIB, 20000)));
            ledger.putQuota("ns", "team", List.of(quota("ns", "team", GPU_CORES_PERCENT, 50)));

            AllocationView view = ledger.view();
            assertEquals(OptionalLong.empty(), quotaOf(view, "ns", GPU_MEMORY_MIB).limit());
            assertEquals(OptionalLong.of(50), quotaOf(view, "ns", GPU_CORES_PERCENT).limit());
        }

        @Test
        void aNamespaceWithAQuotaButNoPodsUsesZero() {
            ledger.putQuota("idle", "q", List.of(quota("idle", "q", GPU_MEMORY_MIB, 4096)));

            assertEquals(List.of(
                    new QuotaUsage("idle", GPU_MEMORY_MIB, 0, OptionalLong.of(4096)),
                    new QuotaUsage("idle", GPU_CORES_PERCENT, 0, OptionalLong.empty())), ledger.view().quotas());
        }

        @Test
        void removingTheLastQuotaObjectForgetsTheNamespace() {
            ledger.putQuota("idle", "q", List.of(quota("idle", "q", GPU_MEMORY_MIB, 4096)));
            ledger.removeQuota("idle", "q");

            assertEquals(List.of(), ledger.view().quotas());
        }

        @Test
        void quotasAreOrderedByNamespaceThenResource() {
            ledger.putQuota("zeta", "q", List.of(quota("zeta", "q", GPU_MEMORY_MIB, 1)));
            ledger.putPod(runningOne(pod("alpha", "p"), "node-a", "GPU-A0", 1, 1));

            assertEquals(List.of("alpha/GPU_MEMORY_MIB", "alpha/GPU_CORES_PERCENT", "zeta/GPU_MEMORY_MIB",
                    "zeta/GPU_CORES_PERCENT"), ledger.view().quotas().stream()
                    .map(q -> q.namespace() + "/" + q.resource()).toList());
        }
    }

    @Nested
    class MigInstances {
        private PodPlacement migPod(String gpuUuid, MigInstance... instances) {
            return new PodPlacement(pod("ns", "mig-" + gpuUuid), "node-a", PodPhase.RUNNING, false,
                    List.of(app(0, "main", share(gpuUuid, 10240, 14))), List.of(instances));
        }

        @Test
        void onlyReadyInstancesOnCardsRegisteredInMigModeAreListed() {
            ledger.putNode("node-a", List.of(
                    card("GPU-MIG", 0, 40960, CardMode.MIG),
                    card("GPU-CORE", 1, 40960, CardMode.HAMI_CORE)));
            MigInstance ready = mig("GPU-MIG", "MIG-aaaa");
            ledger.putPod(migPod("GPU-MIG", ready, mig("GPU-MIG", "")));
            ledger.putPod(migPod("GPU-CORE", mig("GPU-CORE", "MIG-bbbb")));
            ledger.putPod(migPod("GPU-GONE", mig("GPU-GONE", "MIG-cccc")));

            List<AllocationView.MigInstanceOnCard> instances = ledger.view().migInstances();
            assertEquals(1, instances.size());
            assertEquals("node-a", instances.get(0).node());
            assertEquals("GPU-MIG", instances.get(0).card().uuid());
            assertEquals(pod("ns", "mig-GPU-MIG"), instances.get(0).pod());
            assertEquals(ready, instances.get(0).instance());
        }

        @Test
        void instancesFollowTheirPod() {
            ledger.putNode("node-a", List.of(card("GPU-MIG", 0, 40960, CardMode.MIG)));
            ledger.putPod(migPod("GPU-MIG", mig("GPU-MIG", "MIG-aaaa")));
            ledger.removePod(uid("ns", "mig-GPU-MIG"));

            assertEquals(List.of(), ledger.view().migInstances());
        }
    }

    @Test
    void viewOrderIsDeterministicWhateverTheOrderOfUpdates() {
        ledger.putNode("node-b", List.of(card("GPU-B1", 1, 1000), card("GPU-B0", 0, 1000)));
        ledger.putNode("node-a", List.of(card("GPU-A2", 2, 1000), card("GPU-A0", 0, 1000), card("GPU-A1", 1, 1000)));
        ledger.putPod(runningOne(pod("zz", "a"), "node-a", "GPU-A0", 1, 1));
        ledger.putPod(runningOne(pod("aa", "z"), "node-a", "GPU-A0", 1, 1));
        ledger.putPod(runningOne(pod("aa", "b"), "node-a", "GPU-A0", 1, 1));
        ledger.putPod(runningOne(pod("mm", "ghost2"), "node-z", "GPU-X", 1, 1));
        ledger.putPod(runningOne(pod("mm", "ghost1"), "node-z", "GPU-Y", 1, 1));

        AllocationView view = ledger.view();
        assertEquals(List.of("node-a/0", "node-a/1", "node-a/2", "node-b/0", "node-b/1"), view.cards().stream()
                .map(card -> card.node() + "/" + card.card().index()).toList());
        // Pods node by node (like the cards), then by namespace and name.
        assertEquals(List.of("node-a:aa/b", "node-a:aa/z", "node-a:zz/a", "node-z:mm/ghost1", "node-z:mm/ghost2"),
                view.containers().stream().map(c -> c.node() + ":" + c.pod().namespace() + "/" + c.pod().name())
                        .toList());
        assertEquals(List.of("mm/ghost1", "mm/ghost2"), view.unregisteredCardShares().stream()
                .map(s -> s.pod().namespace() + "/" + s.pod().name()).toList());
    }

    @Test
    void viewsAreImmutableSnapshots() {
        ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
        AllocationView before = ledger.view();
        ledger.putPod(runningOne(pod("ns", "p"), "node-a", "GPU-A0", 1000, 10));

        assertEquals(List.of(0L, 0L, 0L), totals(before, "GPU-A0"));
        assertThrows(UnsupportedOperationException.class, () -> before.cards().clear());
    }

    @Nested
    class VersionAndFreshness {
        @Test
        void versionIncreasesOnEveryChange() {
            long v0 = ledger.version();
            ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
            long v1 = assertIncreased(v0);
            ledger.putPod(runningOne(pod("ns", "p"), "node-a", "GPU-A0", 1000, 10));
            long v2 = assertIncreased(v1);
            ledger.putQuota("ns", "q", List.of(quota("ns", "q", GPU_MEMORY_MIB, 10)));
            long v3 = assertIncreased(v2);
            ledger.removeQuota("ns", "q");
            long v4 = assertIncreased(v3);
            ledger.removePod(uid("ns", "p"));
            long v5 = assertIncreased(v4);
            ledger.removeNode("node-a");
            assertIncreased(v5);
        }

        private long assertIncreased(long previous) {
            long now = ledger.version();
            assertTrue(now > previous, () -> "version " + now + " after " + previous);
            assertEquals(now, ledger.view().freshness().version());
            return now;
        }

        @Test
        void noOpRemovalsKeepTheVersion() {
            ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
            ledger.putQuota("ns", "q", List.of(quota("ns", "q", GPU_MEMORY_MIB, 10)));
            long before = ledger.version();

            ledger.removePod("no-such-uid");
            ledger.removeNode("no-such-node");
            ledger.removeQuota("ns", "no-such-quota");
            ledger.removeQuota("no-such-namespace", "q");

            assertEquals(before, ledger.version());
            assertEquals(before, ledger.view().freshness().version());
        }

        @Test
        void redeliveringUnchangedObjectsKeepsTheVersion() {
            // A source that relists after a watch failure re-applies everything it knows.
            PodPlacement running = runningOne(pod("ns", "p"), "node-a", "GPU-A0", 1000, 10);
            PodPlacement finished = placement(pod("ns", "gone"), "node-a", PodPhase.SUCCEEDED, true);
            ledger.putNode("node-a", List.of(card("GPU-A1", 1, 40960), card("GPU-A0", 0, 40960)));
            ledger.putPod(running);
            ledger.putQuota("ns", "q", List.of(quota("ns", "q", GPU_MEMORY_MIB, 10)));
            long before = ledger.version();

            ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960), card("GPU-A1", 1, 40960)));
            ledger.putPod(runningOne(pod("ns", "p"), "node-a", "GPU-A0", 1000, 10));
            ledger.putPod(finished);
            ledger.putQuota("ns", "q", List.of(quota("ns", "q", GPU_MEMORY_MIB, 10)));

            assertEquals(before, ledger.version());
            ledger.putPod(runningOne(pod("ns", "p"), "node-a", "GPU-A0", 1000, 20));
            assertTrue(ledger.version() > before);
        }

        @Test
        void readingDoesNotChangeTheVersion() {
            ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
            long before = ledger.version();
            ledger.view();
            ledger.isSynced();
            assertEquals(before, ledger.version());
        }

        @Test
        void freshnessReportsTheLastSync() {
            assertFalse(ledger.isSynced());
            assertEquals(new AllocationView.LedgerFreshness(false, 0, 0), ledger.view().freshness());

            ledger.markSynced(1_700_000_000_000L);
            assertTrue(ledger.isSynced());
            AllocationView.LedgerFreshness freshness = ledger.view().freshness();
            assertTrue(freshness.synced());
            assertEquals(1_700_000_000_000L, freshness.lastSyncEpochMillis());

            ledger.markSynced(1_700_000_005_000L);
            assertEquals(1_700_000_005_000L, ledger.view().freshness().lastSyncEpochMillis());
            ledger.putNode("node-a", List.of(card("GPU-A0", 0, 40960)));
            assertEquals(ledger.view().freshness(), ledger.freshness());
        }

        @Test
        void equalVersionsMeanEqualViewsAlsoAcrossSyncs() {
            // A scrape reuses its rendering while the version is unchanged, so a sync must move it.
            long before = ledger.version();
            ledger.markSynced(1_700_000_000_000L);
            assertNotEquals(before, ledger.version());
            long synced = ledger.version();
            ledger.markSynced(1_700_000_000_000L);
            assertEquals(synced, ledger.version());
        }
    }

    @Test
    void updatesRejectMissingNames() {
        assertThrows(IllegalArgumentException.class, () -> ledger.putNode("", List.of()));
        assertThrows(NullPointerException.class, () -> ledger.putPod(null));
        assertThrows(IllegalArgumentException.class, () -> ledger.putQuota("", "q", List.of()));
        assertThrows(IllegalArgumentException.class, () -> ledger.putQuota("ns", "", List.of()));
    }

    @Test
    void nvidiaQuotasCountOnlyNvidiaSharesWhileCardsCountEveryVendor() {
        ledger.putNode("gpu", List.of(card("GPU-A0", 0, 40960)));
        ledger.putVendorCards("npu", List.of(new VendorCard(new RegisteredCard("NPU-0", 0, 7, 65536, 20,
                "Ascend910B3", 0, CardMode.HAMI_CORE, true), "Ascend910B3",
                new DeviceUnits(MemoryUnit.MIB, CoreUnit.AI_CORES))));
        PodRef pod = pod("ml", "mixed");
        ledger.putPod(running(pod, "gpu", app(0, "a", share("GPU-A0", 1000, 10)),
                app(1, "b", new DeviceShare("NPU-0", "Ascend910B3", 16384, 0))));

        AllocationView view = ledger.view();
        assertEquals(1000, quotaOf(view, "ml", QuotaResource.GPU_MEMORY_MIB).used());
        assertEquals(10, quotaOf(view, "ml", QuotaResource.GPU_CORES_PERCENT).used());
        assertEquals(16384, cardOf(view, "NPU-0").allocatedMemoryMib());
        assertEquals("Ascend910B3", cardOf(view, "NPU-0").backend());
        assertEquals(CoreUnit.AI_CORES, cardOf(view, "NPU-0").units().cores());

        ledger.removePod(pod.uid());
        assertEquals(List.of(), ledger.view().quotas());
    }
}
