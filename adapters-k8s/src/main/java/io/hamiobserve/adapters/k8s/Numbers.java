package io.hamiobserve.adapters.k8s;

import io.hamiobserve.adapters.k8s.Skips.Reason;

import io.hamiobserve.ports.spi.DeviceVendor.Problem;
import tools.jackson.databind.JsonNode;

import java.util.regex.Pattern;

/**
 * Strict parsing of the unsigned decimal numbers HAMi writes into annotations, as text or as JSON
 * numbers: where each quantity enters, it is checked against its bound (see
 * {@link io.hamiobserve.domain.Quantities}). Each failure has its own reason so that the skip
 * counter tells overflow from garbage.
 */
final class Numbers {
    private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");

    private Numbers() {
    }

    /** A parsed value, or the problem that prevented it. Exactly one of the two is set. */
    record Parsed(long value, Problem problem) {
        boolean ok() {
            return problem == null;
        }
    }

    /** An integer in {@code [0, max]} written as decimal text ({@code +} allowed, no exponent, no fraction). */
    static Parsed parseNonNegative(String text, String field, long max) {
        String trimmed = text.trim();
        if (!INTEGER.matcher(trimmed).matches()) {
            return new Parsed(0, Reason.NOT_A_NUMBER.problem(field + " is not an integer: '" + text + "'"));
        }
        long value;
        try {
            value = Long.parseLong(trimmed);
        } catch (NumberFormatException tooLong) {
            return new Parsed(0, (trimmed.startsWith("-") ? Reason.NEGATIVE_NUMBER : Reason.NUMBER_OVERFLOW)
                    .problem(field + " out of range: " + trimmed));
        }
        return bounded(value, field, max);
    }

    /**
     * An integer in {@code [0, max]} given as a JSON number; {@code null} or absent is 0. A number
     * with a fraction or an exponent ({@code 1.0}, {@code 1e3}) is not an integer here.
     */
    static Parsed fromJson(JsonNode node, String field, long max) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return new Parsed(0, null);
        }
        if (!node.isIntegralNumber()) {
            return new Parsed(0, Reason.NOT_A_NUMBER.problem(field + " is not an integer: " + node));
        }
        if (!node.canConvertToLong()) {
            return new Parsed(0, (node.bigIntegerValue().signum() < 0 ? Reason.NEGATIVE_NUMBER : Reason.NUMBER_OVERFLOW).problem(
                    field + " out of range: " + node));
        }
        return bounded(node.longValue(), field, max);
    }

    private static Parsed bounded(long value, String field, long max) {
        if (value < 0) {
            return new Parsed(0, Reason.NEGATIVE_NUMBER.problem(field + " is negative: " + value));
        }
        if (value > max) {
            return new Parsed(0, Reason.NUMBER_OVERFLOW.problem(field + " exceeds " + max + ": " + value));
        }
        return new Parsed(value, null);
    }
}
