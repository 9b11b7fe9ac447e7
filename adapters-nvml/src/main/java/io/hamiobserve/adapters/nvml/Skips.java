package io.hamiobserve.adapters.nvml;

import io.hamiobserve.ports.SkipKey;

/**
 * The skip keys of this adapter: a card or one of its fields left out, for the NVML return code
 * that made it so ({@link NvmlReturn}, its lower-case name) or for a reason of this adapter's own.
 */
final class Skips {
    static final String SOURCE = "nvml";

    private Skips() {
    }

    /** What was skipped: a whole card, or one figure of a card. */
    enum Kind implements SkipKey.Label {
        DEVICE, FIELD;

        SkipKey because(SkipKey.Label reason) {
            return SkipKey.of(SOURCE, this, reason);
        }
    }

    /** A skip found on the worker thread, reported to the caller's reporter with the reading. */
    record Noted(SkipKey key, String item) {
    }

    /** Reasons that are not NVML return codes. */
    enum Reason implements SkipKey.Label {
        /** NVML answered the card's UUID with an empty string. */
        EMPTY_UUID
    }
}
