package io.hamiobserve.adapters.nvml;

import io.hamiobserve.ports.HostCardSource;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Entry point of the NVML adapter: whole-card readings from the NVIDIA driver's
 * {@code libnvidia-ml.so.1}, bound through JNA.
 *
 * <p>The returned source never throws from {@code open}: a missing library or driver shows up as
 * {@link io.hamiobserve.ports.SourceUnavailableException} from each {@code read} (with NVML's error
 * name), and loading is retried every {@link #DEFAULT_RETRY_AFTER}. Every NVML call runs on one
 * worker thread; a read waits at most the call timeout and fails rather than serve stale figures.
 * Memory is in bytes, utilisation in percent (0..100), temperature in °C, power in watts.
 */
public final class Nvml {
    /** How long a read waits for NVML before it gives up. */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(2);
    /** How long after a failed load or init the next attempt is made. */
    public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(30);
    /** The driver's soname first (always shipped), then JNA's search for {@code libnvidia-ml.so*}. */
    static final List<String> DEFAULT_LIBRARIES = List.of("libnvidia-ml.so.1", "nvidia-ml");
    /** Process entries the first listing call makes room for; grows when the driver asks for more. */
    static final int INITIAL_PROCESS_CAPACITY = 32;

    private Nvml() {
    }

    /** Opens the driver's {@code libnvidia-ml.so.1}, found by the dynamic linker's normal rules. */
    public static HostCardSource open() {
        return open(DEFAULT_LIBRARIES, DEFAULT_CALL_TIMEOUT, DEFAULT_RETRY_AFTER, INITIAL_PROCESS_CAPACITY);
    }

    /**
     * Opens NVML from a given library.
     *
     * @param libraryPathOrName an absolute path, a soname such as {@code libnvidia-ml.so.1}, or a
     *                          JNA library name such as {@code nvidia-ml}
     * @param callTimeout       how long one read waits for NVML; positive
     */
    public static HostCardSource open(String libraryPathOrName, Duration callTimeout) {
        Objects.requireNonNull(libraryPathOrName, "libraryPathOrName");
        return open(List.of(libraryPathOrName), callTimeout, DEFAULT_RETRY_AFTER, INITIAL_PROCESS_CAPACITY);
    }

    static NvmlHostCards open(List<String> libraries, Duration callTimeout, Duration retryAfter, int processCapacity) {
        if (callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("callTimeout must be positive, was " + callTimeout);
        }
        if (retryAfter.isNegative()) {
            throw new IllegalArgumentException("retryAfter must not be negative, was " + retryAfter);
        }
        return new NvmlHostCards(libraries, callTimeout.toNanos(), retryAfter.toNanos(), processCapacity);
    }
}
