package io.hamiobserve.app.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;

/** The values the flags take that picocli does not convert itself, each refused with what was expected. */
public final class Converters {
    private Converters() {
    }

    /** {@code 500ms}, {@code 8s}, {@code 1m}, or a bare number of seconds; positive. */
    public static final class PositiveDuration implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String text = value.trim();
            // Java's own number syntax would take "7d" as the double 7 (and "1f", "0x1p3"): only
            // plain decimals before the unit, so a mistyped unit is refused, not read as seconds.
            if (!text.matches("[0-9]+(\\.[0-9]+)?(ms|s|m|h|d)?")) {
                throw new TypeConversionException("'" + value + "' is not a duration like 500ms, 8s, 1m, 2h or 1d");
            }
            try {
                Duration duration;
                if (text.endsWith("d")) {
                    duration = Duration.ofSeconds(Math.round(Double.parseDouble(text.substring(0, text.length() - 1))
                            * 86400));
                } else if (text.endsWith("ms")) {
                    duration = Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
                } else if (text.endsWith("s")) {
                    duration = Duration.ofMillis(Math.round(Double.parseDouble(text.substring(0, text.length() - 1))
                            * 1000));
                } else if (text.endsWith("h")) {
                    duration = Duration.ofSeconds(Math.round(Double.parseDouble(text.substring(0, text.length() - 1))
                            * 3600));
                } else if (text.endsWith("m")) {
                    duration = Duration.ofSeconds(Math.round(Double.parseDouble(text.substring(0, text.length() - 1))
                            * 60));
                } else {
                    duration = Duration.ofMillis(Math.round(Double.parseDouble(text) * 1000));
                }
                if (duration.isNegative() || duration.isZero()) {
                    throw new TypeConversionException("'" + value + "' is not positive");
                }
                return duration;
            } catch (NumberFormatException notDuration) {
                throw new TypeConversionException("'" + value + "' is not a duration like 500ms, 8s, 1m, 2h or 1d");
            }
        }
    }

    /** As {@link PositiveDuration}, and zero ({@code 0}, {@code 0s}, ...) for "none". */
    public static final class NonNegativeDuration implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return value.trim().matches("0+(\\.0+)?(ms|s|m|h|d)?") ? Duration.ZERO
                    : new PositiveDuration().convert(value);
        }
    }

    /** A whole number above zero. */
    public static final class PositiveCount implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            try {
                int count = Integer.parseInt(value.trim());
                if (count <= 0) {
                    throw new TypeConversionException("'" + value + "' is not positive");
                }
                return count;
            } catch (NumberFormatException notNumber) {
                throw new TypeConversionException("'" + value + "' is not a whole number");
            }
        }
    }
}
