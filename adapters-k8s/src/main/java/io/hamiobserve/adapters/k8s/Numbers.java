package io.hamiobserve.adapters.k8s;

import io.hamiobserve.ports.spi.DeviceVendor.Problem;

import java.util.regex.Pattern;

/**
 * Strict parsing of the unsigned decimal numbers HAMi writes into annotations. Each failure
 * has its own reason so that the decode-error counter tells overflow from garbage.
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

    static Parsed parseNonNegative(String text, String field, long max) {
        String trimmed = text.trim();
        if (!INTEGER.matcher(trimmed).matches()) {
            return new Parsed(0, new Problem("not_a_number", field + " is not an integer: '" + text + "'"));
        }
        long value;
        try {
            value = Long.parseLong(trimmed);
        } catch (NumberFormatException tooLong) {
            return new Parsed(0, new Problem(trimmed.startsWith("-") ? "negative_number" : "number_overflow",
                    field + " out of range: " + trimmed));
        }
        if (value < 0) {
            return new Parsed(0, new Problem("negative_number", field + " is negative: " + value));
        }
        if (value > max) {
            return new Parsed(0, new Problem("number_overflow", field + " exceeds " + max + ": " + value));
        }
        return new Parsed(value, null);
    }
}
