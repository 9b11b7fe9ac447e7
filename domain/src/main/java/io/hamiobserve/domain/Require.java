package io.hamiobserve.domain;

import java.util.Objects;

/** Argument checks shared by the records of this package, so that each states its invariants in one line. */
final class Require {
    private Require() {
    }

    static String text(String value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty");
        }
        return value;
    }

    static long nonNegative(long value, String name) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative, was " + value);
        }
        return value;
    }

    /** A quantity in {@code [0, max]}: the bounds of {@link Quantities}. */
    static long atMost(long value, long max, String name) {
        nonNegative(value, name);
        if (value > max) {
            throw new IllegalArgumentException(name + " must not exceed " + max + ", was " + value);
        }
        return value;
    }

    static int nonNegative(int value, String name) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative, was " + value);
        }
        return value;
    }
}
