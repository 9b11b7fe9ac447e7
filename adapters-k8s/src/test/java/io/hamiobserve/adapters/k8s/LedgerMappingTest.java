package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.ports.spi.NodeView;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The narrowed mapping ({@link LedgerMapping}) loses nothing the ledger reads: a dump fed through
 * it gives the ledger, and the skips, that fabric8's full mapping gives; and it does narrow, not
 * keep the rest as unknown properties.
 */
class LedgerMappingTest {
    /** Every vendor HAMi v2.10 schedules, with init containers, finished pods, quotas (the scheduler's golden dump). */
    private static final Path MIXED_VENDORS = Path.of("../vendors-all/src/test/resources/mixed-vendor-cluster.yaml");

    @TempDir
    Path dir;

    private record Fed(AllocationView view, List<String> skips) {
    }

    private static Fed feed(Path dump, KubernetesSerialization mapping) throws SnapshotReader.NotADumpException {
        Ledger ledger = new Ledger();
        Fixtures.RecordingSkips recorded = new Fixtures.RecordingSkips();
        Skips skips = new Skips(recorded);
        LedgerFeed feed = new LedgerFeed(ledger, DeviceProviders.load(), skips);
        SnapshotReader.read(dump, object -> SnapshotLedgerSource.apply(object, feed, mapping, skips), skips);
        return new Fed(ledger.view(), recorded.reasons());
    }

    private static void assertSameLedger(Path dump) throws SnapshotReader.NotADumpException {
        Fed full = feed(dump, new KubernetesSerialization());
        Fed narrowed = feed(dump, LedgerMapping.serialization());
        assertFalse(full.view().cards().isEmpty(), "the dump registers cards");
        assertFalse(full.view().pods().isEmpty(), "the dump places pods");
        assertEquals(full.view().cards(), narrowed.view().cards());
        assertEquals(full.view().pods(), narrowed.view().pods());
        assertEquals(full.view().quotas(), narrowed.view().quotas());
        assertEquals(full.view().migInstances(), narrowed.view().migInstances());
        assertEquals(full.view().unregisteredCardShares(), narrowed.view().unregisteredCardShares());
        assertEquals(full.skips(), narrowed.skips());
    }

    @Test
    void theSampleAndTheMixedVendorClusterGiveTheSameLedgerAsTheFullMapping() throws Exception {
        assertSameLedger(Path.of(LedgerMappingTest.class.getResource("/cluster-snapshot.yaml").toURI()));
        assertSameLedger(MIXED_VENDORS);
    }

    /** Nodes and pods as kubectl prints them: managed fields, last-applied configuration, statuses, images. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void objectsAsKubectlPrintsThemGiveTheSameLedgerAsTheFullMapping(boolean json) throws Exception {
        Path dump = dir.resolve(json ? "cluster.json" : "cluster.yaml");
        SnapshotReadBenchmark.write(dump, json, 20, 1 << 20);
        assertSameLedger(dump);
    }

    /** A node's resources as the device providers see them, {@code status.allocatable} too (no dump above has a resource there alone). */
    @Test
    void aNodesViewForTheDeviceProvidersIsTheSame() {
        Node written = new NodeBuilder().withNewMetadata().withName("gcu-node").endMetadata().withNewStatus()
                .addToCapacity("cpu", new Quantity("64")).addToAllocatable("enflame.com/gcu", new Quantity("7"))
                .endStatus().build();
        JsonNode object = new KubernetesSerialization().convertValue(written, JsonNode.class);
        DeviceProviders providers = DeviceProviders.load();
        NodeView full = providers.view("gcu-node", written);
        NodeView narrowed = providers.view("gcu-node", LedgerMapping.serialization().convertValue(object, Node.class));
        assertEquals("7", full.allocatable().get("enflame.com/gcu"));
        assertEquals(full, narrowed);
    }

