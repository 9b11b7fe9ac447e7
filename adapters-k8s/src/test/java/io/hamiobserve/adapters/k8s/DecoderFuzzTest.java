package io.hamiobserve.adapters.k8s;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fixed-seed runs of {@link DecoderFuzz} for the suite, a few seconds each; long runs are
 * {@code bin/fuzz}. Each run must also reach the reasons its mutations are made to provoke, so a
 * fuzzer that stopped mutating would fail here.
 */
class DecoderFuzzTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "register   | 20000 | number_overflow not_a_number bad_json bad_uuid too_long too_many_cards wrong_field_count",
            "allocation | 20000 | number_overflow not_a_number negative_number bad_uuid too_many_devices wrong_field_count",
            "mig        | 20000 | bad_json number_overflow not_a_number bad_mig_allocation",
            "quota      | 20000 | bad_quantity number_overflow negative_number",
            "pending    | 20000 | bad_timestamp",
            "dump-yaml  | 1500  | bad_document not_a_number",
            "dump-json  | 1500  | bad_document not_a_number",
    })
    void nothingEscapesButASkipWithAReason(String target, long count, String reached) {
        Map<String, Long> outcomes = DecoderFuzz.run(target, DecoderFuzz.DEFAULT_SEED, count).counts();
        for (String reason : List.of(reached.split(" "))) {
            assertTrue(outcomes.containsKey(reason), target + " reaches " + reason + ": " + outcomes);
        }
        assertTrue(outcomes.getOrDefault("ok", 0L) > 0, target + " also decodes inputs whole: " + outcomes);
    }
}
