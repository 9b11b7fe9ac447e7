package io.hamiobserve.vendors.protocol;

import io.hamiobserve.ports.spi.Problem;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ResourceQuantityTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "1, 1", "' 16 ', 16", "2E, 2000000000000000000", "1e0, 1", "1E+2, 100", "2E, 2000000000000000000", "1e0, 1", "1E+2, 100", "+8, 8", "1k, 1000", "2Ki, 2048", "1Mi, 1048576", "1e3, 1000", "1E3, 1000",
            "1.0, 1", "1.5k, 1500", "0.5Ki, 512", "2000m, 2", "0, 0", "-0, 0", "0e999999999999, 0",
    })
    void wholeQuantitiesReadAsKubernetesWritesThem(String text, long value) {
        Problems problems = new Problems("r");
        assertEquals(OptionalLong.of(value), ResourceQuantity.whole(text, "r", Long.MAX_VALUE, problems));
        assertEquals(List.of(), problems.list());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "1500m, not_a_number", "0.5, not_a_number", "12e-1k, not_a_number", "1e-1, not_a_number", "7e-777777779, not_a_number",
            "abc, not_a_number", "1Ki5, not_a_number", "1KiB, not_a_number", "0x10, not_a_number", "１２, not_a_number",
            "'', not_a_number", "-1, negative_number", "-1k, negative_number", "1E400, number_overflow",
            "8Ei, number_overflow", "9223372036854775808, number_overflow", "1e777777779, number_overflow",
            "11111111111111111111111111111111111111111111111111111111111111111, too_long",
    })
    void anythingElseIsAProblemWithItsReason(String text, String reason) {
        Problems problems = new Problems("r");
        assertEquals(OptionalLong.empty(), ResourceQuantity.whole(text, "r", Long.MAX_VALUE, problems));
        assertEquals(List.of(reason), problems.list().stream().map(Problem::reason).toList());
    }

    @ParameterizedTest(name = "{0} within {1}")
    @CsvSource({"1024, 1024, ", "1025, 1024, number_overflow", "1Ki, 1024, ", "1.001Ki, 1024, number_overflow"})
    void theBoundIsTheCallers(String text, long max, String reason) {
        Problems problems = new Problems("r");
        ResourceQuantity.whole(text, "r", max, problems);
        assertEquals(reason == null ? List.of() : List.of(reason), problems.list().stream().map(Problem::reason).toList());
    }
}
