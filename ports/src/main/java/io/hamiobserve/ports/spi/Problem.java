package io.hamiobserve.ports.spi;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Why a part of a node's or pod's device data was left out.
 *
 * @param key    the annotation, label or resource the part came from, one the provider declares
 * @param reason a short, stable, label-safe reason ({@code [a-z][a-z0-9_]*}, at most 64
 *               characters), e.g. {@code bad_json}, {@code number_overflow}
 * @param detail what exactly was wrong, for the log; may quote input, so whoever logs it bounds
 *               and escapes it
 */
public record Problem(String key, String reason, String detail) {
    private static final Pattern LABEL_SAFE = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    public Problem {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(detail, "detail");
        // A reason is a constant of the provider's code, never input: a bad one is a bug.
        if (reason == null || !LABEL_SAFE.matcher(reason).matches()) {
            throw new IllegalArgumentException("reason must be label-safe: " + reason);
        }
    }
}
