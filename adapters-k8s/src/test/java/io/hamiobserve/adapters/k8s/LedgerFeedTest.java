package io.hamiobserve.adapters.k8s;

import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.domain.QuotaResource;
import io.hamiobserve.ports.SkipReporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static io.hamiobserve.adapters.k8s.Fixtures.card;
import static io.hamiobserve.adapters.k8s.Fixtures.node;
import static io.hamiobserve.adapters.k8s.Fixtures.pod;
import static io.hamiobserve.adapters.k8s.Fixtures.quota;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LedgerFeedTest {
    private final Ledger ledger = new Ledger();
    private final Fixtures.RecordingSkips skips = new Fixtures.RecordingSkips();
    private final LedgerFeed feed = new LedgerFeed(ledger, DeviceProviders.load(), new Skips(skips));

    private OptionalLong memoryLimit() {
        return ledger.view().quotas().stream().filter(q -> q.resource() == QuotaResource.GPU_MEMORY_MIB)
                .findFirst().orElseThrow().limit();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "40960      | 40960",
            "0.5        | 1",
            "1e3        | 1000",
            "8Ki        | 8192",
            "8796093022207 | 8796093022207",
            // Found by the fuzzer: rounding this up with setScale needed 10^777777779.
            "7e-777777779  | 1",
            "1e-1000000    | 1",
            "0             | 0",
    })
    void quotaLimitsWithinTheBoundAreRoundedUpToAWholeUnit(String quantity, long expected) {
        feed.putQuota(quota("ns", "q", Map.of("limits.nvidia.com/gpumem", quantity)));
        assertEquals(OptionalLong.of(expected), memoryLimit());
        assertEquals(List.of(), skips.reasons());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "8796093022208 | number_overflow",
            "1Ei           | number_overflow",
            "1e1000000     | number_overflow",
            "9e99999999    | number_overflow",
            "-1            | negative_number",
            "-1e1000000    | negative_number",
            "NaN           | bad_quantity",
            "1e99999999999999999999 | bad_quantity",
    })
    void quotaLimitsOutOfBoundsAreSkippedWithAReasonAndQuickly(String quantity, String reason) {
        long started = System.nanoTime();
        feed.putQuota(quota("ns", "q", Map.of("limits.nvidia.com/gpumem", quantity,
                "limits.nvidia.com/gpucores", "200")));
        // Rounding 1e1000000 to a whole number would build a million digits; it is refused before that.
        assertTrue(System.nanoTime() - started < 1_000_000_000L, "took " + (System.nanoTime() - started) + " ns");
        assertEquals(List.of("quota/" + reason), skips.reasons());
        assertTrue(ledger.view().quotas().stream().noneMatch(q -> q.resource() == QuotaResource.GPU_MEMORY_MIB
                && q.limit().isPresent()));
        assertEquals(OptionalLong.of(200), ledger.view().quotas().stream()
                .filter(q -> q.resource() == QuotaResource.GPU_CORES_PERCENT).findFirst().orElseThrow().limit());
    }

    @Test
    void aQuantityLongerThanKubernetesWritesIsSkipped() {
        feed.putQuota(quota("ns", "q", Map.of("limits.nvidia.com/gpumem", "1".repeat(100_000))));
        assertEquals(List.of("quota/bad_quantity"), skips.reasons());
        assertEquals(Quantities.MAX_QUOTA, (1L << 43) - 1);
    }

    @Test
    void aCardRegisteredByTwoNodesIsCountedOnceAndEachDeliveryOfTheOtherNodeIsReported() {
        List<String> items = new ArrayList<>();
        SkipReporter recording = (key, item) -> items.add(key.kind() + "/" + key.reason() + " " + item);
        LedgerFeed reporting = new LedgerFeed(ledger, DeviceProviders.load(), new Skips(recording));
        reporting.putNode(node("node-b", "[" + card("GPU-1", 0, 40960) + "," + card("GPU-2", 1, 40960) + "]"));
        reporting.putNode(node("node-a", "[" + card("GPU-1", 0, 40960) + "]"));
        reporting.putPod(pod("ml", "p", "node-b", "GPU-1,NVIDIA,1000,10:;", "c").build());

        AllocationView view = ledger.view();
        assertEquals(List.of("node-a/GPU-1", "node-b/GPU-2"),
                view.cards().stream().map(c -> c.node() + "/" + c.card().uuid()).toList());
        assertEquals(1000, view.cards().getFirst().allocatedMemoryMib());
        assertEquals(List.of("node_annotation/duplicate_uuid node-b: card GPU-1 is registered by node-a too, which "
                + "keeps it (first node by name)"), items);
    }

    @Test
    void theIssuesPodIsSkippedAloneAndTheOtherPodsStillCount() {
        feed.putNode(node("n1", "[" + card("GPU-a", 0, 40960) + "]"));
        feed.putPod(pod("ml", "good", "n1", "GPU-a,NVIDIA,1000,10:;", "c").build());
        feed.putPod(pod("evil", "blind", "n1", "GPU-a,NVIDIA,9000000000000,10:;", "c").build());
        feed.putPod(pod("evil", "cores", "n1", "GPU-a,NVIDIA,1,4611686018427387904:;", "c").build());

        AllocationView.CardAllocation card = ledger.view().cards().getFirst();
        assertEquals(List.of(1000L, 10L, 1), List.of(card.allocatedMemoryMib(), card.allocatedCores(),
                card.sharedContainers()));
        // The two pods stay in the ledger without the share that did not decode, so they hold nothing of the card.
        assertEquals(List.of("nvidia_pod/number_overflow", "nvidia_pod/number_overflow"), skips.reasons());
    }

    @Test
    void aNodeWhoseCardsComeFromItsCapacityIsReadByItsVendorsProvider() {
        feed.putNode(new io.fabric8.kubernetes.api.model.NodeBuilder().withNewMetadata().withName("mlu-1")
                .addToLabels("kubernetes.io/os", "linux").endMetadata()
                .withNewStatus().addToCapacity("cambricon.com/mlu.smlu.vcore", new io.fabric8.kubernetes.api.model
                        .Quantity("200"))
                .addToCapacity("cambricon.com/mlu.smlu.vmemory", new io.fabric8.kubernetes.api.model.Quantity("96"))
                .addToCapacity("cpu", new io.fabric8.kubernetes.api.model.Quantity("64")).endStatus().build());
        feed.putPod(pod("ml", "mlu", "mlu-1", null, "c").editMetadata()
                .addToAnnotations("hami.io/cambricon-mlu-devices-allocated", "mlu-1-cambricon-mlu-1,MLU,2048,10:;")
                .endMetadata().build());

        List<AllocationView.CardAllocation> cards = ledger.view().cards();
        assertEquals(List.of("mlu-1-cambricon-mlu-0", "mlu-1-cambricon-mlu-1"),
                cards.stream().map(card -> card.card().uuid()).toList());
        assertEquals(List.of("MLU", "MLU"), cards.stream().map(AllocationView.CardAllocation::backend).toList());
        assertEquals(List.of(12288L, 12288L), cards.stream().map(card -> card.card().memoryMib()).toList());
        assertEquals(List.of(0L, 2048L), cards.stream().map(AllocationView.CardAllocation::allocatedMemoryMib)
                .toList());
        assertEquals(List.of(), skips.reasons());
    }

    @Test
    void providersProblemsAreCountedUnderTheirVendorAndAWithdrawnRegistrationForgetsTheNode() {
        feed.putNode(node("n1", "[" + card("GPU-a", 0, 40960) + "]"));
        var dcu = new io.fabric8.kubernetes.api.model.NodeBuilder().withNewMetadata().withName("dcu-1")
                .addToAnnotations("hami.io/node-dcu-register", "DCU-0,4,65520,100,K100_AI,0,true:DCU-1,4,x,100,K,0,true:")
                .endMetadata().build();
        feed.putNode(dcu);
        assertEquals(List.of("dcu-1", "n1"), ledger.view().cards().stream()
                .map(AllocationView.CardAllocation::node).toList());
        assertEquals(List.of("hygon_node/not_a_number"), skips.reasons());

        dcu.getMetadata().getAnnotations().clear();
        feed.putNode(dcu);
        assertEquals(List.of("n1"), ledger.view().cards().stream().map(AllocationView.CardAllocation::node).toList());
    }
}
