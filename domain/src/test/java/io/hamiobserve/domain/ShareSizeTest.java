package io.hamiobserve.domain;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A share blocks the larger of its memory and core fractions of a card, within [0, 1]. */
class ShareSizeTest {
    @ParameterizedTest(name = "{0} memory, {1} cores -> {2}")
    @CsvSource({
            "0.25, 0.5, 0.5",    // the example: half a card
            "0.75, 0.1, 0.75",
            "0, 0, 0",
            "1, 1, 1",
            "NaN, 0.3, 0.3",     // a card registering no memory counts by its cores
            "0.4, NaN, 0.4",
            "NaN, NaN, 0",
            "3, 0.2, 1",         // more than the card (a crafted share): a card at most
            "-1, 0.2, 0.2",      // a negative figure is no fraction
            "Infinity, 0, 1"})
    void largerFraction(double memory, double cores, double cards) {
        assertEquals(cards, ShareSize.cards(memory, cores), 1e-12);
    }

    @ParameterizedTest(name = "{0} of {1} MiB, {2} % -> {3}")
    @CsvSource({
            "20480, 81920, 50, 0.5",
            "40960, 81920, 10, 0.5",
            "1024, 0, 30, 0.3",     // no memory registered
            "0, 0, 0, 0"})
    void ofMibAndPercent(long memoryMib, long cardMib, double percent, double cards) {
        assertEquals(cards, ShareSize.cards(memoryMib, cardMib, percent), 1e-12);
    }
}
