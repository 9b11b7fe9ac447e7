package io.hamiobserve.adapters.nvml;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The NVML calls the adapter makes, bound through JNA by symbol name. Functions are looked up on
 * first use, so a symbol an older driver lacks fails only its own call (with
 * {@link NvmlReturn#FUNCTION_NOT_FOUND}) instead of the whole binding.
 *
 * <p>Not thread-safe: it reuses native scratch buffers between calls and is confined to the
 * adapter's NVML worker thread. Each call returns NVML's code; values of a successful call are
 * read back from the accessor of that call until the next call.
 */
final class NvmlBinding {
    static final int NVML_SUCCESS = 0;
    static final int NVML_ERROR_NOT_FOUND = 6;
    static final int NVML_ERROR_INSUFFICIENT_SIZE = 7;
    static final int NVML_ERROR_FUNCTION_NOT_FOUND = 13;

    /** {@code NVML_DEVICE_UUID_V2_BUFFER_SIZE} and {@code NVML_DEVICE_NAME_V2_BUFFER_SIZE}. */
    private static final int TEXT_BUFFER = 96;
    /** {@code sizeof(nvmlPciInfo_t)}: busIdLegacy[16], five unsigned ints, busId[32]. */
    private static final int PCI_INFO_SIZE = 68;
    private static final int PCI_BUS_ID_OFFSET = 36;
    private static final int PCI_BUS_ID_SIZE = 32;
    /** {@code sizeof(nvmlProcessInfo_t)} for _v2/_v3: pid@0, usedGpuMemory@8, gpuInstanceId@16, computeInstanceId@20. */
    static final int PROCESS_INFO_SIZE = 24;
    private static final int NVML_TEMPERATURE_GPU = 0;
    /**
     * {@code sizeof(nvmlProcessUtilizationSample_t)}: pid@0 (unsigned int, then 4 bytes of padding),
     * timeStamp@8 (unsigned long long, CPU time in microseconds), smUtil@16, memUtil@20, encUtil@24,
     * decUtil@28 (unsigned ints, percent).
     */
    static final int UTILIZATION_SAMPLE_SIZE = 32;
    private static final int SAMPLE_TIMESTAMP_OFFSET = 8;
    private static final int SAMPLE_SM_UTIL_OFFSET = 16;
    /** More entries than a card's process table holds: a larger count is a broken answer. */
    private static final int MAX_ENTRIES = 1 << 16;

    private final NativeLibrary library;
    private final Map<String, Function> functions = new HashMap<>();
    private final Memory intOut = new Memory(4);
    private final Memory pointerOut = new Memory(Native.POINTER_SIZE);
    private final Memory text = new Memory(TEXT_BUFFER);
    private final byte[] textBytes = new byte[TEXT_BUFFER];
    private final Memory memoryInfo = new Memory(24);
    private final Memory utilization = new Memory(8);
    private final Memory pciInfo = new Memory(PCI_INFO_SIZE);
    private Memory processInfos;
    private int processCapacity;
    private int processCount;
    private Memory samples;
    private int sampleCapacity;
    private int sampleCount;

    private NvmlBinding(NativeLibrary library, int initialProcessCapacity) {
        this.library = library;
        this.processCapacity = Math.max(1, initialProcessCapacity);
        this.processInfos = new Memory((long) processCapacity * PROCESS_INFO_SIZE);
        this.sampleCapacity = this.processCapacity;
        this.samples = new Memory((long) sampleCapacity * UTILIZATION_SAMPLE_SIZE);
    }

    /**
     * Loads the library (a path, a soname such as {@code libnvidia-ml.so.1}, or a JNA name such as
     * {@code nvidia-ml}).
     *
     * @throws UnsatisfiedLinkError when the library cannot be found or loaded
     */
    static NvmlBinding load(String libraryPathOrName, int initialProcessCapacity) {
        return new NvmlBinding(NativeLibrary.getInstance(libraryPathOrName), initialProcessCapacity);
    }

    private Function function(String name) {
        Function function = functions.get(name);
        if (function == null && !functions.containsKey(name)) {
            try {
                function = library.getFunction(name);
            } catch (UnsatisfiedLinkError missing) {
                function = null;
            }
            functions.put(name, function);
        }
        return function;
    }

    private int call(String name, Object... args) {
        Function function = function(name);
        return function == null ? NVML_ERROR_FUNCTION_NOT_FOUND : function.invokeInt(args);
    }

    int init() {
        return call("nvmlInit_v2");
    }

    int shutdown() {
        return call("nvmlShutdown");
    }

    /** On success, {@link #intValue()} is the number of cards. */
    int deviceCount() {
        return call("nvmlDeviceGetCount_v2", intOut);
    }

    /** On success, {@link #device()} is the card's handle. */
    int handleByIndex(int index) {
        return call("nvmlDeviceGetHandleByIndex_v2", index, pointerOut);
    }

    Pointer device() {
        return pointerOut.getPointer(0);
    }

    int intValue() {
        return intOut.getInt(0);
    }

    /** On success, {@link #text()} is the UUID. */
    int uuid(Pointer device) {
        text.setByte(0, (byte) 0);
        return call("nvmlDeviceGetUUID", device, text, TEXT_BUFFER);
    }

    /** On success, {@link #text()} is the product name. */
    int name(Pointer device) {
        text.setByte(0, (byte) 0);
        return call("nvmlDeviceGetName", device, text, TEXT_BUFFER);
    }

    /** The text of the last uuid/name call, up to its NUL (or the whole buffer if the driver wrote none). */
    String text() {
        return cString(text, 0, TEXT_BUFFER);
    }

    private String cString(Memory memory, long offset, int max) {
        memory.read(offset, textBytes, 0, max);
        int length = 0;
        while (length < max && textBytes[length] != 0) {
            length++;
        }
        return new String(textBytes, 0, length, StandardCharsets.UTF_8);
    }

    /** On success, {@link #memoryTotal()} and {@link #memoryUsed()} hold bytes (struct {total, free, used}). */
    int memoryInfo(Pointer device) {
        return call("nvmlDeviceGetMemoryInfo", device, memoryInfo);
    }

    long memoryTotal() {
        return memoryInfo.getLong(0);
    }

    long memoryUsed() {
        return memoryInfo.getLong(16);
    }

    /** On success, {@link #gpuUtil()} and {@link #memoryUtil()} hold percent (struct {gpu, memory}). */
    int utilizationRates(Pointer device) {
        return call("nvmlDeviceGetUtilizationRates", device, utilization);
    }

    long gpuUtil() {
        return Integer.toUnsignedLong(utilization.getInt(0));
    }

    long memoryUtil() {
        return Integer.toUnsignedLong(utilization.getInt(4));
    }

    /** On success, {@link #intValue()} is the GPU core temperature in °C. */
    int temperature(Pointer device) {
        return call("nvmlDeviceGetTemperature", device, NVML_TEMPERATURE_GPU, intOut);
    }

    /** On success, {@link #intValue()} is the power draw in milliwatts. */
    int powerUsage(Pointer device) {
        return call("nvmlDeviceGetPowerUsage", device, intOut);
    }

    /** On success, {@link #pciBusId()} is the bus id ({@code domain:bus:device.function}). */
    int pciInfo(Pointer device) {
        return call("nvmlDeviceGetPciInfo_v3", device, pciInfo);
    }

    String pciBusId() {
        return cString(pciInfo, PCI_BUS_ID_OFFSET, PCI_BUS_ID_SIZE);
    }

    /**
     * Lists compute processes; on success {@link #processCount()} entries can be read with
     * {@link #processPid} and {@link #processUsedMemory}. The list can grow between the sizing
     * answer and the next call, so {@code INSUFFICIENT_SIZE} is retried a few times with the size
     * the driver asked for plus headroom.
     */
    int computeProcesses(Pointer device) {
        String name = function("nvmlDeviceGetComputeRunningProcesses_v3") != null
                ? "nvmlDeviceGetComputeRunningProcesses_v3" : "nvmlDeviceGetComputeRunningProcesses_v2";
        int rc = NVML_ERROR_INSUFFICIENT_SIZE;
        for (int attempt = 0; attempt < 4 && rc == NVML_ERROR_INSUFFICIENT_SIZE; attempt++) {
            intOut.setInt(0, processCapacity);
            rc = call(name, device, intOut, processInfos);
            int answered = intOut.getInt(0);
            if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {
                if (answered <= processCapacity || answered > MAX_ENTRIES) {
                    break;
                }
                processCapacity = answered + 8;
                processInfos = new Memory((long) processCapacity * PROCESS_INFO_SIZE);
            } else if (rc == NVML_SUCCESS) {
                processCount = Math.max(0, Math.min(answered, processCapacity));
            }
        }
        return rc;
    }

    int processCount() {
        return processCount;
    }

    long processPid(int i) {
        return Integer.toUnsignedLong(processInfos.getInt((long) i * PROCESS_INFO_SIZE));
    }

    /** Bytes, or a negative value when the driver says {@code NVML_VALUE_NOT_AVAILABLE} (ULL max) or beyond. */
    long processUsedMemory(int i) {
        return processInfos.getLong((long) i * PROCESS_INFO_SIZE + 8);
    }

    /**
     * Per-process utilisation samples newer than {@code lastSeenTimeStamp} (microseconds, the
     * samples' own clock; 0 for every sample the driver still holds); on success
     * {@link #sampleCount()} entries can be read with {@link #samplePid}, {@link #sampleTimestamp}
     * and {@link #sampleSmUtil}. NVML's sizing protocol: a first call without a buffer answers
     * {@code INSUFFICIENT_SIZE} and the count it needs, the second fills the buffer (grown only when
     * too small); the count can grow in between, so {@code INSUFFICIENT_SIZE} is retried a few
     * times. {@code NOT_FOUND} (no sample since {@code lastSeenTimeStamp}) is returned as is.
     */
    int processUtilization(Pointer device, long lastSeenTimeStamp) {
        String name = "nvmlDeviceGetProcessUtilization";
        sampleCount = 0;
        int rc = NVML_ERROR_INSUFFICIENT_SIZE;
        for (int attempt = 0; attempt < 4 && rc == NVML_ERROR_INSUFFICIENT_SIZE; attempt++) {
            intOut.setInt(0, 0);
            rc = call(name, device, null, intOut, lastSeenTimeStamp);
            if (rc != NVML_ERROR_INSUFFICIENT_SIZE && rc != NVML_SUCCESS) {
                return rc;
            }
            long needed = Integer.toUnsignedLong(intOut.getInt(0));
            if (needed == 0) {
                return NVML_SUCCESS;
            }
            if (needed > MAX_ENTRIES) {
                return NVML_ERROR_INSUFFICIENT_SIZE;
            }
            if (needed > sampleCapacity) {
                sampleCapacity = (int) needed + 8;
                samples = new Memory((long) sampleCapacity * UTILIZATION_SAMPLE_SIZE);
            }
            intOut.setInt(0, sampleCapacity);
            rc = call(name, device, samples, intOut, lastSeenTimeStamp);
            if (rc == NVML_SUCCESS) {
                sampleCount = (int) Math.min(Integer.toUnsignedLong(intOut.getInt(0)), sampleCapacity);
            }
        }
        return rc;
    }

    int sampleCount() {
        return sampleCount;
    }

    long samplePid(int i) {
        return Integer.toUnsignedLong(samples.getInt((long) i * UTILIZATION_SAMPLE_SIZE));
    }

    /** The sample's CPU timestamp, microseconds; compared unsigned. */
    long sampleTimestamp(int i) {
        return samples.getLong((long) i * UTILIZATION_SAMPLE_SIZE + SAMPLE_TIMESTAMP_OFFSET);
    }

    long sampleSmUtil(int i) {
        return Integer.toUnsignedLong(samples.getInt((long) i * UTILIZATION_SAMPLE_SIZE + SAMPLE_SM_UTIL_OFFSET));
    }
}
