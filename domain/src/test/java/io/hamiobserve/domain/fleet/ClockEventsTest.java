package io.hamiobserve.domain.fleet;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The clock-event (throttle) mask decoded with nvml.h's bit values. */
class ClockEventsTest {
    @Test
    void theBitsAreNvmlsValues() {
        // nvml.h: nvmlClocksEventReason* (the same bits as the older nvmlClocksThrottleReason*).
        assertEquals(List.of(0x1L, 0x2L, 0x4L, 0x8L, 0x10L, 0x20L, 0x40L, 0x80L, 0x100L),
                java.util.Arrays.stream(ClockEvents.values()).map(ClockEvents::bit).toList());
    }

    @Test
    void aMaskIsDecodedIntoWordsAndOnlyHeatOrPowerIsThrottling() {
        assertEquals("none", ClockEvents.describe(0));
        assertEquals("software thermal slowdown, hardware thermal slowdown", ClockEvents.describe(0x60));
        assertEquals("idle, software power cap", ClockEvents.describe(0x5));
        assertFalse(ClockEvents.throttling(0x1 | 0x2 | 0x10 | 0x100), "idle, settings and sync boost hold no one back");
        assertTrue(ClockEvents.throttling(0x4));
        assertTrue(ClockEvents.throttling(0x8));
        assertTrue(ClockEvents.throttling(0x80));
        // Bits nvml.h does not name (a newer driver's) are left out, not misread.
        assertEquals("idle", ClockEvents.describe(0x1 | 0x4000));
    }

    @Test
    void dcgmsFigureIsShownWhereKnownElseTheNodeRoles() {
        assertEquals(new Sourced(Figure.of(70), Sourced.Source.DCGM), Sourced.prefer(Figure.of(70), Figure.of(60)));
        assertEquals(new Sourced(Figure.of(60), Sourced.Source.NVML),
                Sourced.prefer(Figure.missing(Absence.NOT_SUPPORTED), Figure.of(60)));
        Sourced none = Sourced.prefer(Figure.missing(Absence.NOT_REPORTED), Figure.missing(Absence.NO_USAGE_EXPORTER));
        assertEquals(Sourced.Source.NONE, none.source());
        assertEquals(Figure.missing(Absence.NO_USAGE_EXPORTER), none.figure(), "the node role's reason, never 0");
    }
}
