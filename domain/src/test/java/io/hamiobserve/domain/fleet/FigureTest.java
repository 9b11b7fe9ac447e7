package io.hamiobserve.domain.fleet;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FigureTest {
    private static final Figure NO_USAGE = Figure.missing(Absence.NO_USAGE_YET);

    @Test
    void arithmeticWithAMissingFigureStaysMissingWithItsReason() {
        assertEquals(NO_USAGE, Figure.of(5).plus(NO_USAGE));
        assertEquals(NO_USAGE, NO_USAGE.plus(Figure.of(5)));
        assertEquals(NO_USAGE, Figure.of(5).minus(NO_USAGE));
        assertEquals(NO_USAGE, NO_USAGE.fractionOf(Figure.of(10)));
        assertEquals(NO_USAGE, NO_USAGE.map(value -> 0));
        assertEquals(Figure.of(7), Figure.of(10).minus(Figure.of(3)));
    }

    @Test
    void aMissingFigureIsNotAZeroInAMaximum() {
        assertEquals(Figure.of(-3), Figure.of(-3).max(NO_USAGE));
        assertEquals(Figure.of(-3), NO_USAGE.max(Figure.of(-3)));
    }

    @Test
    void aFractionOfNothingIsMissingNotInfinite() {
        assertEquals(Figure.missing(Absence.NO_WHOLE), Figure.of(3).fractionOf(Figure.of(0)));
        assertEquals(0.25, Figure.of(1).fractionOf(Figure.of(4)).orElseThrow());
    }

    @Test
    void aTotalSaysHowManyPartsItLacks() {
        Figure.Total total = Figure.Total.of(List.of(Figure.of(1), NO_USAGE, Figure.of(2)));
        assertEquals(3, total.sum());
        assertEquals(2, total.known());
        assertEquals(1, total.missing());
        assertFalse(total.complete());
        assertFalse(Figure.Total.of(List.of(NO_USAGE)).figure().isKnown());
        assertTrue(Figure.Total.of(List.of(Figure.of(0))).figure().isKnown());
    }

    @Test
    void nanIsNeverAKnownFigure() {
        assertThrows(IllegalArgumentException.class, () -> Figure.of(Double.NaN));
        assertEquals(NO_USAGE, Figure.ofNullable(Double.NaN, Absence.NO_USAGE_YET));
        assertEquals(NO_USAGE, Figure.ofNullable(null, Absence.NO_USAGE_YET));
        assertThrows(IllegalStateException.class, NO_USAGE::orElseThrow);
    }
}
