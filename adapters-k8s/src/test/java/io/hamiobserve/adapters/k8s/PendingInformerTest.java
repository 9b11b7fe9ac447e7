package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.PendingPod;
import io.hamiobserve.domain.PendingReason;
import io.hamiobserve.ports.SchedulerLedgerSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import static io.hamiobserve.adapters.k8s.Fixtures.await;
import static io.hamiobserve.adapters.k8s.Fixtures.card;
import static io.hamiobserve.adapters.k8s.Fixtures.node;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Unmet demand followed live: the unscheduled pods' informer (field selector {@code spec.nodeName=})
 * keeps the pods that request a HAMi resource, with their condition's reason, and forgets them as
 * they are bound or deleted (fabric8's mock API server, CRUD mode).
 */
class PendingInformerTest {
    static final String CREATED = "2026-12-01T10:00:00Z";

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

    /** An unscheduled pod whose one container limits {@code resource}; a PodScheduled condition when message is set. */
    static Pod unscheduled(String name, String resource, String message) {
        PodBuilder builder = new PodBuilder().withNewMetadata().withNamespace("ml").withName(name)
                .withUid("uid-" + name).withCreationTimestamp(CREATED).endMetadata()
                .withNewSpec().addToContainers(new ContainerBuilder().withName("main").withImage("cuda")
                        .withNewResources().addToLimits(resource, new Quantity("1")).endResources().build())
                .endSpec()
                .withNewStatus().withPhase("Pending").endStatus();
        if (message != null) {
            builder.editStatus().addToConditions(new PodConditionBuilder().withType("PodScheduled")
                    .withStatus("False").withReason("Unschedulable").withMessage(message)
                    .withLastTransitionTime("2026-12-01T10:00:05Z").build()).endStatus();
        }
        return builder.build();
    }

    private Map<String, PendingReason> pending() {
        Map<String, PendingReason> byName = new TreeMap<>();
        for (PendingPod pod : ledger.view().pending()) {
            byName.put(pod.pod().name(), pod.reason());
        }
        return byName;
    }

    @Test
    void unscheduledPodsThatRequestAHamiResourceAreUnmetDemandUntilBound() {
        client.nodes().resource(node("node-a", "[" + card("GPU-1", 0, 40960) + "]")).create();
        client.pods().inNamespace("ml").resource(unscheduled("big-model", "nvidia.com/gpumem",
                "0/1 nodes are available: 1 1/1 CardInsufficientMemory.")).create();
        client.pods().inNamespace("ml").resource(unscheduled("fresh", "nvidia.com/gpu", null)).create();
        client.pods().inNamespace("ml").resource(unscheduled("npu", "huawei.com/Ascend910B3",
                "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.")).create();
        // No HAMi resource: not demand this exporter counts.
        client.pods().inNamespace("ml").resource(unscheduled("cpu-only", "cpu", "0/1 nodes are available")).create();
        // Bound to a node already: not pending.
        Pod bound = unscheduled("bound", "nvidia.com/gpu", null);
        bound.getSpec().setNodeName("node-a");
        client.pods().inNamespace("ml").resource(bound).create();

        source = KubernetesSources.cluster(ledgerClient, Duration.ofMillis(100));
        source.start(ledger, skips);
        await("first sync", ledger::isSynced);
        assertEquals(Map.of("big-model", PendingReason.INSUFFICIENT_MEMORY, "fresh", PendingReason.NOT_YET_TRIED,
                "npu", PendingReason.NODE_AFFINITY), pending());
        // The wait starts at the creation time the API server set (the mock server sets its own, as a real one does).
        String created = client.pods().inNamespace("ml").withName("big-model").get().getMetadata().getCreationTimestamp();
        assertEquals(Instant.parse(created).toEpochMilli(), ledger.view().pending().getFirst().waitingSinceEpochMillis());

        // The scheduler tries the fresh pod: its condition arrives.
        client.pods().inNamespace("ml").withName("fresh").editStatus(pod -> {
            pod.getStatus().getConditions().add(new PodConditionBuilder().withType("PodScheduled").withStatus("False")
                    .withReason("Unschedulable").withMessage("0/1 nodes are available: 1 4/4 CardInsufficientCore.")
                    .build());
            return pod;
        });
        await("condition", () -> pending().get("fresh") == PendingReason.INSUFFICIENT_CORES);

        // Deleted while pending; another created, with a hostile megabyte message that names memory first.
        client.pods().inNamespace("ml").withName("npu").delete();
        client.pods().inNamespace("ml").resource(unscheduled("hostile", "nvidia.com/gpucores",
                "CardInsufficientMemory\n\"}" + "\u202e".repeat(1 << 19))).create();
        await("delete and hostile add", () -> pending().equals(Map.of("big-model", PendingReason.INSUFFICIENT_MEMORY,
                "fresh", PendingReason.INSUFFICIENT_CORES, "hostile", PendingReason.INSUFFICIENT_MEMORY)));
        assertEquals(java.util.List.of(), skips.reasons());
    }

    @Test
    void aPodThatCannotBeCountedIsSkippedWithAStableReason() {
        Pod noTime = unscheduled("no-time", "nvidia.com/gpu", null);
        noTime.getMetadata().setCreationTimestamp(null);
        LedgerFeed feed = new LedgerFeed(ledger, DeviceProviders.load(), new Skips(skips));
        feed.putUnscheduled(noTime);
        Pod garbageTime = unscheduled("garbage-time", "nvidia.com/gpu", null);
        garbageTime.getMetadata().setCreationTimestamp("+999999999-12-31T23:59:59.999999999Z\n" + "9".repeat(100));
        feed.putUnscheduled(garbageTime);
        Pod longName = unscheduled("x".repeat(300), "nvidia.com/gpu", null);
        feed.putUnscheduled(longName);
        assertEquals(java.util.List.of("pending_pod/bad_timestamp", "pending_pod/bad_timestamp", "pending_pod/too_long"),
                skips.reasons());
        assertEquals(0, ledger.pendingCount());

        // A snapshot's pod goes through the same mapping: pending while unscheduled, gone once placed.
        Pod pod = unscheduled("snap", "nvidia.com/gpumem", "0/3 nodes are available: 3 ResourceQuotaNotFit.");
        feed.putPod(pod);
        assertEquals(Map.of("snap", PendingReason.QUOTA), pending());
        Pod placed = new PodBuilder(pod).editMetadata().addToAnnotations("hami.io/vgpu-node", "node-a")
                .addToLabels("hami.io/vgpu-node", "node-a").endMetadata().build();
        feed.putPod(placed);
        assertEquals(Map.of(), pending());
    }
}
