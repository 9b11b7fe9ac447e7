package io.hamiobserve.vendors.protocol;

import java.math.BigDecimal;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node resource quantity ({@code status.capacity}) read as HAMi reads it: Kubernetes' quantity
 * syntax, and accepted only when its value is a whole number ({@code AsInt64} in Go), so
 * {@code 1k} is 1000 and {@code 1500m} is refused. The API server writes quantities in canonical
 * form, which uses suffixes ({@code 1000} is stored as {@code 1k}), so a reader of plain digits
 * would miss real nodes.
 */
public final class ResourceQuantity {
    // <sign><digits>[.<digits>]<suffix>, suffix: binary SI, decimal SI, or a decimal exponent.
    private static final Pattern QUANTITY = Pattern.compile(
            "([+-]?)([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[mkMGTPE]|[eE][+-]?[0-9]+)?");

    private ResourceQuantity() {
    }

    /** The quantity as a whole number in {@code [0, max]}; a problem otherwise. */
    public static OptionalLong whole(String text, String field, long max, Problems problems) {
        String trimmed = text.strip();
        if (trimmed.length() > InputLimits.MAX_QUANTITY_CHARS) {
            problems.add("too_long", field + " is a quantity of " + trimmed.length() + " characters");
            return OptionalLong.empty();
        }
        Matcher matcher = QUANTITY.matcher(trimmed);
        if (!matcher.matches()) {
            problems.add("not_a_number", field + " is not a quantity: '" + text + "'");
            return OptionalLong.empty();
        }
        BigDecimal value = new BigDecimal(matcher.group(2));
        String suffix = matcher.group(3);
        if (suffix != null && suffix.length() > 1 && (suffix.charAt(0) == 'e' || suffix.charAt(0) == 'E')) {
            OptionalLong exponent = exponent(suffix.substring(1));
            if (exponent.isEmpty() && value.signum() != 0) {
                // So far from 1 that no whole number within any bound is written so.
                boolean tiny = suffix.charAt(1) == '-';
                problems.add(tiny ? "not_a_number" : "number_overflow", field + " has an exponent out of range: "
                        + trimmed);
                return OptionalLong.empty();
            }
            value = value.scaleByPowerOfTen((int) exponent.orElse(0));
        } else if (suffix != null) {
            value = switch (suffix) {
                case "Ki" -> value.multiply(BigDecimal.valueOf(1L << 10));
                case "Mi" -> value.multiply(BigDecimal.valueOf(1L << 20));
                case "Gi" -> value.multiply(BigDecimal.valueOf(1L << 30));
                case "Ti" -> value.multiply(BigDecimal.valueOf(1L << 40));
                case "Pi" -> value.multiply(BigDecimal.valueOf(1L << 50));
                case "Ei" -> value.multiply(BigDecimal.valueOf(1L << 60));
                case "m" -> value.scaleByPowerOfTen(-3);
                case "k" -> value.scaleByPowerOfTen(3);
                case "M" -> value.scaleByPowerOfTen(6);
                case "G" -> value.scaleByPowerOfTen(9);
                case "T" -> value.scaleByPowerOfTen(12);
                case "P" -> value.scaleByPowerOfTen(15);
                default -> value.scaleByPowerOfTen(18);
            };
        }
        boolean negative = matcher.group(1).equals("-") && value.signum() != 0;
        if (negative) {
            problems.add("negative_number", field + " is negative: " + trimmed);
            return OptionalLong.empty();
        }
        // compareTo decides by the adjusted exponents first, so a huge exponent costs nothing here.
        if (value.compareTo(BigDecimal.valueOf(max)) > 0) {
            problems.add("number_overflow", field + " exceeds " + max + ": " + trimmed);
            return OptionalLong.empty();
        }
        if (value.signum() != 0 && value.stripTrailingZeros().scale() > 0) {
            problems.add("not_a_number", field + " is not a whole number: " + trimmed);
            return OptionalLong.empty();
        }
        return OptionalLong.of(value.longValue());
    }

    /** An exponent that keeps a BigDecimal's scale within an int; empty beyond. */
    private static OptionalLong exponent(String digits) {
        try {
            int exponent = Integer.parseInt(digits);
            return Math.abs((long) exponent) > 100_000_000L ? OptionalLong.empty() : OptionalLong.of(exponent);
        } catch (NumberFormatException tooLong) {
            return OptionalLong.empty();
        }
    }
}
