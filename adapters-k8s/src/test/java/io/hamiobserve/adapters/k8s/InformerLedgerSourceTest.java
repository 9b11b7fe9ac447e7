package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.QuotaResource;
import io.hamiobserve.ports.SchedulerLedgerSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static io.hamiobserve.adapters.k8s.Fixtures.await;
import static io.hamiobserve.adapters.k8s.Fixtures.card;
import static io.hamiobserve.adapters.k8s.Fixtures.node;
import static io.hamiobserve.adapters.k8s.Fixtures.pod;
import static io.hamiobserve.adapters.k8s.Fixtures.quota;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The live source against fabric8's mock API server in CRUD mode. */
class InformerLedgerSourceTest {
    private final MockCluster cluster = new MockCluster();
    private final KubernetesClient client = cluster.client;
    private final KubernetesClient ledgerClient = cluster.ledgerClient;
    private final Ledger ledger = new Ledger();
    private final Fixtures.RecordingSkips skips = new Fixtures.RecordingSkips();
    private SchedulerLedgerSource source;

    @AfterEach
    void stop() {
        if (source != null) {
            source.close();
        }
        cluster.close();
    }

    private void startSource() {
        source = KubernetesSources.cluster(ledgerClient, Duration.ofMillis(100));
        source.start(ledger, skips);
        await("first sync", ledger::isSynced);
    }

    private static AllocationView.CardAllocation cardOf(AllocationView view, String uuid) {
        return view.cards().stream().filter(c -> c.card().uuid().equals(uuid)).findFirst()
                .orElseThrow(() -> new AssertionError("no card " + uuid + " in " + view.cards()));
    }

    private static boolean allocated(Ledger ledger, String uuid, long mib) {
        return ledger.view().cards().stream().anyMatch(c -> c.card().uuid().equals(uuid)
                && c.allocatedMemoryMib() == mib);
    }

    @Test
    void followsNodesPodsAndQuotasThroughTheirLifecycle() {
        client.nodes().resource(node("node-a", "[" + card("GPU-1", 0, 40960) + "]")).create();
        client.pods().inNamespace("ml").resource(pod("ml", "p1", "node-a", "GPU-1,NVIDIA,1000,10:;", "c").build())
                .create();
        startSource();
        assertEquals(1000, cardOf(ledger.view(), "GPU-1").allocatedMemoryMib());

        // A second pod, then a quota on its namespace.
        client.pods().inNamespace("ml").resource(pod("ml", "p2", "node-a", "GPU-1,NVIDIA,500,5:;", "c").build())
                .create();
        await("second pod counted", () -> allocated(ledger, "GPU-1", 1500));
        client.resourceQuotas().inNamespace("ml").resource(quota("ml", "gpu", Map.of(
                "limits.nvidia.com/gpumem", "4000", "limits.nvidia.com/gpucores", "50"))).create();
        await("quota seen", () -> ledger.view().quotas().stream().anyMatch(q -> q.namespace().equals("ml")
                && q.resource() == QuotaResource.GPU_MEMORY_MIB && q.limit().equals(OptionalLong.of(4000))
                && q.used() == 1500));

        // Phase change: a finished pod releases its share.
        Pod p2 = client.pods().inNamespace("ml").withName("p2").get();
        p2.getStatus().setPhase("Succeeded");
        client.pods().inNamespace("ml").resource(p2).updateStatus();
        await("succeeded pod released", () -> allocated(ledger, "GPU-1", 1000));

        // Card re-registration with more memory and a second card.
        client.nodes().withName("node-a").edit(n -> node("node-a", "[" + card("GPU-1", 0, 81920) + ","
                + card("GPU-2", 1, 81920) + "]"));
        await("re-registration seen", () -> ledger.view().cards().size() == 2
                && cardOf(ledger.view(), "GPU-1").card().memoryMib() == 81920);
        assertEquals(1000, cardOf(ledger.view(), "GPU-1").allocatedMemoryMib());

        // Re-placement: the allocation annotation moves to the other card.
        client.pods().inNamespace("ml").withName("p1").edit(p -> {
            p.getMetadata().getAnnotations().put(Fixtures.ALLOCATED, "GPU-2,NVIDIA,700,7:;");
            return p;
        });
        await("re-placement seen", () -> allocated(ledger, "GPU-2", 700) && allocated(ledger, "GPU-1", 0));

        // Deletes.
        client.pods().inNamespace("ml").withName("p1").delete();
        await("deleted pod released", () -> allocated(ledger, "GPU-2", 0));
        client.resourceQuotas().inNamespace("ml").withName("gpu").delete();
        await("quota removed", () -> ledger.view().quotas().stream().noneMatch(q -> q.limit().isPresent()));
        client.nodes().withName("node-a").delete();
        await("node removed", () -> ledger.view().cards().isEmpty());
        assertEquals(List.of(), skips.reasons());
    }

