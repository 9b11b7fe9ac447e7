package io.hamiobserve.demo;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A fixed-seed thousand of {@link ConsoleFuzz}'s random requests; long runs are {@code bin/fuzz console}. */
class ConsoleFuzzTest {
    @Test
    void randomRequestsGetNo5xxNoUnescapedReflectionAndNoHang() throws Exception {
        ConsoleFuzz.Outcome outcome = ConsoleFuzz.run(ConsoleFuzz.DEFAULT_SEED, 1_000);
        System.out.println(outcome.summary(ConsoleFuzz.DEFAULT_SEED));
        assertEquals(0, outcome.serverErrors(), outcome.toString());
        assertEquals(0, outcome.reflections(), outcome.toString());
        assertEquals(0, outcome.hangs(), outcome.toString());
        assertTrue(outcome.byStatus().getOrDefault(200, 0L) > 300, "most requests reach a page: " + outcome);
        assertTrue(outcome.byStatus().getOrDefault(400, 0L) > 50, "and many are refused: " + outcome);
    }
}