    /**
     * Hostile values where the ledger does not read: wrong types, a huge number, quotes, newlines,
     * markup and deep nesting in volumes, probes and managed fields do not cost the pod its place;
     * a wrong type where the ledger reads still skips the object, with a stable reason.
     */
    @Test
    void garbageInSkippedFieldsLeavesThePodGarbageInReadFieldsSkipsIt() throws Exception {
        String deep = "[".repeat(400) + "]".repeat(400);
        Path dump = java.nio.file.Files.writeString(dir.resolve("hostile.yaml"), """
                kind: Node
                metadata: {name: n1, annotations: {hami.io/node-nvidia-register: 'GPU-1,10,40960,100,T,0,true:'}}
                ---
                kind: Pod
                metadata:
                  name: p1
                  namespace: ns
                  uid: u1
                  managedFields: "<script>\\"x\\"\\n</script>"
                  creationTimestamp: 99999999999999999999999999999999
                  annotations: {hami.io/vgpu-node: n1, hami.io/bind-phase: success,
                                hami.io/vgpu-devices-allocated: 'GPU-1,NVIDIA,1000,10:;'}
                spec:
                  nodeName: n1
                  volumes: -7
                  affinity: %s
                  containers:
                  - name: main
                    livenessProbe: {exec: 12, periodSeconds: -99999999999999999999}
                    env: "not a list"
                status: {phase: Running, podIPs: {a: b}, hostIP: [7]}
                ---
                kind: Pod
                metadata: {name: p2, namespace: ns, uid: u2, annotations: [not, a, map]}
                spec: {nodeName: n1, containers: [{name: main}]}
                """.formatted(deep));
        Fed narrowed = feed(dump, LedgerMapping.serialization());
        assertEquals(List.of("p1"), narrowed.view().pods().stream().map(p -> p.pod().name()).toList());
        assertEquals(1000, narrowed.view().cards().getFirst().allocatedMemoryMib());
        assertEquals(List.of("snapshot/bad_object"), narrowed.skips());
    }

    @Test
    void whatTheLedgerDoesNotReadIsSkippedNotKept() throws Exception {
        Path dump = dir.resolve("cluster.yaml");
        SnapshotReadBenchmark.write(dump, false, 1, 20_000);
        List<JsonNode> objects = new ArrayList<>();
        SnapshotReader.read(dump, objects::add, new Skips(new Fixtures.RecordingSkips()));
        JsonNode nodeObject = objects.stream().filter(o -> o.path("kind").asString("").equals("Node")).findFirst()
                .orElseThrow();
        JsonNode podObject = objects.stream().filter(o -> o.path("kind").asString("").equals("Pod")).findFirst()
                .orElseThrow();

        // The full mapping has them: the input holds what the narrowed one drops.
        Pod full = new KubernetesSerialization().convertValue(podObject, Pod.class);
        assertFalse(full.getMetadata().getManagedFields().isEmpty());
        assertFalse(full.getSpec().getContainers().get(0).getEnv().isEmpty());
        assertFalse(full.getStatus().getConditions().isEmpty());

        Pod pod = LedgerMapping.serialization().convertValue(podObject, Pod.class);
        assertTrue(pod.getMetadata().getManagedFields().isEmpty());
        // Read for a pending pod's wait.
        assertEquals(full.getMetadata().getCreationTimestamp(), pod.getMetadata().getCreationTimestamp());
        assertEquals(full.getMetadata().getAnnotations(), pod.getMetadata().getAnnotations());
        assertEquals(full.getMetadata().getLabels(), pod.getMetadata().getLabels());
        assertEquals(full.getMetadata().getResourceVersion(), pod.getMetadata().getResourceVersion());
        assertEquals(full.getSpec().getNodeName(), pod.getSpec().getNodeName());
        assertNull(pod.getSpec().getSchedulerName());
        Container container = pod.getSpec().getContainers().get(0);
        assertEquals("server", container.getName());
        assertTrue(container.getEnv().isEmpty());
        // Read for whether an unscheduled pod requests a HAMi resource: limits and requests only.
        assertEquals(full.getSpec().getContainers().get(0).getResources().getLimits(),
                container.getResources().getLimits());
        assertTrue(container.getResources().getClaims().isEmpty());
        // Read for a pending pod's reason: type, status, reason, message only.
        assertEquals(full.getStatus().getConditions().size(), pod.getStatus().getConditions().size());
        assertNotNull(full.getStatus().getConditions().get(0).getLastTransitionTime());
        assertNull(pod.getStatus().getConditions().get(0).getLastTransitionTime());
        assertEquals(full.getStatus().getConditions().get(0).getType(), pod.getStatus().getConditions().get(0).getType());
        assertEquals("Running", pod.getStatus().getPhase());
        // Skipped, not stashed: fabric8's classes keep unknown properties in a map of their own.
        assertTrue(pod.getMetadata().getAdditionalProperties().isEmpty());
        assertTrue(pod.getSpec().getAdditionalProperties().isEmpty());
        assertTrue(container.getAdditionalProperties().isEmpty());
        assertTrue(pod.getStatus().getAdditionalProperties().isEmpty());

        Node node = LedgerMapping.serialization().convertValue(nodeObject, Node.class);
        assertTrue(node.getStatus().getImages().isEmpty());
        assertTrue(node.getStatus().getAdditionalProperties().isEmpty());
        assertEquals(new KubernetesSerialization().convertValue(nodeObject, Node.class).getStatus().getCapacity(),
                node.getStatus().getCapacity());
    }
}
