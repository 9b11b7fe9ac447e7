package io.hamiobserve.adapters.cachefile;

/**
 * The skip vocabulary of this adapter: source, kinds and reasons as reported to
 * {@link io.hamiobserve.ports.SkipReporter}. They become label values, so they are stable.
 */
final class Reasons {
    static final String SOURCE = "cachefile";

    static final String KIND_DIRECTORY = "directory";
    static final String KIND_FILE = "file";
    static final String KIND_DEVICE = "device";
    static final String KIND_SLOT = "slot";

    // Directories.
    static final String MISSING = "missing";
    static final String NOT_DIRECTORY = "not_directory";
    static final String NO_UNDERSCORE = "no_underscore";
    static final String EMPTY_DIRECTORY = "empty_directory";
    static final String NO_CACHE_FILE = "no_cache_file";
    static final String TOO_MANY_ENTRIES = "too_many_entries";
    static final String TOO_MANY_CACHE_FILES = "too_many_cache_files";
    static final String UNREADABLE = "unreadable";

    // Files (and directories for the first two).
    static final String SYMLINK = "symlink";
    static final String NOT_REGULAR_FILE = "not_regular_file";
    static final String VANISHED = "vanished";
    static final String REPLACED = "replaced";
    static final String TRUNCATED = "truncated";
    static final String IO_ERROR = "io_error";
    static final String NOT_INITIALIZED = "not_initialized";
    static final String BAD_MAGIC = "bad_magic";
    static final String UNKNOWN_SIZE = "unknown_size";
    static final String UNKNOWN_VERSION = "unknown_version";
    static final String UNKNOWN_LAYOUT = "unknown_layout";
    static final String DEVICE_NUM_CLAMPED = "device_num_clamped";
    static final String PROC_NUM_CLAMPED = "proc_num_clamped";
    static final String INTERNAL_ERROR = "internal_error";

    // Devices.
    static final String EMPTY_UUID = "empty_uuid";
    static final String BAD_UUID = "bad_uuid";
    static final String UUID_CONFLICT = "uuid_conflict";
    /** A memory or compute figure beyond {@link io.hamiobserve.domain.Quantities}' bounds (devices and slots). */
    static final String NUMBER_OVERFLOW = "number_overflow";

    // Slots.
    static final String SLOT_UNSETTLED = "slot_unsettled";
    static final String BAD_STATUS = "bad_status";

    private Reasons() {
    }
}
