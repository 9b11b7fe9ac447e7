package io.hamiobserve.adapters.k8s;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.spi.DeviceVendor;
import io.hamiobserve.ports.spi.DeviceVendor.Problem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NvidiaDeviceVendorTest {
    private final NvidiaDeviceVendor vendor = new NvidiaDeviceVendor();

    @Test
    void decodesTheJsonForm() {
        var decoded = vendor.decodeRegistration("""
                [{"id":"GPU-a","count":10,"devmem":81559,"devcore":100,"type":"NVIDIA H100 80GB HBM3",
                  "mode":"hami-core","health":true},
                 {"id":"GPU-b","index":1,"count":4,"devmem":40960,"devcore":100,"type":"NVIDIA A100","numa":1,
                  "mode":"mig","migProfiles":[{"name":"1g.10gb","memoryMB":9728}]}]""");
        assertEquals(List.of(), decoded.problems());
        assertEquals(List.of(
                new RegisteredCard("GPU-a", 0, 10, 81559, 100, "NVIDIA H100 80GB HBM3", 0, CardMode.HAMI_CORE, true),
                new RegisteredCard("GPU-b", 1, 4, 40960, 100, "NVIDIA A100", 1, CardMode.MIG, false)),
                decoded.value());
    }

    @Test
    void decodesTheLegacyFormWithSevenAndNineFields() {
        var decoded = vendor.decodeRegistration(
                "GPU-x,10,32768,100,NVIDIA-Tesla V100,0,true:GPU-y,5,16384,200,NVIDIA-Tesla T4,1,false,1,mps:");
        assertEquals(List.of(), decoded.problems());
        assertEquals(List.of(
                new RegisteredCard("GPU-x", 0, 10, 32768, 100, "NVIDIA-Tesla V100", 0, CardMode.HAMI_CORE, true),
                new RegisteredCard("GPU-y", 1, 5, 16384, 200, "NVIDIA-Tesla T4", 1, CardMode.MPS, false)),
                decoded.value());
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
    })
    void malformedCardsAreSkippedWithAReason(String value, String reason) {
        var decoded = vendor.decodeRegistration(value);
        assertTrue(decoded.problems().stream().map(Problem::reason).anyMatch(reason::equals),
                () -> "expected " + reason + " in " + decoded.problems());
    }

    @Test
    void aBadCardDoesNotCostTheOthers() {
        var json = vendor.decodeRegistration("[{\"id\":\"GPU-a\",\"devmem\":-1},{\"id\":\"GPU-b\",\"devmem\":8}]");
        assertEquals(List.of("GPU-b"), json.value().stream().map(RegisteredCard::uuid).toList());
        var legacy = vendor.decodeRegistration("GPU-a,1,2:GPU-b,10,32768,100,T,0,true:");
        assertEquals(List.of("GPU-b"), legacy.value().stream().map(RegisteredCard::uuid).toList());
        assertEquals(List.of("wrong_field_count"), legacy.problems().stream().map(Problem::reason).toList());
    }

    @Test
    void isFoundByTheServiceLoader() {
        List<String> names = ServiceLoader.load(DeviceVendor.class).stream()
                .map(provider -> provider.get().name()).toList();
        assertTrue(names.contains("nvidia"), names::toString);
        assertEquals(List.of("hami.io/vgpu-devices-allocated"), Vendors.load().allocatedKeys());
    }

    @Test
    void boundsAreCheckedInBothFormsAndTheLargestAllowedValuesDecode() {
        var json = vendor.decodeRegistration("[{\"id\":\"GPU-a\",\"devmem\":1073741824,\"devcore\":1073741824}]");
        var legacy = vendor.decodeRegistration("GPU-a,10,1073741824,1073741824,T,0,true:");
        assertEquals(List.of(), json.problems());
        assertEquals(List.of(), legacy.problems());
        assertEquals(Quantities.MAX_MEMORY_MIB, json.value().getFirst().memoryMib());
        assertEquals(Quantities.MAX_PERCENT, legacy.value().getFirst().cores());
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
            var decoded = vendor.decodeRegistration(value);
            assertEquals(InputLimits.MAX_CARDS_PER_NODE, decoded.value().size());
            assertEquals(List.of("too_many_cards"), decoded.problems().stream().map(Problem::reason).toList());
        }
    }

    @Test
    void textFieldsAndValuesBeyondTheirBoundsAreRefused() {
        assertEquals(List.of("too_long"), vendor.decodeRegistration("[" + " ".repeat(300_000) + "]").problems()
                .stream().map(Problem::reason).toList());
        assertEquals(List.of("too_long"), vendor.decodeRegistration("[{\"id\":\"GPU-a\",\"type\":\""
                + "x".repeat(300) + "\"}]").problems().stream().map(Problem::reason).toList());
        // Unicode and control characters in a type are label text: kept, escaped by the writer.
        assertEquals("NVIDIA \u00e9\"\n\u0000", vendor.decodeRegistration(
                "[{\"id\":\"GPU-a\",\"type\":\"NVIDIA \u00e9\\\"\\n\\u0000\"}]").value().getFirst().type());
    }
}
