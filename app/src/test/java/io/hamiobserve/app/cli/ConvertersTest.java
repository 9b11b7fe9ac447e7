package io.hamiobserve.app.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The flags' durations: every unit read as written, and nothing Java's number syntax alone accepts. */
class ConvertersTest {
    private final Converters.PositiveDuration duration = new Converters.PositiveDuration();

    @Test
    void eachUnitIsReadAsWritten() {
        assertEquals(Duration.ofMillis(500), duration.convert("500ms"));
        assertEquals(Duration.ofSeconds(8), duration.convert("8s"));
        assertEquals(Duration.ofSeconds(90), duration.convert("1.5m"));
        assertEquals(Duration.ofHours(2), duration.convert(" 2h "));
        assertEquals(Duration.ofDays(7), duration.convert("7d"), "a day is not a double's suffix");
        assertEquals(Duration.ofSeconds(3), duration.convert("3"));
    }

    @Test
    void whatIsNotADurationIsRefusedSayingSo() {
        for (String text : new String[] {"1f", "7D", "0x1p3", "1e3s", "NaN", "Infinity", "-1s", "1w", "", "s",
                "99999999999999999999ms"}) {
            TypeConversionException refused = assertThrows(TypeConversionException.class, () -> duration.convert(text),
                    text);
            assertTrue(refused.getMessage().contains("is not a duration like 500ms, 8s, 1m, 2h or 1d"), text);
        }
        assertTrue(assertThrows(TypeConversionException.class, () -> duration.convert("0s")).getMessage()
                .contains("is not positive"));
    }
}
