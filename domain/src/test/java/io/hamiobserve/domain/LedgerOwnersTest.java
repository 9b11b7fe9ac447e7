package io.hamiobserve.domain;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import static io.hamiobserve.domain.Fixtures.pod;
import static io.hamiobserve.domain.Fixtures.runningOne;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ledger keeps each pod's top controller current as pods and intermediate owners come and go. */
class LedgerOwnersTest {
    private static final String NS = "ml";

    private static OwnerRef ref(String kind, String name) {
        return new OwnerRef(kind, name, kind + "/" + name);
    }

    private static OwnerObject replicaSet(String name, OwnerRef above) {
        return new OwnerObject("ReplicaSet", NS, name, "ReplicaSet/" + name, Optional.ofNullable(above));
    }

    private static PodPlacement podOf(String name, String node, OwnerRef controller, String hash) {
        return runningOne(pod(NS, name), node, "GPU-" + name, 1024, 10)
                .withController(new PodController(Optional.of(controller), hash));
    }

    private static String ownerOf(Ledger ledger, String pod) {
        AllocationView view = ledger.view();
        for (int i = 0; i < view.pods().size(); i++) {
            if (view.pods().get(i).pod().name().equals(pod)) {
                PodOwner owner = view.owners().get(i);
                return owner.kind() + "/" + owner.name();
            }
        }
        throw new AssertionError("no pod " + pod);
    }

    @Test
    void aReplicaSetArrivingAfterItsPodsNamesTheirDeploymentAndOnlyTheirs() {
        Ledger ledger = new Ledger();
        ledger.putPod(podOf("api-a-1", "n1", ref("ReplicaSet", "api-a"), ""));
        ledger.putPod(podOf("api-a-2", "n2", ref("ReplicaSet", "api-a"), ""));
        ledger.putPod(podOf("web-b-1", "n1", ref("ReplicaSet", "web-b"), ""));
        assertEquals("ReplicaSet/api-a", ownerOf(ledger, "api-a-1"));

        long before = ledger.version();
        assertEquals(List.of(), ledger.putOwner(replicaSet("api-a", ref("Deployment", "api"))));
        assertEquals("Deployment/api", ownerOf(ledger, "api-a-1"));
        assertEquals("Deployment/api", ownerOf(ledger, "api-a-2"));
        assertEquals("ReplicaSet/web-b", ownerOf(ledger, "web-b-1"));
        assertTrue(ledger.version() > before);

        // Re-delivering it (a relist) and an owner no pod refers to change nothing.
        long after = ledger.version();
        ledger.putOwner(replicaSet("api-a", ref("Deployment", "api")));
        ledger.putOwner(replicaSet("unrelated", ref("Deployment", "other")));
        assertEquals(after, ledger.version());
        assertEquals(2, ledger.ownerCount());
    }

    @Test
    void aReplicaSetTakenOverByARolloutMovesItsPods() {
        Ledger ledger = new Ledger();
        ledger.putOwner(replicaSet("api-a", ref("Deployment", "api")));
        ledger.putPod(podOf("api-a-1", "n1", ref("ReplicaSet", "api-a"), ""));
        assertEquals("Deployment/api", ownerOf(ledger, "api-a-1"));
        ledger.putOwner(replicaSet("api-a", ref("Rollout", "api")));
        assertEquals("Rollout/api", ownerOf(ledger, "api-a-1"));
    }

    @Test
    void aDeletedReplicaSetLeavesTheDeploymentByTheHashLabelElseTheReplicaSet() {
        Ledger ledger = new Ledger();
        ledger.putOwner(replicaSet("api-5f7c9", ref("Deployment", "api")));
        ledger.putOwner(replicaSet("adopted", ref("Deployment", "keeper")));
        ledger.putPod(podOf("api-5f7c9-x", "n1", ref("ReplicaSet", "api-5f7c9"), "5f7c9"));
        ledger.putPod(podOf("adopted-x", "n1", ref("ReplicaSet", "adopted"), ""));
        assertEquals("Deployment/keeper", ownerOf(ledger, "adopted-x"));

        ledger.removeOwner("ReplicaSet/api-5f7c9");
        ledger.removeOwner("ReplicaSet/adopted");
        assertEquals("Deployment/api", ownerOf(ledger, "api-5f7c9-x"));
        assertEquals("ReplicaSet/adopted", ownerOf(ledger, "adopted-x"));
        assertEquals(0, ledger.ownerCount());
    }

