package io.hamiobserve.demo;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Fixed-seed runs of {@link ExpositionFuzz}, a few seconds each; long runs are {@code bin/fuzz}. */
class ExpositionFuzzTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "allocation-exposition, 40, 5",
            "usage-exposition, 800, 80",
    })
    void hostileInputsAlwaysRenderAValidExposition(String target, long count, int promtoolEvery) {
        int checked = ExpositionFuzz.run(target, ExpositionFuzz.DEFAULT_SEED, count, promtoolEvery);
        assertEquals((count + promtoolEvery - 1) / promtoolEvery, checked);
    }
}
