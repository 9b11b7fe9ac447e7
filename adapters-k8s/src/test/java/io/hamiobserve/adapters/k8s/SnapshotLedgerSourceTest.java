package io.hamiobserve.adapters.k8s;

import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.AllocationView.QuotaUsage;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.QuotaResource;
import io.hamiobserve.ports.SchedulerLedgerSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
        for (var object : SnapshotLedgerSource.objects(Files.readString(sample()), new Skips(skips))) {
            items.add(object);
        }
        String multiDoc = items.stream().map(item -> serialization.asYaml(serialization.convertValue(item, Map.class)))
                .collect(Collectors.joining("\n---\n"));
        Path yaml = Files.writeString(dir.resolve("multi.yaml"), multiDoc);
        String json = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n\t" + items.stream()
                .map(Object::toString).collect(Collectors.joining(",\n\t")) + "]}";
        Path jsonFile = Files.writeString(dir.resolve("cluster.json"), json);
        assertEquals(fromList.cards(), load(yaml).view().cards());
        assertEquals(fromList.containers(), load(jsonFile).view().containers());
        assertEquals(fromList.quotas(), load(jsonFile).view().quotas());
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
    void aMissingFileIsAConfigurationError() {
        Ledger ledger = new Ledger();
        SchedulerLedgerSource source = KubernetesSources.snapshot(dir.resolve("absent.yaml"));
        assertThrows(UncheckedIOException.class, () -> source.start(ledger, skips));
        assertEquals(false, ledger.isSynced());
    }
}
