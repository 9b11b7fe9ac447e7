package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.ports.SkipKey;

/**
 * The skip keys of this adapter: its source, the kinds of input it reads and why one is skipped.
 * They become label values, so they are stable; docs/adapters-cachefile.md says what each means.
 */
final class Skips {
    static final String SOURCE = "cachefile";

    private Skips() {
    }

    /** What was skipped. */
    enum Kind implements SkipKey.Label {
        DIRECTORY, FILE, DEVICE, SLOT;

        SkipKey because(Reason reason) {
            return SkipKey.of(SOURCE, this, reason);
        }
    }

    /** Why. */
    enum Reason implements SkipKey.Label {
        // Directories.
        MISSING,
        NOT_DIRECTORY,
        NO_UNDERSCORE,
        EMPTY_DIRECTORY,
        NO_CACHE_FILE,
        TOO_MANY_ENTRIES,
        TOO_MANY_CACHE_FILES,
        UNREADABLE,

        // Files (and directories for the first two).
        SYMLINK,
        NOT_REGULAR_FILE,
        VANISHED,
        REPLACED,
        /** An open that did not return within {@link OpenDeadline#DEADLINE}, or not tried while one has not. */
        OPEN_BLOCKED,
        TRUNCATED,
        IO_ERROR,
        NOT_INITIALIZED,
        BAD_MAGIC,
        UNKNOWN_SIZE,
        UNKNOWN_VERSION,
        UNKNOWN_LAYOUT,
        DEVICE_NUM_CLAMPED,
        PROC_NUM_CLAMPED,
        INTERNAL_ERROR,

        // Devices.
        EMPTY_UUID,
        BAD_UUID,
        UUID_CONFLICT,
        /** A memory or compute figure beyond {@link io.hamiobserve.domain.Quantities}' bounds (devices and slots). */
        NUMBER_OVERFLOW,

        // Slots.
        SLOT_UNSETTLED,
        BAD_STATUS
    }
}
