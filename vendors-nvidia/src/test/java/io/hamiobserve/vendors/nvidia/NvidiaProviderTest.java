package io.hamiobserve.vendors.nvidia;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.DeviceKeys;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.ports.spi.PodAllocation;
import io.hamiobserve.ports.spi.PodDevices;
import io.hamiobserve.ports.spi.Problem;
import io.hamiobserve.vendors.protocol.InputLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * NVIDIA's decoding as the Kubernetes adapter had it (register annotation, allocation, MIG): the
 * same cases, the same results and reasons, through the provider.
 */
class NvidiaProviderTest {
    private final NvidiaProvider provider = new NvidiaProvider();

    @Test
    void declaresWhatItReads() {
        assertEquals("nvidia", provider.name());
        assertEquals(new DeviceKeys(Set.of(NvidiaProvider.REGISTER), Set.of(), Set.of(),
                Set.of(NvidiaProvider.ALLOCATED, NvidiaProvider.MIG_ALLOCATIONS)), provider.keys());
    }

    @Test
    void decodesTheJsonForm() {
        NodeDevices decoded = node("""
                [{"id":"GPU-a","count":10,"devmem":81559,"devcore":100,"type":"NVIDIA H100 80GB HBM3",
                  "mode":"hami-core","health":true},
                 {"id":"GPU-b","index":1,"count":4,"devmem":40960,"devcore":100,"type":"NVIDIA A100","numa":1,
                  "mode":"mig","migProfiles":[{"name":"1g.10gb","memoryMB":9728}]}]""");
        assertEquals(List.of(), decoded.problems());
        assertTrue(decoded.present());
        assertEquals(List.of(
                card(new RegisteredCard("GPU-a", 0, 10, 81559, 100, "NVIDIA H100 80GB HBM3", 0, CardMode.HAMI_CORE, true)),
                card(new RegisteredCard("GPU-b", 1, 4, 40960, 100, "NVIDIA A100", 1, CardMode.MIG, false))),
                decoded.cards());
    }

    @Test
    void decodesTheLegacyFormWithSevenAndNineFields() {
        NodeDevices decoded = node(
                "GPU-x,10,32768,100,NVIDIA-Tesla V100,0,true:GPU-y,5,16384,200,NVIDIA-Tesla T4,1,false,1,mps:");
        assertEquals(List.of(), decoded.problems());
        assertEquals(List.of(
                new RegisteredCard("GPU-x", 0, 10, 32768, 100, "NVIDIA-Tesla V100", 0, CardMode.HAMI_CORE, true),
                new RegisteredCard("GPU-y", 1, 5, 16384, 200, "NVIDIA-Tesla T4", 1, CardMode.MPS, false)),
                registered(decoded));
    }

