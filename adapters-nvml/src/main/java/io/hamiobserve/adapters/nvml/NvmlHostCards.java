package io.hamiobserve.adapters.nvml;

import com.sun.jna.Pointer;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.HostCardReading.CardProcess;
import io.hamiobserve.ports.HostCardSource;
import io.hamiobserve.ports.SkipKey;
import io.hamiobserve.ports.SkipReporter;
import io.hamiobserve.ports.SourceUnavailableException;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whole-card readings from NVML, with every native call on one dedicated daemon thread.
 *
 * <p>Why a worker: an NVML call can block for seconds (a card falling off the bus, a driver
 * reset). The caller waits at most {@code callTimeout} for a reading; if NVML has not answered,
 * the read fails with {@link SourceUnavailableException} and no stale figures are served. While
 * that call is still stuck, later reads fail at once without queueing more work, so exactly one
 * thread is ever blocked in the driver. Reads that arrive while a fresh reading is in progress
 * share it.
 *
 * <p>NVML is initialised once and shut down in {@link #close()}. When the library cannot be
 * loaded or {@code nvmlInit_v2} fails, reads fail with the reason and loading/initialising is
 * attempted again once {@code retryAfter} has passed; a failing device count shuts NVML down and
 * does the same.
 */
final class NvmlHostCards implements HostCardSource {
    private static final System.Logger LOG = System.getLogger(NvmlHostCards.class.getName());
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    /** More cards than any host holds: a larger count is a broken answer, not a reading. */
    private static final int MAX_DEVICES = 1024;

    private final List<String> libraryCandidates;
    private final long timeoutNanos;
    private final long retryAfterNanos;
    private final int initialProcessCapacity;
    private final String threadName;
    private final ExecutorService worker;

    // Caller side, guarded by this.
    private Future<Outcome> inFlight;
    private long inFlightSince;
    private boolean closed;

    // Worker-confined.
    private NvmlBinding binding;
    private boolean initialized;
    private String lastFailure;
    private long nextInitAttempt;

    // Written by the worker, read by callers for the timeout message.
    private volatile String currentCall = "nothing";
    private volatile int currentCard = -1;

    NvmlHostCards(List<String> libraryCandidates, long timeoutNanos, long retryAfterNanos, int initialProcessCapacity) {
        this.libraryCandidates = List.copyOf(libraryCandidates);
        this.timeoutNanos = timeoutNanos;
        this.retryAfterNanos = retryAfterNanos;
        this.initialProcessCapacity = initialProcessCapacity;
        this.threadName = "nvml-reader-" + SEQUENCE.incrementAndGet();
        this.worker = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, threadName);
            thread.setDaemon(true);
            return thread;
        });
        // Initialising NVML can take seconds on a host without persistence mode; start it now so
        // the first scrape does not pay for it.
        synchronized (this) {
            inFlight = worker.submit(this::readAll);
            inFlightSince = System.nanoTime();
        }
    }

    /** The worker thread's name, unique per source. */
    String threadName() {
        return threadName;
    }

    @Override
    public List<HostCardReading> read(SkipReporter skips) throws SourceUnavailableException {
        Future<Outcome> reading;
        long deadline;
        synchronized (this) {
            if (closed) {
                throw new SourceUnavailableException("NVML source is closed");
            }
            long now = System.nanoTime();
            if (inFlight != null && !inFlight.isDone()) {
                if (now - inFlightSince >= timeoutNanos) {
                    throw new SourceUnavailableException("NVML has not answered for "
                            + TimeUnit.NANOSECONDS.toMillis(now - inFlightSince) + " ms (stuck in " + stuckIn()
                            + "); card readings are left out until it returns");
                }
            } else {
                inFlight = worker.submit(this::readAll);
                inFlightSince = now;
            }
            reading = inFlight;
            deadline = inFlightSince + timeoutNanos;
        }
        Outcome outcome;
        try {
            outcome = reading.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException slow) {
            String message = "NVML did not answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                    + " ms (stuck in " + stuckIn() + "); card readings are left out until it returns";
            LOG.log(System.Logger.Level.WARNING, message);
            throw new SourceUnavailableException(message);
        } catch (ExecutionException failed) {
            throw new SourceUnavailableException("NVML read failed: " + failed.getCause(), failed.getCause());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new SourceUnavailableException("interrupted while waiting for NVML", interrupted);
        }
        for (Skip skip : outcome.skips()) {
            skips.skipped(skip.key(), skip.item());
        }
        if (outcome.failure() != null) {
            throw new SourceUnavailableException(outcome.failure());
        }
        return outcome.readings();
    }

    private String stuckIn() {
        int card = currentCard;
        return card < 0 ? currentCall : currentCall + " on card " + card;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        // Queued behind a stuck call this still runs once the call returns; the thread is a daemon,
        // so it never holds up the exit.
        Future<?> shutdown = worker.submit(this::releaseNvml);
        worker.shutdown();
        try {
            shutdown.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException notDone) {
            LOG.log(System.Logger.Level.WARNING, "NVML shutdown did not complete: " + notDone);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- worker thread only below ----

    private record Skip(SkipKey key, String item) {
    }

    private record Outcome(List<HostCardReading> readings, List<Skip> skips, String failure) {
        static Outcome failed(String failure, List<Skip> skips) {
            return new Outcome(List.of(), skips, failure);
        }
    }

    private Outcome readAll() {
        List<Skip> skips = new ArrayList<>();
        try {
            String failure = ensureInitialized();
            if (failure != null) {
                return Outcome.failed(failure, skips);
            }
            enter("nvmlDeviceGetCount_v2", -1);
            int rc = binding.deviceCount();
            if (rc != NvmlBinding.NVML_SUCCESS) {
                releaseNvml();
                return Outcome.failed(failInit("nvmlDeviceGetCount_v2 failed: " + NvmlReturn.describe(rc)), skips);
            }
            int count = binding.intValue();
            if (count < 0 || count > MAX_DEVICES) {
                return Outcome.failed("nvmlDeviceGetCount_v2 answered an implausible count " + count, skips);
            }
            List<HostCardReading> readings = new ArrayList<>(count);
            for (int index = 0; index < count; index++) {
                HostCardReading reading = readCard(index, skips);
                if (reading != null) {
                    readings.add(reading);
                }
            }
            return new Outcome(readings, skips, null);
        } finally {
            enter("nothing", -1);
        }
    }

    private void enter(String call, int card) {
        currentCall = call;
        currentCard = card;
    }

    /** Returns null when NVML is ready, else why not. */
    private String ensureInitialized() {
        if (initialized) {
            return null;
        }
        if (lastFailure != null && System.nanoTime() - nextInitAttempt < 0) {
            return lastFailure;
        }
        if (binding == null) {
            enter("loading the NVML library", -1);
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
        enter("nvmlInit_v2", -1);
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

    private void releaseNvml() {
        if (initialized) {
            enter("nvmlShutdown", -1);
            int rc = binding.shutdown();
            initialized = false;
            if (rc != NvmlBinding.NVML_SUCCESS) {
                LOG.log(System.Logger.Level.WARNING, "nvmlShutdown failed: " + NvmlReturn.describe(rc));
            }
            enter("nothing", -1);
        }
    }

    /** A card's reading, or null when the card itself cannot be read (reported as a device skip). */
    private HostCardReading readCard(int index, List<Skip> skips) {
        enter("nvmlDeviceGetHandleByIndex_v2", index);
        int rc = binding.handleByIndex(index);
        if (rc != NvmlBinding.NVML_SUCCESS) {
            skips.add(new Skip(Skips.Kind.DEVICE.because(NvmlReturn.of(rc)), "card " + index));
            return null;
        }
        Pointer device = binding.device();
        enter("nvmlDeviceGetUUID", index);
        rc = binding.uuid(device);
        if (rc != NvmlBinding.NVML_SUCCESS) {
            skips.add(new Skip(Skips.Kind.DEVICE.because(NvmlReturn.of(rc)), "card " + index));
            return null;
        }
        String uuid = binding.text();
        if (uuid.isBlank()) {
            skips.add(new Skip(Skips.Kind.DEVICE.because(Skips.Reason.EMPTY_UUID), "card " + index));
            return null;
        }
        Fields fields = new Fields(index, uuid, skips);

        enter("nvmlDeviceGetName", index);
        String name = fields.ok(binding.name(device), "name") ? binding.text() : "";

        enter("nvmlDeviceGetMemoryInfo", index);
        OptionalLong used = OptionalLong.empty();
        OptionalLong total = OptionalLong.empty();
        if (fields.ok(binding.memoryInfo(device), "memory")) {
            used = OptionalLong.of(binding.memoryUsed());
            total = OptionalLong.of(binding.memoryTotal());
        }

        enter("nvmlDeviceGetUtilizationRates", index);
        OptionalDouble gpuUtil = OptionalDouble.empty();
        OptionalDouble memoryUtil = OptionalDouble.empty();
        if (fields.ok(binding.utilizationRates(device), "utilization")) {
            gpuUtil = OptionalDouble.of(binding.gpuUtil());
            memoryUtil = OptionalDouble.of(binding.memoryUtil());
        }

        enter("nvmlDeviceGetTemperature", index);
        OptionalDouble temperature = fields.ok(binding.temperature(device), "temperature")
                ? OptionalDouble.of(binding.intValue()) : OptionalDouble.empty();

        enter("nvmlDeviceGetPowerUsage", index);
        OptionalDouble watts = fields.ok(binding.powerUsage(device), "power")
                ? OptionalDouble.of(Integer.toUnsignedLong(binding.intValue()) / 1000.0) : OptionalDouble.empty();

        enter("nvmlDeviceGetPciInfo_v3", index);
        Optional<String> pciBusId = Optional.empty();
        if (fields.ok(binding.pciInfo(device), "pci")) {
            String busId = binding.pciBusId();
            pciBusId = busId.isBlank() ? Optional.empty() : Optional.of(busId);
        }

        enter("nvmlDeviceGetComputeRunningProcesses", index);
        Optional<List<CardProcess>> processes = Optional.empty();
        if (fields.ok(binding.computeProcesses(device), "processes")) {
            int count = binding.processCount();
            List<CardProcess> list = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                long bytes = binding.processUsedMemory(i);
                list.add(new CardProcess(binding.processPid(i), bytes < 0 ? OptionalLong.empty() : OptionalLong.of(bytes)));
            }
            processes = Optional.of(list);
        }

        if (fields.lost) {
            skips.add(new Skip(Skips.Kind.DEVICE.because(NvmlReturn.GPU_IS_LOST), "card " + index + " " + uuid));
            return null;
        }
        return new HostCardReading(index, uuid, name, used, total, gpuUtil, memoryUtil, temperature, watts,
                pciBusId, processes);
    }

    /**
     * Judges one field's return code. {@code NOT_SUPPORTED} (and a function this driver lacks)
     * leaves the field out quietly: the card simply has no such figure, and reporting it every
     * scrape would drown real skips. Any other error leaves the field out and is reported; a
     * lost GPU drops the whole card.
     */
    private static final class Fields {
        private final int index;
        private final String uuid;
        private final List<Skip> skips;
        private boolean lost;

        Fields(int index, String uuid, List<Skip> skips) {
            this.index = index;
            this.uuid = uuid;
            this.skips = skips;
        }

        boolean ok(int rc, String field) {
            if (rc == NvmlBinding.NVML_SUCCESS) {
                return true;
            }
            NvmlReturn code = NvmlReturn.of(rc);
            if (code == NvmlReturn.GPU_IS_LOST) {
                lost = true;
            } else if (code != NvmlReturn.NOT_SUPPORTED && code != NvmlReturn.FUNCTION_NOT_FOUND) {
                skips.add(new Skip(Skips.Kind.FIELD.because(code), "card " + index + " " + uuid + " " + field));
            }
            return false;
        }
    }
}
