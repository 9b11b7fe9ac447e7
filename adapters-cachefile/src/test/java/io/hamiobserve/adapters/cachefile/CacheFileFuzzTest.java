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
        for (String expected : List.of("bad_magic", "unknown_size", "unknown_version", "problem:slot_unsettled",
                "problem:bad_uuid", "problem:bad_status", "problem:device_num_clamped", "problem:proc_num_clamped",
                "problem:number_overflow")) {
            assertTrue(outcomes.containsKey(expected), "mutations reach " + expected + ": " + outcomes);
        }
    }
}
