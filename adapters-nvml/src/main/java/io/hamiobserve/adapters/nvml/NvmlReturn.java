package io.hamiobserve.adapters.nvml;

import io.hamiobserve.ports.SkipKey;


/**
 * NVML's return codes ({@code nvmlReturn_t} in {@code nvml.h}) under NVML's own names, so that logs,
 * exception messages and skip reasons say {@code GPU_IS_LOST} rather than {@code 15}. A code this
 * table does not know (a newer driver) maps to {@link #UNKNOWN}; {@link #describe(int)} keeps the
 * raw number visible.
 */
enum NvmlReturn implements SkipKey.Label {
    SUCCESS(0),
    UNINITIALIZED(1),
    INVALID_ARGUMENT(2),
    NOT_SUPPORTED(3),
    NO_PERMISSION(4),
    ALREADY_INITIALIZED(5),
    NOT_FOUND(6),
    INSUFFICIENT_SIZE(7),
    INSUFFICIENT_POWER(8),
    DRIVER_NOT_LOADED(9),
    TIMEOUT(10),
    IRQ_ISSUE(11),
    LIBRARY_NOT_FOUND(12),
    FUNCTION_NOT_FOUND(13),
    CORRUPTED_INFOROM(14),
    GPU_IS_LOST(15),
    RESET_REQUIRED(16),
    OPERATING_SYSTEM(17),
    LIB_RM_VERSION_MISMATCH(18),
    IN_USE(19),
    MEMORY(20),
    NO_DATA(21),
    VGPU_ECC_NOT_SUPPORTED(22),
    INSUFFICIENT_RESOURCES(23),
    FREQ_NOT_SUPPORTED(24),
    ARGUMENT_VERSION_MISMATCH(25),
    DEPRECATED(26),
    NOT_READY(27),
    GPU_NOT_FOUND(28),
    INVALID_STATE(29),
    RESET_TYPE_NOT_SUPPORTED(30),
    UNKNOWN(999);

    private static final NvmlReturn[] BY_CODE = new NvmlReturn[31];

    static {
        for (NvmlReturn value : values()) {
            if (value.code < BY_CODE.length) {
                BY_CODE[value.code] = value;
            }
        }
    }

    private final int code;

    NvmlReturn(int code) {
        this.code = code;
    }

    /** The numeric code as {@code nvml.h} defines it. */
    int code() {
        return code;
    }

    static NvmlReturn of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }

    /** {@code NAME (code)}, with the raw number even when the name is {@link #UNKNOWN}. */
    static String describe(int code) {
        return of(code).name() + " (" + code + ")";
    }
}
