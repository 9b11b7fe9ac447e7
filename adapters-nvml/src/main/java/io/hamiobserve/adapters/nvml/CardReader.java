package io.hamiobserve.adapters.nvml;

import com.sun.jna.Pointer;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.HostCardReading.CardProcess;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * One card's figures, field by field, on the worker thread. A field NVML cannot answer is left out
 * (and reported, unless the card simply has no such figure); a card whose identity cannot be read,
 * or that is lost, is left out as a whole.
 */
final class CardReader {
    private final NvmlBinding binding;
    private final NvmlWorker<?> worker;
    /** Per card UUID, the newest utilisation sample's timestamp of the previous reading. */
    private final Map<String, Long> lastSeen;
    /** The same, as this reading leaves it: cards not read again are forgotten. */
    private final Map<String, Long> nextSeen;

    /**
     * @param lastSeen each card's newest utilisation sample timestamp from the previous reading
     * @param nextSeen filled with each card's newest timestamp from this reading
     */
    CardReader(NvmlBinding binding, NvmlWorker<?> worker, Map<String, Long> lastSeen, Map<String, Long> nextSeen) {
        this.binding = binding;
        this.worker = worker;
        this.lastSeen = lastSeen;
        this.nextSeen = nextSeen;
    }

    /** A card's reading, or null when the card itself cannot be read (reported as a device skip). */
    HostCardReading read(int index, List<Skips.Noted> skips) {
        worker.entering("nvmlDeviceGetHandleByIndex_v2", index);
        int rc = binding.handleByIndex(index);
        if (rc != NvmlBinding.NVML_SUCCESS) {
            skips.add(new Skips.Noted(Skips.Kind.DEVICE.because(NvmlReturn.of(rc)), "card " + index));
            return null;
        }
        Pointer device = binding.device();
        worker.entering("nvmlDeviceGetUUID", index);
        rc = binding.uuid(device);
        if (rc != NvmlBinding.NVML_SUCCESS) {
            skips.add(new Skips.Noted(Skips.Kind.DEVICE.because(NvmlReturn.of(rc)), "card " + index));
            return null;
        }
        String uuid = binding.text();
        if (uuid.isBlank()) {
            skips.add(new Skips.Noted(Skips.Kind.DEVICE.because(Skips.Reason.EMPTY_UUID), "card " + index));
            return null;
        }
        Fields fields = new Fields(index, uuid, skips);
        Long previousSample = lastSeen.get(uuid);
        if (previousSample != null) {
            // Kept while the card is idle or cannot say: the next samples are those after it.
            nextSeen.put(uuid, previousSample);
        }

        worker.entering("nvmlDeviceGetName", index);
        String name = fields.ok(binding.name(device), "name") ? binding.text() : "";

        worker.entering("nvmlDeviceGetMemoryInfo", index);
        OptionalLong used = OptionalLong.empty();
        OptionalLong total = OptionalLong.empty();
        if (fields.ok(binding.memoryInfo(device), "memory")) {
            used = OptionalLong.of(binding.memoryUsed());
            total = OptionalLong.of(binding.memoryTotal());
        }

        worker.entering("nvmlDeviceGetUtilizationRates", index);
        OptionalDouble gpuUtil = OptionalDouble.empty();
        OptionalDouble memoryUtil = OptionalDouble.empty();
        if (fields.ok(binding.utilizationRates(device), "utilization")) {
            gpuUtil = OptionalDouble.of(binding.gpuUtil());
            memoryUtil = OptionalDouble.of(binding.memoryUtil());
        }

        worker.entering("nvmlDeviceGetTemperature", index);
        OptionalDouble temperature = fields.ok(binding.temperature(device), "temperature")
                ? OptionalDouble.of(binding.intValue()) : OptionalDouble.empty();

        worker.entering("nvmlDeviceGetPowerUsage", index);
        OptionalDouble watts = fields.ok(binding.powerUsage(device), "power")
                ? OptionalDouble.of(Integer.toUnsignedLong(binding.intValue()) / 1000.0) : OptionalDouble.empty();

        worker.entering("nvmlDeviceGetPciInfo_v3", index);
        Optional<String> pciBusId = Optional.empty();
        if (fields.ok(binding.pciInfo(device), "pci")) {
            String busId = binding.pciBusId();
            pciBusId = busId.isBlank() ? Optional.empty() : Optional.of(busId);
        }

        worker.entering("nvmlDeviceGetComputeRunningProcesses", index);
        Optional<List<CardProcess>> processes = Optional.empty();
        if (fields.ok(binding.computeProcesses(device), "processes")) {
            int count = binding.processCount();
            // Utilisation only for a card with processes: an idle card costs no further call.
            Map<Long, Long> smUtil = count == 0 ? Map.of() : processUtilization(device, index, uuid, fields);
            List<CardProcess> list = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                long bytes = binding.processUsedMemory(i);
                long pid = binding.processPid(i);
                list.add(new CardProcess(pid, bytes < 0 ? OptionalLong.empty() : OptionalLong.of(bytes),
                        utilisation(smUtil, pid)));
            }
            processes = Optional.of(list);
        }

