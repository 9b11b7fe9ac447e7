package io.hamiobserve.vendors.protocol;

import io.hamiobserve.domain.CardMode;

import java.util.Optional;

/**
 * How a register format's {@code mode} field is read. HAMi gives it meaning for NVIDIA only
 * ({@code hami-core}, {@code mig}, {@code mps}: MIG instances are reported from NVIDIA's pods
 * alone); other vendors' plugins write whatever they like there (HAMi's own Hygon test writes
 * {@code test}), which HAMi carries and never reads.
 */
public enum ModeField {
    /** One of {@link CardMode}'s spellings, empty meaning {@code hami-core}; anything else is {@code unknown_mode}. */
    DECODED,
    /** Any text, dropped; the card is in HAMi's default mode. */
    IGNORED;

    /** The card's mode, or empty with a problem. */
    Optional<CardMode> read(String text, String where, Problems problems) {
        if (this == IGNORED) {
            return Optional.of(CardMode.HAMI_CORE);
        }
        Optional<CardMode> mode = CardMode.fromLabel(text);
        if (mode.isEmpty()) {
            problems.add("unknown_mode", where + ": unknown mode '" + text + "'");
        }
        return mode;
    }
}
