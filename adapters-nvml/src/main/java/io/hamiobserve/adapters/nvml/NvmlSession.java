package io.hamiobserve.adapters.nvml;

import java.util.ArrayList;
import java.util.List;

/**
 * NVML loaded and initialised on the worker thread, or why not. When the library cannot be loaded
 * or {@code nvmlInit_v2} fails, {@link #open()} answers the reason, and loading or initialising is
 * attempted again once {@code retryAfter} has passed; {@link #failed} (a failing device count)
 * shuts NVML down and does the same. Confined to the worker thread.
 */
final class NvmlSession {
    private static final System.Logger LOG = System.getLogger(NvmlSession.class.getName());

    private final List<String> libraryCandidates;
    private final long retryAfterNanos;
    private final int initialProcessCapacity;
    private final NvmlWorker<?> worker;
    private NvmlBinding binding;
    private boolean initialized;
    private String lastFailure;
    private long nextInitAttempt;

    NvmlSession(List<String> libraryCandidates, long retryAfterNanos, int initialProcessCapacity,
                NvmlWorker<?> worker) {
        this.libraryCandidates = List.copyOf(libraryCandidates);
        this.retryAfterNanos = retryAfterNanos;
        this.initialProcessCapacity = initialProcessCapacity;
        this.worker = worker;
    }

    /** The loaded binding; call after {@link #open()} answered null. */
    NvmlBinding binding() {
        return binding;
    }

    /** Returns null when NVML is ready, else why not. */
    String open() {
        if (initialized) {
            return null;
        }
        if (lastFailure != null && System.nanoTime() - nextInitAttempt < 0) {
            return lastFailure;
        }
        if (binding == null) {
            worker.entering("loading the NVML library", -1);
            List<String> details = new ArrayList<>();
            for (String candidate : libraryCandidates) {
                try {
                    binding = NvmlBinding.load(candidate, initialProcessCapacity);
                    break;
                } catch (LinkageError missing) {
                    // UnsatisfiedLinkError for a missing library; other linkage errors when JNA's
                    // own native part cannot load on this platform.
                    details.add(loaderDetail(missing.getMessage()));
                }
            }
            if (binding == null) {
                return failInit("NVML library not found (tried " + String.join(", ", libraryCandidates) + ": "
                        + String.join("; ", details) + "). Is the NVIDIA driver installed and libnvidia-ml.so.1"
                        + " visible to this process (NVIDIA container runtime, or the driver's library directory mounted)?");
            }
        }
        worker.entering("nvmlInit_v2", -1);
        int rc = binding.init();
        if (rc != NvmlBinding.NVML_SUCCESS) {
            return failInit("nvmlInit_v2 failed: " + NvmlReturn.describe(rc) + hint(NvmlReturn.of(rc)));
        }
        initialized = true;
        if (lastFailure != null) {
            LOG.log(System.Logger.Level.INFO, "NVML available again");
        }
        lastFailure = null;
        return null;
    }

    private String failInit(String message) {
        if (!message.equals(lastFailure)) {
            LOG.log(System.Logger.Level.WARNING, message);
        }
        lastFailure = message;
        nextInitAttempt = System.nanoTime() + retryAfterNanos;
        return message;
    }

    /** NVML failed in a way that needs a new start: shut down, and retry after {@code retryAfter}. */
    String failed(String message) {
        release();
        return failInit(message);
    }

    /** Shuts NVML down, when it is initialised. */
    void release() {
        if (initialized) {
            worker.entering("nvmlShutdown", -1);
            int rc = binding.shutdown();
            initialized = false;
            if (rc != NvmlBinding.NVML_SUCCESS) {
                LOG.log(System.Logger.Level.WARNING, "nvmlShutdown failed: " + NvmlReturn.describe(rc));
            }
            worker.entering("nothing", -1);
        }
    }

    /** The dynamic linker's own words from JNA's multi-line message, which starts with a bare header. */
    static String loaderDetail(String message) {
        if (message == null) {
            return "no detail";
        }
        for (String line : message.split("\n")) {
            String trimmed = line.trim();
            if (!trimmed.isEmpty() && !trimmed.startsWith("Unable to load library")) {
                return trimmed.length() > 300 ? trimmed.substring(0, 300) + "..." : trimmed;
            }
        }
        return message.trim();
    }

    private static String hint(NvmlReturn code) {
        return switch (code) {
            case DRIVER_NOT_LOADED -> " (the NVIDIA kernel driver is not loaded)";
            case NO_PERMISSION -> " (no permission to open /dev/nvidia*)";
            case LIB_RM_VERSION_MISMATCH -> " (libnvidia-ml and the kernel driver differ in version: driver upgraded without a reboot?)";
            case GPU_NOT_FOUND -> " (no GPU visible to this process)";
            default -> "";
        };
    }

}
