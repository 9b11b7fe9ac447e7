package io.hamiobserve.vendors.protocol;

import tools.jackson.databind.JsonNode;

import java.math.BigInteger;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Strict reading of the unsigned decimal numbers HAMi writes, as text or as JSON numbers: where
 * each quantity enters it is checked against its bound (see
 * {@link io.hamiobserve.domain.Quantities}). Each failure has its own reason, so the skip counter
 * tells overflow ({@code number_overflow}) from a sign ({@code negative_number}) from garbage,
 * fractions and exponents ({@code not_a_number}).
 */
public final class Numbers {
    private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");

    private Numbers() {
    }

    /** An integer in {@code [0, max]} written as decimal text ({@code +} allowed, no exponent, no fraction). */
    public static OptionalLong text(String text, String field, long max, Problems problems) {
        String trimmed = text.trim();
        if (!INTEGER.matcher(trimmed).matches()) {
            problems.add("not_a_number", field + " is not an integer: '" + text + "'");
            return OptionalLong.empty();
        }
        long value;
        try {
            value = Long.parseLong(trimmed);
        } catch (NumberFormatException tooLong) {
            problems.add(trimmed.startsWith("-") ? "negative_number" : "number_overflow",
                    field + " out of range: " + trimmed);
            return OptionalLong.empty();
        }
        return bounded(value, field, max, problems);
    }

    /**
     * An integer in {@code [0, max]} given as a JSON number; {@code null} or absent is 0. A number
     * with a fraction or an exponent ({@code 1.0}, {@code 1e3}) is not an integer here.
     */
    public static OptionalLong json(JsonNode node, String field, long max, Problems problems) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return OptionalLong.of(0);
        }
        if (!node.isIntegralNumber()) {
            problems.add("not_a_number", field + " is not an integer: " + node);
            return OptionalLong.empty();
        }
        if (!node.canConvertToLong()) {
            problems.add(node.bigIntegerValue().signum() < 0 ? "negative_number" : "number_overflow",
                    field + " out of range: " + node);
            return OptionalLong.empty();
        }
        return bounded(node.longValue(), field, max, problems);
    }

    /** {@code value} when it is in {@code [0, max]}; a problem otherwise. */
    public static OptionalLong bounded(long value, String field, long max, Problems problems) {
        if (value < 0) {
            problems.add("negative_number", field + " is negative: " + value);
            return OptionalLong.empty();
        }
        if (value > max) {
            problems.add("number_overflow", field + " exceeds " + max + ": " + value);
            return OptionalLong.empty();
        }
        return OptionalLong.of(value);
    }

    /**
     * {@code value * multiplier / divisor}, rounded down as HAMi's integer arithmetic does, when
     * it is at most {@code max}; a {@code number_overflow} problem otherwise (where HAMi's int32
     * would wrap). All three are non-negative and {@code divisor} is above zero.
     */
    public static OptionalLong scaled(long value, long multiplier, long divisor, String field, long max,
                                      Problems problems) {
        BigInteger result = BigInteger.valueOf(value).multiply(BigInteger.valueOf(multiplier))
                .divide(BigInteger.valueOf(divisor));
        if (result.compareTo(BigInteger.valueOf(max)) > 0) {
            problems.add("number_overflow", field + " exceeds " + max + ": " + result);
            return OptionalLong.empty();
        }
        return OptionalLong.of(result.longValue());
    }
}
