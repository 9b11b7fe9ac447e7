package io.hamiobserve.adapters.cachefile;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fixed-seed run of {@link CacheFileFuzz} for the suite (a few seconds); the long run is
 * {@code bin/fuzz cachefile}. Every kind of damage the mutator makes is reached.
 */
class CacheFileFuzzTest {
    @Test
    void noByteSequenceEscapesTheReader() {
        int count = Integer.getInteger("cachefile.fuzz.iterations", 20_000);
        Map<String, Integer> outcomes = CacheFileFuzz.run(CacheFileFuzz.DEFAULT_SEED, count);
        assertTrue(outcomes.getOrDefault("ok", 0) > count / 10, outcomes.toString());
        for (String expected : List.of(Reasons.BAD_MAGIC, Reasons.UNKNOWN_SIZE, Reasons.UNKNOWN_VERSION,
                "problem:" + Reasons.SLOT_UNSETTLED, "problem:" + Reasons.BAD_UUID, "problem:" + Reasons.BAD_STATUS,
                "problem:" + Reasons.DEVICE_NUM_CLAMPED, "problem:" + Reasons.PROC_NUM_CLAMPED,
                "problem:" + Reasons.NUMBER_OVERFLOW)) {
            assertTrue(outcomes.containsKey(expected), "mutations reach " + expected + ": " + outcomes);
        }
    }
}
