package io.hamiobserve.domain;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** First moments kept between readings, forgotten with the thing, never in the future. */
class FirstSeenTest {
    @Test
    void keepsTheFirstMomentWhileTheThingStays() {
        FirstSeen<String> seen = new FirstSeen<>();
        assertEquals(Map.of("a", 1_000L), seen.observe(List.of("a"), 1_000));
        assertEquals(Map.of("a", 1_000L, "b", 5_000L), seen.observe(List.of("a", "b"), 5_000));
        assertEquals(Map.of("b", 5_000L), seen.observe(List.of("b"), 9_000));
        // Gone once, new again: the count restarts.
        assertEquals(Map.of("a", 12_000L, "b", 5_000L), seen.observe(List.of("a", "b"), 12_000));
    }

    @Test
    void aClockThatStepsBackNeverMakesAnAgeBelowZero() {
        FirstSeen<String> seen = new FirstSeen<>();
        seen.observe(List.of("a"), 10_000);
        assertEquals(Map.of("a", 4_000L), seen.observe(List.of("a"), 4_000));
        assertEquals(Map.of("a", 4_000L), seen.observe(List.of("a"), 20_000));
    }

    @Test
    void anEmptyReadingForgetsEverything() {
        FirstSeen<String> seen = new FirstSeen<>();
        seen.observe(List.of("a", "b"), 1);
        assertEquals(Map.of(), seen.observe(List.of(), 2));
        assertEquals(Map.of("a", 3L), seen.observe(List.of("a"), 3));
    }
}
