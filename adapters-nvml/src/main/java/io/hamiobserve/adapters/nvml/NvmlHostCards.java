package io.hamiobserve.adapters.nvml;

import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.ports.HostCardSource;
import io.hamiobserve.ports.SkipReporter;
import io.hamiobserve.ports.SourceUnavailableException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whole-card readings from NVML: every native call on the source's one {@link NvmlWorker} thread
 * (a read waits at most the call timeout, and fails rather than serve stale figures), NVML loaded
 * and initialised by an {@link NvmlSession} (retried after a failure), each card read field by
 * field by a {@link CardReader}. NVML is initialised once and shut down in {@link #close()}.
 */
final class NvmlHostCards implements HostCardSource {
    /** More cards than any host holds: a larger count is a broken answer, not a reading. */
    private static final int MAX_DEVICES = 1024;

    private final NvmlWorker<Outcome> worker;
    /** Worker-confined. */
    private final NvmlSession session;
    /** Worker-confined: per card UUID, the newest process utilisation sample's timestamp read so far. */
    private Map<String, Long> lastUtilizationSample = new HashMap<>();

    NvmlHostCards(List<String> libraryCandidates, long timeoutNanos, long retryAfterNanos, int initialProcessCapacity) {
        this.worker = new NvmlWorker<>(timeoutNanos);
        this.session = new NvmlSession(libraryCandidates, retryAfterNanos, initialProcessCapacity, worker);
        // Initialising NVML can take seconds on a host without persistence mode; start it now so
        // the first scrape does not pay for it.
        worker.prefetch(this::readAll);
    }

    @Override
    public List<HostCardReading> read(SkipReporter skips) throws SourceUnavailableException {
        Outcome outcome = worker.get(this::readAll);
        for (Skips.Noted skip : outcome.skips()) {
            skips.skipped(skip.key(), skip.item());
        }
        if (outcome.failure() != null) {
            throw new SourceUnavailableException(outcome.failure());
        }
        return outcome.readings();
    }

    @Override
    public void close() {
        worker.close(session::release);
    }

    /** One run's readings and skips, or why there are none. */
    private record Outcome(List<HostCardReading> readings, List<Skips.Noted> skips, String failure) {
        static Outcome failed(String failure, List<Skips.Noted> skips) {
            return new Outcome(List.of(), skips, failure);
        }
    }

    /** On the worker: every card NVML lists. */
    private Outcome readAll() {
        List<Skips.Noted> skips = new ArrayList<>();
        try {
            String failure = session.open();
            if (failure != null) {
                return Outcome.failed(failure, skips);
            }
            NvmlBinding binding = session.binding();
            worker.entering("nvmlDeviceGetCount_v2", -1);
            int rc = binding.deviceCount();
            if (rc != NvmlBinding.NVML_SUCCESS) {
                return Outcome.failed(session.failed("nvmlDeviceGetCount_v2 failed: " + NvmlReturn.describe(rc)), skips);
            }
            int count = binding.intValue();
            if (count < 0 || count > MAX_DEVICES) {
                return Outcome.failed("nvmlDeviceGetCount_v2 answered an implausible count " + count, skips);
            }
            Map<String, Long> seen = new HashMap<>();
            CardReader cards = new CardReader(binding, worker, lastUtilizationSample, seen);
            List<HostCardReading> readings = new ArrayList<>(count);
            for (int index = 0; index < count; index++) {
                HostCardReading reading = cards.read(index, skips);
                if (reading != null) {
                    readings.add(reading);
                }
            }
            lastUtilizationSample = seen;
            return new Outcome(readings, skips, null);
        } finally {
            worker.entering("nothing", -1);
        }
    }
}
