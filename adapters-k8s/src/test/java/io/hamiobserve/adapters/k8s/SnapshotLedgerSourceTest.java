package io.hamiobserve.adapters.k8s;

import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.AllocationView.QuotaUsage;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.PendingPod;
import io.hamiobserve.domain.PendingReason;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.QuotaResource;
import io.hamiobserve.ports.SchedulerLedgerSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SnapshotLedgerSourceTest {
    private static final String A1 = "GPU-4f1c2a8e-6b0d-4a5e-9d3c-1a2b3c4d5e01";
    private static final String A2 = "GPU-4f1c2a8e-6b0d-4a5e-9d3c-1a2b3c4d5e02";
    private static final String V1 = "GPU-9a8b7c6d-1111-2222-3333-444455556601";
    private static final String V2 = "GPU-9a8b7c6d-1111-2222-3333-444455556602";

    @TempDir
    Path dir;

    private final Fixtures.RecordingSkips skips = new Fixtures.RecordingSkips();

    private static Path sample() throws URISyntaxException {
        return Path.of(SnapshotLedgerSourceTest.class.getResource("/cluster-snapshot.yaml").toURI());
    }

    private Ledger load(Path file) {
        Ledger ledger = new Ledger();
        try (SchedulerLedgerSource source = KubernetesSources.snapshot(file)) {
            source.start(ledger, skips);
        }
        return ledger;
    }

    private static Map<String, AllocationView.CardAllocation> byUuid(AllocationView view) {
        return view.cards().stream().collect(Collectors.toMap(c -> c.card().uuid(), c -> c));
    }

    @Test
    void theSampleClusterGivesTheExpectedAllocationView() throws Exception {
        Ledger ledger = load(sample());
        assertTrue(ledger.isSynced());
        AllocationView view = ledger.view();
        var cards = byUuid(view);
        assertEquals(List.of(A1, A2, V1, V2).stream().sorted().toList(), cards.keySet().stream().sorted().toList());
        // train-llm-0: init finished, so only the trainer and shipper count; the shipper has no GPU.
        // notebook-ana: init not finished, its init container holds 4000 MiB of A1.
        assertEquals(10000 + 4000, cards.get(A1).allocatedMemoryMib());
        assertEquals(30 + 10, cards.get(A1).allocatedCores());
        assertEquals(2, cards.get(A1).sharedContainers());
        assertEquals(10000, cards.get(A2).allocatedMemoryMib());
        // infer-batch-16 Succeeded: released.
        assertEquals(16384, cards.get(V1).allocatedMemoryMib());
        assertEquals(1, cards.get(V1).sharedContainers());
        assertEquals(false, cards.get(V2).card().healthy());
        assertEquals(1, cards.get(V2).card().index());
        assertEquals(32768, cards.get(V1).card().memoryMib());

        QuotaUsage memory = view.quotas().stream()
                .filter(q -> q.namespace().equals("research") && q.resource() == QuotaResource.GPU_MEMORY_MIB)
                .findFirst().orElseThrow();
        assertEquals(OptionalLong.of(60000), memory.limit());
        assertEquals(14000 + 10000, memory.used()); // both A100 cards
        assertEquals(List.of("notebook-ana", "train-llm-0", "train-llm-0", "train-llm-0"),
                view.containers().stream().filter(c -> c.pod().namespace().equals("research"))
                        .map(c -> c.pod().name()).toList());
        assertEquals(List.of(), view.unregisteredCardShares());
        assertEquals(List.of(), skips.reasons());
    }

    @Test
    void multiDocumentYamlAndJsonGiveTheSameLedger() throws Exception {
        AllocationView fromList = load(sample()).view();
        var serialization = new io.fabric8.kubernetes.client.utils.KubernetesSerialization();
        List<Object> items = new java.util.ArrayList<>();
        SnapshotReader.read(sample(), items::add, new Skips(skips));
        String multiDoc = items.stream().map(item -> serialization.asYaml(serialization.convertValue(item, Map.class)))
                .collect(Collectors.joining("\n---\n"));
        Path yaml = Files.writeString(dir.resolve("multi.yaml"), multiDoc);
        String json = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n\t" + items.stream()
                .map(Object::toString).collect(Collectors.joining(",\n\t")) + "]}";
        Path jsonFile = Files.writeString(dir.resolve("cluster.json"), json);
        assertEquals(fromList.cards(), load(yaml).view().cards());
        assertEquals(fromList.containers(), load(jsonFile).view().containers());
        assertEquals(fromList.quotas(), load(jsonFile).view().quotas());
        assertEquals(fromList.owners(), load(yaml).view().owners());
        assertEquals(fromList.owners(), load(jsonFile).view().owners());
        assertEquals(fromList.pods(), load(jsonFile).view().pods());
    }

    /** Each pod's top controller from the dump's pods, ReplicaSets and Jobs. */
    @Test
    void theSampleNamesEachPodsTopController() throws Exception {
        Ledger ledger = load(sample());
        assertEquals(Map.of("notebook-ana", "Pod/notebook-ana", "train-llm-0", "StatefulSet/train-llm",
                "infer-batch-17", "Deployment/infer-batch"), owners(ledger.view()));
        assertEquals(2, ledger.ownerCount()); // the ReplicaSet and the Job
        assertEquals(List.of(), skips.reasons());
    }

    /** A dump without ReplicaSets: the pod-template-hash label still names the Deployment. */
    @Test
    void aDumpWithoutTheReplicaSetNamesTheDeploymentByTheTemplateHash() throws Exception {
        String withoutOwners = Files.readString(sample());
        withoutOwners = withoutOwners.substring(0, withoutOwners.indexOf("- apiVersion: apps/v1\n  kind: ReplicaSet"));
        Ledger ledger = load(Files.writeString(dir.resolve("pods-only.yaml"), withoutOwners));
        assertEquals(0, ledger.ownerCount());
        assertEquals("Deployment/infer-batch", owners(ledger.view()).get("infer-batch-17"));
    }

    static Map<String, String> owners(AllocationView view) {
        Map<String, String> owners = new java.util.TreeMap<>();
        for (int i = 0; i < view.pods().size(); i++) {
            owners.put(view.pods().get(i).pod().name(), view.owners().get(i).kind() + "/" + view.owners().get(i).name());
        }
        return owners;
    }

    @Test
    void aBrokenTailKeepsTheDocumentsBeforeIt() throws IOException {
        Path file = Files.writeString(dir.resolve("broken.yaml"), """
                apiVersion: v1
                kind: Node
                metadata:
                  name: n1
                  annotations:
                    hami.io/node-nvidia-register: '[{"id":"GPU-1","devmem":100}]'
                ---
                kind: Pod
                metadata: [unclosed
                """);
        Ledger ledger = load(file);
        assertEquals(1, ledger.view().cards().size());
        assertEquals(List.of("snapshot/bad_document"), skips.reasons());
    }

    /** A dump's unscheduled pods that request a HAMi resource are unmet demand, their condition mapped. */
    @Test
    void aDumpCountsItsPendingGpuPods() throws IOException {
        Path file = Files.writeString(dir.resolve("pending.yaml"), """
                kind: List
                items:
                - kind: Pod
                  metadata: {name: waits-for-memory, namespace: ml, uid: u1, creationTimestamp: "2026-12-01T10:00:00Z"}
                  spec:
                    containers:
                    - name: main
                      resources: {limits: {nvidia.com/gpu: "1", nvidia.com/gpumem: "81920"}}
                  status:
                    phase: Pending
                    conditions:
                    - {type: PodScheduled, status: "False", reason: Unschedulable,
                       message: "0/2 nodes are available: 2 1/4 CardInsufficientMemory.",
                       lastTransitionTime: "2026-12-01T10:00:02Z"}
                - kind: Pod
                  metadata: {name: quota-init, namespace: ml, uid: u2, creationTimestamp: "2026-12-01T11:00:00Z"}
                  spec:
                    initContainers:
                    - {name: warm, resources: {requests: {huawei.com/Ascend910B3-memory: "16384"}}}
                    containers: [{name: main}]
                  status:
                    phase: Pending
                    conditions: [{type: PodScheduled, status: "False", reason: Unschedulable,
                                  message: "0/2 nodes are available: 2 ResourceQuotaNotFit."}]
                - kind: Pod
                  metadata: {name: cpu, namespace: ml, uid: u3, creationTimestamp: "2026-12-01T11:00:00Z"}
                  spec: {containers: [{name: main, resources: {limits: {cpu: "1"}}}]}
                  status: {phase: Pending}
                - kind: Pod
                  metadata: {name: done, namespace: ml, uid: u4, creationTimestamp: "2026-12-01T11:00:00Z"}
                  spec: {containers: [{name: main, resources: {limits: {nvidia.com/gpu: "1"}}}]}
                  status: {phase: Failed}
                """);
        Ledger ledger = load(file);
        assertEquals(List.of(
                new PendingPod(new PodRef("ml", "quota-init", "u2"), Instant.parse("2026-12-01T11:00:00Z").toEpochMilli(),
                        PendingReason.QUOTA),
                new PendingPod(new PodRef("ml", "waits-for-memory", "u1"),
                        Instant.parse("2026-12-01T10:00:00Z").toEpochMilli(), PendingReason.INSUFFICIENT_MEMORY)),
                ledger.view().pending());
        assertTrue(ledger.view().pods().isEmpty());
        assertEquals(List.of(), skips.reasons());
    }

    @Test
    void anObjectThatDoesNotMapIsSkipped() throws IOException {
        Path file = Files.writeString(dir.resolve("odd.yaml"), """
                kind: Pod
                metadata: {name: p, namespace: ns, uid: u1}
                spec: {containers: "not a list"}
                ---
                kind: Node
                metadata: {name: n1, annotations: {hami.io/node-nvidia-register: 'GPU-1,1,100,100,T,0,true:'}}
                """);
        Ledger ledger = load(file);
        assertEquals(1, ledger.view().cards().size());
        assertEquals(List.of("snapshot/bad_object"), skips.reasons());
    }

    @Test
    void aMissingFileLeavesTheSourceFailedForGoodAndTheLedgerUnsynced() {
        Ledger ledger = new Ledger();
        SchedulerLedgerSource source = KubernetesSources.snapshot(dir.resolve("absent.yaml"));
        source.start(ledger, skips);
        assertEquals(false, ledger.isSynced());
        SchedulerLedgerSource.Failure failure = source.failure().orElseThrow();
        assertFalse(failure.retrying());
        assertEquals("snapshot " + dir.resolve("absent.yaml") + ": no such file", failure.message());
    }

    private SchedulerLedgerSource.Failure failureOf(Path file) {
        Ledger ledger = new Ledger();
        SchedulerLedgerSource source = KubernetesSources.snapshot(file);
        source.start(ledger, skips);
        assertFalse(ledger.isSynced(), "a file that is not a dump must not give a synced, empty ledger");
        SchedulerLedgerSource.Failure failure = source.failure().orElseThrow();
        assertFalse(failure.retrying());
        assertFalse(failure.message().contains("\n"), failure.message());
        return failure;
    }

    @ParameterizedTest(name = "#{index}")
    @ValueSource(strings = {
            "apiVersion: v1\nmetadata: {name: x}\n",                   // a map without items or kind
            "just a scalar\n",
            "42\n",
            "",                                                          // empty
            "---\n---\n",                                               // only empty documents
            "root:$6$x$y:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n", // /etc/shadow's shape
            "{\"apiVersion\": \"v1\"}",                                 // JSON map without items or kind
            "{\"items\": [",                                            // JSON cut before anything
            "\u0000\u0001\u0002binary",
    })
    void aFileThatIsNotADumpIsAOneLineFailure(String content) throws IOException {
        Path file = Files.writeString(dir.resolve("not-a-dump"), content);
        String message = failureOf(file).message();
        assertTrue(message.startsWith("snapshot " + file + ": "), message);
    }

    @Test
    void aDirectoryADeviceAndAFifoAreRefusedWithoutBeingOpened() throws Exception {
        assertTrue(failureOf(dir).message().endsWith("not a regular file (a directory): expected a kubectl -o yaml "
                + "or -o json dump"));
        assertTrue(failureOf(Path.of("/dev/zero")).message().contains("not a regular file"));
        Path fifo = dir.resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor());
        // Opening a FIFO without a writer would block for ever.
        assertTrue(failureOf(fifo).message().contains("not a regular file"));
    }

    @Test
    void aYamlDumpOverSnakeYamlsDefaultLimitIsReadWhole() throws IOException {
        // SnakeYAML refuses documents over 3 MiB by default: a dump of a few hundred real pods.
        StringBuilder yaml = new StringBuilder("apiVersion: v1\nkind: List\nitems:\n");
        yaml.append("""
                - apiVersion: v1
                  kind: Node
                  metadata:
                    name: n1
                    annotations:
                      hami.io/node-nvidia-register: '[{"id":"GPU-1","devmem":81920,"count":100}]'
                """);
        int pods = 2000;
        for (int i = 0; i < pods; i++) {
            yaml.append("""
                    - apiVersion: v1
                      kind: Pod
                      metadata:
                        name: p%d
                        namespace: ns
                        uid: uid-%d
                        labels: {hami.io/vgpu-node: n1}
                        annotations:
                          hami.io/vgpu-node: n1
                          hami.io/vgpu-devices-allocated: 'GPU-1,NVIDIA,10,1:;'
                          padding: '%s'
                      spec:
                        containers: [{name: c}]
                      status: {phase: Running}
                    """.formatted(i, i, "x".repeat(1500)));
        }
        Path file = Files.writeString(dir.resolve("big.yaml"), yaml);
        assertTrue(Files.size(file) > 3 * 1024 * 1024);

        Ledger ledger = load(file);
        assertTrue(ledger.isSynced());
        assertEquals(List.of(), skips.reasons());
        assertEquals(pods * 10L, ledger.view().cards().getFirst().allocatedMemoryMib());
    }

    @Test
    void anEmptyListIsADumpOfAClusterWithoutObjects() throws IOException {
        Ledger ledger = load(Files.writeString(dir.resolve("empty.yaml"), "apiVersion: v1\nitems: []\nkind: List\n"));
        assertTrue(ledger.isSynced());
        assertEquals(List.of(), ledger.view().cards());
    }

    @Test
    void itemsThatAreNotObjectsAndLaterDocumentsThatAreNotDumpsAreSkipped() throws IOException {
        Path file = Files.writeString(dir.resolve("odd.json"), """
                {"kind": "List", "items": [7, {"kind": "Node", "metadata": {"name": "n1", "annotations":
                  {"hami.io/node-nvidia-register": "GPU-1,1,100,100,T,0,true:"}}}]}
                "a scalar"
                {"no": "kind"}
                """);
        Ledger ledger = load(file);
        assertTrue(ledger.isSynced());
        assertEquals(1, ledger.view().cards().size());
        assertEquals(List.of("snapshot/bad_object", "snapshot/bad_document", "snapshot/bad_document"),
                skips.reasons());
    }
}