    @Test
    void podsWithoutThePlacementLabelAreNotWatched() {
        client.pods().inNamespace("ml").resource(pod("ml", "plain", null, "GPU-1,NVIDIA,1000,10:;", "c").build())
                .create();
        client.nodes().resource(node("node-a", "[" + card("GPU-1", 0, 40960) + "]")).create();
        startSource();
        assertEquals(0, cardOf(ledger.view(), "GPU-1").allocatedMemoryMib());
        assertEquals(List.of(), ledger.view().containers());
    }

    @Test
    void malformedAnnotationsAreReportedAndTheRestServed() {
        client.nodes().resource(node("node-a", "GPU-1,10,40960,100,NVIDIA-A100,0,true:GPU-2,10,lots,100,X,0,true:"))
                .create();
        client.nodes().resource(node("node-b", "[{\"id\":")).create();
        client.pods().inNamespace("ml").resource(pod("ml", "p1", "node-a",
                "GPU-1,NVIDIA,1000,10:GPU-1,NVIDIA,-1,0:;", "c").build()).create();
        client.resourceQuotas().inNamespace("ml").resource(quota("ml", "gpu", Map.of(
                "limits.nvidia.com/gpumem", "-5"))).create();
        startSource();
        assertEquals(List.of("GPU-1"), ledger.view().cards().stream().map(c -> c.card().uuid()).toList());
        assertEquals(1000, cardOf(ledger.view(), "GPU-1").allocatedMemoryMib());
        assertTrue(skips.reasons().containsAll(List.of("nvidia_node/not_a_number", "nvidia_node/bad_json",
                "nvidia_pod/negative_number", "quota/negative_number")), skips.reasons()::toString);
    }

    @Test
    void recoversFromAnApiServerRestartAndDropsWhatVanishedMeanwhile() throws Exception {
        client.nodes().resource(node("node-a", "[" + card("GPU-1", 0, 40960) + "]")).create();
        client.pods().inNamespace("ml").resource(pod("ml", "old", "node-a", "GPU-1,NVIDIA,1000,10:;", "c").build())
                .create();
        client.pods().inNamespace("ml").resource(pod("ml", "kept", "node-a", "GPU-1,NVIDIA,100,1:;", "c").build())
                .create();
        startSource();
        assertEquals(1100, cardOf(ledger.view(), "GPU-1").allocatedMemoryMib());
        InformerLedgerSource live = (InformerLedgerSource) source;
        await("watching", live::healthy);

        // The API server goes away: the last ledger is still served, still marked synced, and ages.
        cluster.stopServer();
        await("watch loss noticed", Duration.ofSeconds(30), () -> !live.healthy());
        long staleMark = ledger.view().freshness().lastSyncEpochMillis();
        Thread.sleep(400);
        assertTrue(ledger.isSynced());
        assertEquals(staleMark, ledger.view().freshness().lastSyncEpochMillis(), "no refresh while down");
        assertEquals(1100, cardOf(ledger.view(), "GPU-1").allocatedMemoryMib());

        // A new API server on the same address, whose state changed meanwhile: "old" is gone, a pod
        // was added and the node's card grew.
        cluster.restartServer();
        client.nodes().resource(node("node-a", "[" + card("GPU-1", 0, 81920) + "]")).create();
        client.pods().inNamespace("ml").resource(pod("ml", "kept", "node-a", "GPU-1,NVIDIA,100,1:;", "c").build())
                .create();
        client.pods().inNamespace("ml").resource(pod("ml", "new", "node-a", "GPU-1,NVIDIA,50,1:;", "c").build())
                .create();
        await("recovered", Duration.ofSeconds(60), () -> live.healthy()
                && cardOf(ledger.view(), "GPU-1").card().memoryMib() == 81920
                && allocated(ledger, "GPU-1", 150));
        assertEquals(List.of("kept", "new"), ledger.view().containers().stream().map(c -> c.pod().name()).toList());
        await("freshness refreshed", () -> ledger.view().freshness().lastSyncEpochMillis() > staleMark);
        assertFalse(skips.reasons().iterator().hasNext(), skips.reasons()::toString);
    }
}