    @Test
    void aRemovedPodIsNoLongerReResolved() {
        Ledger ledger = new Ledger();
        ledger.putPod(podOf("api-a-1", "n1", ref("ReplicaSet", "api-a"), ""));
        ledger.removePod(Fixtures.uid(NS, "api-a-1"));
        long version = ledger.version();
        ledger.putOwner(replicaSet("api-a", ref("Deployment", "api")));
        assertEquals(version, ledger.version());
        assertEquals(List.of(), ledger.view().owners());
    }

    @Test
    void cyclesAndDeepChainsAreReportedAndCutShort() {
        Ledger ledger = new Ledger();
        ledger.putPod(podOf("p", "n1", ref("ReplicaSet", "a"), ""));
        List<OwnerChains.Finding> findings = new ArrayList<>(ledger.putOwner(replicaSet("a", ref("ReplicaSet", "b"))));
        findings.addAll(ledger.putOwner(replicaSet("b", ref("ReplicaSet", "a"))));
        assertEquals(List.of(new OwnerChains.Finding(pod(NS, "p"), OwnerChains.Problem.OWNER_CYCLE,
                new PodOwner("ReplicaSet", "b"))), findings);
        assertEquals("ReplicaSet/b", ownerOf(ledger, "p"));

        // 10,000 ReplicaSets, each controlled by the next: every pod event looks up at most MAX_LOOKUPS of them.
        for (int i = 0; i < 10_000; i++) {
            ledger.putOwner(replicaSet("deep" + i, ref("ReplicaSet", "deep" + (i + 1))));
        }
        List<OwnerChains.Finding> deep = ledger.putPod(podOf("q", "n2", ref("ReplicaSet", "deep0"), ""));
        assertEquals(List.of(new OwnerChains.Finding(pod(NS, "q"), OwnerChains.Problem.OWNER_CHAIN_TOO_DEEP,
                new PodOwner("ReplicaSet", "deep" + (OwnerChains.MAX_LOOKUPS - 1)))), deep);
    }

    /**
     * Pods and owners arriving in any order, owners changing and going away: the view always equals
     * that of a fresh ledger fed the same final state, owners first.
     */
    @Test
    void incrementalOwnerUpdatesEqualAFreshLedger() {
        Random random = new Random(29);
        for (int round = 0; round < 200; round++) {
            List<OwnerObject> owners = new ArrayList<>();
            List<PodPlacement> pods = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                OwnerRef above = switch (random.nextInt(4)) {
                    case 0 -> null;
                    case 1 -> ref("Deployment", "d" + random.nextInt(3));
                    case 2 -> ref("ReplicaSet", "rs" + random.nextInt(6)); // hostile: chains, cycles
                    default -> ref("Rollout", "r" + random.nextInt(2));
                };
                owners.add(replicaSet("rs" + i, above));
            }
            for (int i = 0; i < 12; i++) {
                OwnerRef controller = random.nextInt(5) == 0 ? ref("StatefulSet", "s") : ref("ReplicaSet", "rs" + random.nextInt(8));
                pods.add(podOf("p" + i, "n" + random.nextInt(3), controller, random.nextBoolean() ? "x" : ""));
            }
            Ledger incremental = new Ledger();
            List<Runnable> events = new ArrayList<>();
            List<Runnable> ownerEvents = new ArrayList<>();
            owners.forEach(owner -> ownerEvents.add(() -> incremental.putOwner(owner)));
            events.addAll(ownerEvents);
            pods.forEach(pod -> events.add(() -> incremental.putPod(pod)));
            Collections.shuffle(events, random);
            // Some owners are put with another controller first (anywhere before their final state).
            for (int i = 0; i < owners.size(); i++) {
                if (random.nextBoolean()) {
                    OwnerObject owner = owners.get(i);
                    int last = events.indexOf(ownerEvents.get(i));
                    events.add(random.nextInt(last + 1), () -> incremental.putOwner(new OwnerObject(owner.kind(),
                            owner.namespace(), owner.name(), owner.uid(), Optional.of(ref("Deployment", "stale")))));
                }
            }
            events.forEach(Runnable::run);
            List<OwnerObject> removed = owners.stream().filter(owner -> random.nextInt(4) == 0).toList();
            removed.forEach(owner -> incremental.removeOwner(owner.uid()));

            Ledger fresh = new Ledger();
            owners.stream().filter(owner -> !removed.contains(owner)).forEach(fresh::putOwner);
            pods.forEach(fresh::putPod);
            assertEquals(fresh.view().owners(), incremental.view().owners(), "round " + round);
            assertEquals(fresh.view().pods(), incremental.view().pods(), "round " + round);
        }
    }
}