    @Test
    void aNodeWithoutTheAnnotationHasNoNvidiaCardsAndOneWithAnEmptyListHasNone() {
        assertEquals(NodeDevices.absent(), provider.decodeNode(NodeView.annotated("n", Map.of("other", "x"))));
        NodeDevices empty = node("[]");
        assertTrue(empty.present());
        assertEquals(List.of(), empty.cards());
        assertEquals(List.of(), empty.problems());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "[{\"id\":\"GPU-a\",\"devmem\":1}                           | bad_json",
            "{\"id\":\"GPU-a\"}                                         | bad_json",
            "[{\"count\":3}]                                            | missing_uuid",
            "[{\"id\":\"GPU-a\",\"devmem\":\"lots\"}]                   | not_a_number",
            "[{\"id\":\"GPU-a\",\"devmem\":-1}]                         | negative_number",
            "[{\"id\":\"GPU-a\",\"devmem\":99999999999999999999999}]    | number_overflow",
            "[{\"id\":\"GPU-a\",\"count\":3000000000}]                  | number_overflow",
            "[{\"id\":\"GPU-a\",\"mode\":\"vulkan\"}]                   | unknown_mode",
            "[{\"id\":\"GPU-a\",\"health\":\"yes\"}]                    | bad_boolean",
            "[{\"id\":\"GPU-a\"},{\"id\":\"GPU-a\"}]                    | duplicate_uuid",
            "GPU-x,10,32768,100,T,0                                     | wrong_field_count",
            "GPU-x,10,32768,100,T,0,true,0                              | wrong_field_count",
            "GPU-x,ten,32768,100,T,0,true                               | not_a_number",
            "GPU-x,10,-5,100,T,0,true                                   | negative_number",
            "GPU-x,10,99999999999999999999,100,T,0,true                 | number_overflow",
            "GPU-x,10,1,100,T,0,maybe                                   | bad_boolean",
            "',10,1,100,T,0,true'                                       | missing_uuid",
            "'   '                                                      | empty_value",
            "[{\"id\":\"GPU-a\",\"devmem\":9000000000000}]            | number_overflow",
            "[{\"id\":\"GPU-a\",\"devcore\":4611686018427387904}]     | number_overflow",
            "[{\"id\":\"GPU-a\",\"devmem\":1e3}]                      | not_a_number",
            "[{\"id\":\"GPU-a\",\"devmem\":40960.0}]                  | not_a_number",
            "[{\"id\":\"GPU-a\",\"devmem\":-99999999999999999999999}] | negative_number",
            "[{\"id\":\"GPU a\"}]                                     | bad_uuid",
            "[{\"id\":\"GPU-\\u0000\"}]                              | bad_uuid",
            "GPU-x,10,9000000000000,100,T,0,true                        | number_overflow",
            "GPU-x,10,1,4611686018427387904,T,0,true                    | number_overflow",
            "GPU-ü,10,1,100,T,0,true                                    | bad_uuid",
            "GPU-x,10,1,100,T,0,true,0,vulkan                           | unknown_mode",
    })
    void malformedCardsAreSkippedWithAReason(String value, String reason) {
        NodeDevices decoded = node(value);
        assertTrue(decoded.present());
        assertTrue(decoded.problems().stream().map(Problem::reason).anyMatch(reason::equals),
                () -> "expected " + reason + " in " + decoded.problems());
        assertTrue(decoded.problems().stream().map(Problem::key).allMatch(NvidiaProvider.REGISTER::equals));
    }

    @Test
    void aBadCardDoesNotCostTheOthers() {
        NodeDevices json = node("[{\"id\":\"GPU-a\",\"devmem\":-1},{\"id\":\"GPU-b\",\"devmem\":8}]");
        assertEquals(List.of("GPU-b"), registered(json).stream().map(RegisteredCard::uuid).toList());
        NodeDevices legacy = node("GPU-a,1,2:GPU-b,10,32768,100,T,0,true:");
        assertEquals(List.of("GPU-b"), registered(legacy).stream().map(RegisteredCard::uuid).toList());
        assertEquals(List.of("wrong_field_count"), reasons(legacy.problems()));
    }

    @Test
    void boundsAreCheckedInBothFormsAndTheLargestAllowedValuesDecode() {
        NodeDevices json = node("[{\"id\":\"GPU-a\",\"devmem\":1073741824,\"devcore\":1073741824}]");
        NodeDevices legacy = node("GPU-a,10,1073741824,1073741824,T,0,true:");
        assertEquals(List.of(), json.problems());
        assertEquals(List.of(), legacy.problems());
        assertEquals(Quantities.MAX_MEMORY_MIB, registered(json).getFirst().memoryMib());
        assertEquals(Quantities.MAX_PERCENT, registered(legacy).getFirst().cores());
    }

    @Test
    void aNodeListingMoreCardsThanAnyNodeHoldsIsReadUpToTheBound() {
        StringBuilder json = new StringBuilder("[");
        StringBuilder legacy = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            json.append(i == 0 ? "" : ",").append("{\"id\":\"GPU-").append(i).append("\"}");
            legacy.append("GPU-").append(i).append(",1,1,1,T,0,true:");
        }
        for (String value : List.of(json.append("]").toString(), legacy.toString())) {
            NodeDevices decoded = node(value);
            assertEquals(InputLimits.MAX_CARDS_PER_NODE, decoded.cards().size());
            assertEquals(List.of("too_many_cards"), reasons(decoded.problems()));
        }
    }

    @Test
    void textFieldsAndValuesBeyondTheirBoundsAreRefused() {
        assertEquals(List.of("too_long"), reasons(node("[" + " ".repeat(300_000) + "]").problems()));
        assertEquals(List.of("too_long"), reasons(node("[{\"id\":\"GPU-a\",\"type\":\"" + "x".repeat(300) + "\"}]")
                .problems()));
        // Unicode and control characters in a type are label text: kept, escaped by the writer.
        assertEquals("NVIDIA \u00e9\"\n\u0000", registered(node(
                "[{\"id\":\"GPU-a\",\"type\":\"NVIDIA \u00e9\\\"\\n\\u0000\"}]")).getFirst().type());
    }

    // Allocation annotation: the decoder's cases.

    @Test
    void keepsContainerPositionsIncludingEmptyEntries() {
        PodDevices decoded = pod("GPU-1,NVIDIA,500,5:GPU-2,NVIDIA,600,6:;;GPU-1,NVIDIA,100,10:;");
        assertEquals(List.of(), decoded.problems());
        assertEquals(List.of(new PodAllocation(NvidiaProvider.ALLOCATED, "NVIDIA", List.of(
                List.of(new DeviceShare("GPU-1", "NVIDIA", 500, 5), new DeviceShare("GPU-2", "NVIDIA", 600, 6)),
                List.of(),
                List.of(new DeviceShare("GPU-1", "NVIDIA", 100, 10))))), decoded.allocations());
    }

    @Test
    void aValueWithoutTheFinalSemicolonStillCountsItsLastContainer() {
        assertEquals(2, containers(pod(";GPU-1,NVIDIA,1,1:")).size());
        assertEquals(0, containers(pod("")).size());
        assertEquals(1, containers(pod(";")).size());
        assertEquals(PodDevices.none(), provider.decodePod(Map.of("other", "GPU-1,NVIDIA,1,1:;")));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "GPU-1,NVIDIA,500:GPU-2,NVIDIA,1,1:;              | wrong_field_count",
            "GPU-1,NVIDIA,abc,5:GPU-2,NVIDIA,1,1:;            | not_a_number",
            "GPU-1,NVIDIA,-500,5:GPU-2,NVIDIA,1,1:;           | negative_number",
            "GPU-1,NVIDIA,500,99999999999999999999:GPU-2,NVIDIA,1,1:; | number_overflow",
            "',NVIDIA,500,5:GPU-2,NVIDIA,1,1:;'               | missing_uuid",
            "GPU-a,NVIDIA,9000000000000,10:GPU-2,NVIDIA,1,1:;  | number_overflow",
            "GPU-a,NVIDIA,1073741825,10:GPU-2,NVIDIA,1,1:;     | number_overflow",
            "GPU-a,NVIDIA,1,4611686018427387904:GPU-2,NVIDIA,1,1:; | number_overflow",
            "GPU-a,NVIDIA,1e3,10:GPU-2,NVIDIA,1,1:;            | not_a_number",
            "GPU-a,NVIDIA,NaN,10:GPU-2,NVIDIA,1,1:;            | not_a_number",
            "GPU-a,NVIDIA,１２,10:GPU-2,NVIDIA,1,1:;            | not_a_number",
            "GPU-a,NVIDIA,0x10,10:GPU-2,NVIDIA,1,1:;           | not_a_number",
            "GPU\u0000a,NVIDIA,1,1:GPU-2,NVIDIA,1,1:;         | bad_uuid",
            "GPU-ä,NVIDIA,1,1:GPU-2,NVIDIA,1,1:;               | bad_uuid",
    })
    void aMalformedDeviceIsDroppedAndTheRestKept(String value, String reason) {
        PodDevices decoded = pod(value.replace("\\u0000", "\u0000"));
        assertEquals(List.of(reason), reasons(decoded.problems()));
        assertEquals(List.of(List.of(new DeviceShare("GPU-2", "NVIDIA", 1, 1))), containers(decoded));
    }

    @Test
    void theLargestSharesTheDomainAllowsAreDecoded() {
        PodDevices decoded = pod("GPU-a,NVIDIA,1073741824,1073741824:;");
        assertEquals(List.of(), decoded.problems());
        assertEquals(List.of(List.of(new DeviceShare("GPU-a", "NVIDIA", Quantities.MAX_MEMORY_MIB,
                Quantities.MAX_PERCENT))), containers(decoded));
    }

    @Test
    void hugeCountsOfEntriesAreCutAtTheirBounds() {
        PodDevices devices = pod("GPU-a,N,1,1:".repeat(10_000) + ";");
        assertEquals(List.of("too_many_devices"), reasons(devices.problems()));
        assertEquals(InputLimits.MAX_DEVICES_PER_CONTAINER, containers(devices).getFirst().size());

        PodDevices many = pod("GPU-a,N,1,1:;".repeat(5_000));
        assertEquals(List.of("too_many_containers"), reasons(many.problems()));
        assertEquals(InputLimits.MAX_CONTAINERS, containers(many).size());
    }

    @Test
    void aValueLongerThanAnApiServerStoresIsRefusedWhole() {
        PodDevices decoded = pod("GPU-a,N,1,1:".repeat(30_000) + ";");
        assertEquals(List.of("too_long"), reasons(decoded.problems()));
        assertEquals(List.of(), containers(decoded));
    }

    // MIG allocations.

    @Test
    void migAllocationsAreDecodedAndBadEntriesSkipped() {
        PodDevices decoded = provider.decodePod(Map.of(NvidiaProvider.ALLOCATED, "GPU-1,NVIDIA,9728,0:;",
                NvidiaProvider.MIG_ALLOCATIONS, """
                        [{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-1","profile":"1g.10gb",
                          "placement":{"start":2,"size":1},"migUUID":"MIG-7","gpuInstanceID":3,"computeInstanceID":0},
                         {"containerIndex":-1,"gpuUUID":"GPU-1"},
                         {"containerIndex":0,"gpuUUID":"GPU-1","gpuInstanceID":99999999999},
                         {"containerIndex":0,"gpuUUID":"GPU-1","deviceIndex":1.5},
                         {"containerIndex":0,"gpuUUID":"GPU 1"},
                         {"containerIndex":0},
                         7]"""));
        assertEquals(List.of(new MigInstance(0, 0, "GPU-1", "1g.10gb", 2, 1, "MIG-7", 3, 0)), decoded.migInstances());
        assertEquals(List.of("negative_number", "number_overflow", "not_a_number", "bad_uuid", "bad_mig_allocation",
                "bad_mig_allocation"), reasons(decoded.problems()));
        assertTrue(decoded.problems().stream().map(Problem::key).allMatch(NvidiaProvider.MIG_ALLOCATIONS::equals));
        assertEquals(List.of(List.of(new DeviceShare("GPU-1", "NVIDIA", 9728, 0))), containers(decoded));
    }

    @Test
    void migAllocationsThatAreNotJsonAreReportedAndABarePlacementIsItsStart() {
        PodDevices bad = provider.decodePod(Map.of(NvidiaProvider.MIG_ALLOCATIONS, "[{"));
        assertEquals(List.of(), bad.migInstances());
        assertEquals(List.of("bad_json"), reasons(bad.problems()));
        PodDevices old = provider.decodePod(Map.of(NvidiaProvider.MIG_ALLOCATIONS,
                "[{\"containerIndex\":1,\"gpuUUID\":\"GPU-2\",\"placement\":4}]"));
        assertEquals(List.of(new MigInstance(1, 0, "GPU-2", "", 4, 0, "", 0, 0)), old.migInstances());
        assertFalse(old.migInstances().getFirst().ready());
    }

    private NodeDevices node(String register) {
        return provider.decodeNode(NodeView.annotated("node-a", Map.of(NvidiaProvider.REGISTER, register)));
    }

    private PodDevices pod(String allocated) {
        return provider.decodePod(Map.of(NvidiaProvider.ALLOCATED, allocated));
    }

    private static VendorCard card(RegisteredCard card) {
        return new VendorCard(card, "NVIDIA", DeviceUnits.MIB_AND_PERCENT);
    }

    private static List<RegisteredCard> registered(NodeDevices devices) {
        return devices.cards().stream().map(VendorCard::card).toList();
    }

    private static List<List<DeviceShare>> containers(PodDevices devices) {
        return devices.allocations().isEmpty() ? List.of() : devices.allocations().getFirst().containers();
    }

    private static List<String> reasons(List<Problem> problems) {
        return problems.stream().map(Problem::reason).toList();
    }
}