        if (fields.lost) {
            skips.add(new Skips.Noted(Skips.Kind.DEVICE.because(NvmlReturn.GPU_IS_LOST), "card " + index + " " + uuid));
            return null;
        }
        return new HostCardReading(index, uuid, name, used, total, gpuUtil, memoryUtil, temperature, watts,
                pciBusId, processes);
    }

    /** Marks a process whose sample is not a percentage: its utilisation is unknown, not made up. */
    private static final long IMPLAUSIBLE = -1;

    /**
     * SM utilisation per pid since the card's previous reading, the latest sample of each pid; null
     * when the driver cannot say (not supported, as in MIG mode, or a failed call). The driver
     * samples only processes that used the SMs, so {@code NOT_FOUND} (no sample since the previous
     * reading) and a listed process without a sample both mean 0 by the driver's own account.
     * The newest sample's timestamp becomes the card's next {@code lastSeenTimeStamp}.
     */
    private Map<Long, Long> processUtilization(Pointer device, int index, String uuid, Fields fields) {
        worker.entering("nvmlDeviceGetProcessUtilization", index);
        long lastSeen = this.lastSeen.getOrDefault(uuid, 0L);
        int rc = binding.processUtilization(device, lastSeen);
        if (rc == NvmlBinding.NVML_ERROR_NOT_FOUND) {
            return Map.of();
        }
        if (!fields.ok(rc, "process_utilization")) {
            return null;
        }
        int count = binding.sampleCount();
        Map<Long, Long> smUtil = new HashMap<>();
        Map<Long, Long> taken = new HashMap<>();
        long newest = lastSeen;
        for (int i = 0; i < count; i++) {
            long pid = binding.samplePid(i);
            long timestamp = binding.sampleTimestamp(i);
            Long before = taken.get(pid);
            if (before == null || Long.compareUnsigned(timestamp, before) > 0) {
                long percent = binding.sampleSmUtil(i);
                taken.put(pid, timestamp);
                smUtil.put(pid, percent <= 100 ? percent : IMPLAUSIBLE);
            }
            if (Long.compareUnsigned(timestamp, newest) > 0) {
                newest = timestamp;
            }
        }
        nextSeen.put(uuid, newest);
        return smUtil;
    }

    private static OptionalDouble utilisation(Map<Long, Long> smUtil, long pid) {
        if (smUtil == null) {
            return OptionalDouble.empty();
        }
        long percent = smUtil.getOrDefault(pid, 0L);
        return percent == IMPLAUSIBLE ? OptionalDouble.empty() : OptionalDouble.of(percent);
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
        private final List<Skips.Noted> skips;
        private boolean lost;

        Fields(int index, String uuid, List<Skips.Noted> skips) {
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
                skips.add(new Skips.Noted(Skips.Kind.FIELD.because(code), "card " + index + " " + uuid + " " + field));
            }
            return false;
        }
    }
}
