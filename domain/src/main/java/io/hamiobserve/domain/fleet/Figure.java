package io.hamiobserve.domain.fleet;

import java.util.Collection;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.DoubleUnaryOperator;

/**
 * One number read from the metrics, or the reason there is none. A missing series is never
 * silently a zero: arithmetic on a missing figure stays missing (with the first reason), and
 * a total says how many parts it lacks ({@link Total}).
 */
public sealed interface Figure permits Figure.Known, Figure.Missing {

    static Figure of(double value) {
        return new Known(value);
    }

    static Figure missing(Absence why) {
        return new Missing(why);
    }

    /** A figure from a reading that may be NaN (Prometheus's "no value"), with the reason when it is. */
    static Figure ofNullable(Double value, Absence why) {
        return value == null || value.isNaN() ? new Missing(why) : new Known(value);
    }

    /** The value, when there is one. */
    OptionalDouble asOptional();

    default boolean isKnown() {
        return this instanceof Known;
    }

    /** The value; callers check {@link #isKnown()} first. */
    default double orElseThrow() {
        return asOptional().orElseThrow(() -> new IllegalStateException("figure is missing: " + this));
    }

    default Figure map(DoubleUnaryOperator operator) {
        return this instanceof Known known ? new Known(operator.applyAsDouble(known.value)) : this;
    }

    default Figure plus(Figure other) {
        if (this instanceof Missing) {
            return this;
        }
        return other instanceof Known known ? new Known(orElseThrow() + known.value) : other;
    }

    default Figure minus(Figure other) {
        if (this instanceof Missing) {
            return this;
        }
        return other instanceof Known known ? new Known(orElseThrow() - known.value) : other;
    }

    /** This as a fraction of {@code whole}; missing when either is missing or the whole is not positive. */
    default Figure fractionOf(Figure whole) {
        if (this instanceof Missing) {
            return this;
        }
        if (whole instanceof Missing) {
            return whole;
        }
        double total = whole.orElseThrow();
        return total > 0 ? new Known(orElseThrow() / total) : new Missing(Absence.NO_WHOLE);
    }

    /** The larger of two figures; a missing one does not count as a zero. */
    default Figure max(Figure other) {
        if (this instanceof Missing) {
            return other;
        }
        return other instanceof Known known ? new Known(Math.max(orElseThrow(), known.value)) : this;
    }

    /** A value that was read. */
    record Known(double value) implements Figure {
        public Known {
            if (Double.isNaN(value)) {
                throw new IllegalArgumentException("a known figure cannot be NaN; use Figure.missing");
            }
        }

        @Override
        public OptionalDouble asOptional() {
            return OptionalDouble.of(value);
        }
    }

    /** No value, and why. */
    record Missing(Absence why) implements Figure {
        public Missing {
            Objects.requireNonNull(why);
        }

        @Override
        public OptionalDouble asOptional() {
            return OptionalDouble.empty();
        }
    }

    /**
     * The sum of the parts that are known and how many are missing: a cluster total over 7 cards
     * of which 2 report nothing is "x over 5 cards, 2 without data", not x.
     */
    record Total(double sum, int known, int missing) {
        public static Total of(Collection<Figure> parts) {
            double sum = 0;
            int known = 0;
            int missing = 0;
            for (Figure part : parts) {
                if (part instanceof Known k) {
                    sum += k.value;
                    known++;
                } else {
                    missing++;
                }
            }
            return new Total(sum, known, missing);
        }

        /** The sum as a figure: missing when no part is known. */
        public Figure figure() {
            return known > 0 ? new Known(sum) : new Missing(Absence.NOT_REPORTED);
        }

        public boolean complete() {
            return missing == 0;
        }
    }
}
