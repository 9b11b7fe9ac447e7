package io.hamiobserve.vendors.protocol;

import io.hamiobserve.ports.spi.Problem;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JsonTest {
    private final Problems problems = new Problems("k");

    @Test
    void fieldsMatchTheirNameInAnyCaseAndTheLastMatchWinsAsInGo() {
        JsonNode object = Json.parse("{\"ID\":\"a\",\"Devmem\":1,\"devmem\":2,\"other\":3}", "v", problems).orElseThrow();
        assertEquals("a", Json.field(object, "id").stringValue());
        assertEquals(2, Json.field(object, "DEVMEM").intValue());
        assertNull(Json.field(object, "devcore"));
        assertEquals(List.of(), problems.list());
    }

    @Test
    void whatJacksonRefusesIsOneBadJsonProblem() {
        for (String bad : List.of("[", "{\"a\":}", "[".repeat(5000) + "]".repeat(5000), "1" + "0".repeat(2000), "")) {
            Problems found = new Problems("k");
            assertTrue(Json.parse(bad, "v", found).isEmpty(), bad);
            assertEquals(List.of("bad_json"), found.list().stream().map(Problem::reason).toList());
            assertEquals("k", found.list().getFirst().key());
        }
    }

    @Test
    void typedFieldsSayWhatIsWrong() {
        JsonNode object = Json.parse("{\"type\":5,\"health\":\"yes\",\"count\":1.5,\"text\":\"" + "x".repeat(300) + "\"}",
                "v", problems).orElseThrow();
        assertEquals("", Json.text(object, "type", "card", problems));
        assertEquals(false, Json.bool(object, "health", "card", problems));
        assertEquals(0, Json.number(object, "count", "card", 10, problems));
        Json.text(object, "text", "card", problems);
        assertEquals(List.of("bad_json", "bad_boolean", "not_a_number", "too_long"),
                problems.list().stream().map(Problem::reason).toList());
    }
}
