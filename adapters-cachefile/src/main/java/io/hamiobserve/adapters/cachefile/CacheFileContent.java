package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import java.util.List;

/**
 * What one cache file holds, decoded but not yet summed: the reader's output, shared by the
 * usage source and the inspector. Every number is as the file states it, except that unsigned
 * 64-bit values beyond {@link Long#MAX_VALUE} are saturated to it; live slots and usable devices
 * hold only figures within {@link io.hamiobserve.domain.Quantities}' bounds (others are skipped
 * with {@code number_overflow}).
 *
 * @param layout         the format the file was read as
 * @param major          major version (0 for v0 files, which have none)
 * @param minor          minor version (0 for v0 files)
 * @param fileSize       the file's size when it was opened, bytes
 * @param ownerPid       HAMi-Core's {@code owner_pid}
 * @param deviceNumRaw   {@code device_num} as written (may be out of range)
 * @param devices        the first min(device_num, 16) device entries, in file order
 * @param procNumRaw     {@code proc_num} as written (may be out of range)
 * @param slots          slots in use ({@code [0, clamped proc_num)}) that were read consistently, any status
 * @param lastKernelTime unix seconds; 0 when the format has no such field
 * @param problems       what was skipped or clamped while reading, in file order
 */
record CacheFileContent(CacheLayout layout, int major, int minor, long fileSize, long ownerPid,
                        long deviceNumRaw, List<Device> devices, long procNumRaw, List<Slot> slots,
                        int utilizationSwitch, int recentKernel, int priority, long lastKernelTime,
                        List<Problem> problems) {

    CacheFileContent {
        devices = List.copyOf(devices);
        slots = List.copyOf(slots);
        problems = List.copyOf(problems);
    }

    String version() {
        return layout.hasVersion() ? "v" + major + "." + minor : "v0";
    }

    /**
     * One device position.
     *
     * @param uuid         the UUID text, or null when the device is not usable ({@code uuidProblem} says why:
     *                     the UUID, or a limit beyond any card)
     * @param limitBytes   {@code limit[d]}
     * @param smLimitRaw   {@code sm_limit[d]} as written; 0 means no limit
     */
    record Device(int index, String uuid, Skips.Reason uuidProblem, long limitBytes, long smLimitRaw) {
        boolean usable() {
            return uuid != null;
        }

        /** The compute limit in percent; the file's 0 means a whole card. */
        long smLimitPercent() {
            return smLimitRaw == 0 ? 100 : smLimitRaw;
        }
    }

    /**
     * One process slot, read consistently. Per-device arrays are indexed by device position and
     * hold {@link #devices()}{@code .size()} entries.
     */
    record Slot(int index, int pid, int hostPid, int status, long seqlock, long[] contextBytes,
                long[] moduleBytes, long[] dataBytes, long[] totalBytes, long[] smUtil) {
        boolean live() {
            return status == CacheLayout.STATUS_RUNNING || status == CacheLayout.STATUS_SUSPENDED;
        }

        /** Whether the process holds memory or SM time on the device. */
        boolean uses(int device) {
            return totalBytes[device] != 0 || contextBytes[device] != 0 || moduleBytes[device] != 0
                    || dataBytes[device] != 0 || smUtil[device] != 0;
        }
    }

    /** Something skipped or clamped inside a file that was otherwise read. */
    record Problem(Skips.Kind kind, Skips.Reason reason, String detail) {
    }
}
