package io.hamiobserve.adapters.cachefile.layout;

import java.util.Optional;

/**
 * Where every field of a HAMi-Core shared cache file lives, for each format in the field. The
 * reader (the cache-file adapter) and the writer (the testkit, for tests and the demo) take all
 * offsets from here, so that a layout is stated once and checked once (against the C compiler, in
 * the adapter's tests).
 *
 * <p>Offsets and sizes are in bytes from the start of the file; integers are little-endian. A
 * value of {@link #ABSENT} means the format has no such field.
 */
public final class CacheLayout {
    /** {@code initialized_flag} once HAMi-Core finished setting the file up. */
    public static final int MAGIC = 19920718;
    /** {@code initialized_flag} while HAMi-Core is still setting the file up. */
    public static final int INIT_IN_PROGRESS = 1;
    public static final int MAX_DEVICES = 16;
    public static final int MAX_PROCS = 1024;
    public static final int UUID_BYTES = 96;
    public static final int SEM_BYTES = 32;
    public static final int ABSENT = -1;

    /** Slot status: free or exited. */
    public static final int STATUS_FREE = 0;
    public static final int STATUS_RUNNING = 1;
    public static final int STATUS_SUSPENDED = 2;

    /** Before version fields existed. */
    public static final CacheLayout V0 = new CacheLayout("v0", 1_197_896,
            ABSENT, ABSENT, 4, 8, 4, 16, 48, 56, 1592, 1720, 1848,
            1_197_880, 1_197_884, 1_197_888, 1_197_892, ABSENT, ABSENT,
            1168, 0, 4, 8, 40, 648, 776, 24, 1160, ABSENT, ABSENT);

    /** HAMi-Core 1.x (minor 0..2); the seqlock is meaningful from minor 2. */
    public static final CacheLayout V1 = new CacheLayout("v1", 2_008_952,
            4, 8, 12, 16, 8, 24, 56, 64, 1600, 1728, 1856,
            2_008_896, 2_008_900, 2_008_904, 2_008_908, 2_008_912, 2_008_920,
            1960, 0, 4, 8, 64, 1032, 1160, 48, 1928, 1936, 1944);

    /** Highest v1 minor version whose layout is this table. */
    public static final int V1_MAX_MINOR = 2;
    /** First v1 minor version whose writers take the per-slot seqlock. */
    public static final int V1_SEQLOCK_MINOR = 2;
    /** The size HAMi-Core gives a file: one byte past the struct. */
    public static final int WRITER_SLACK = 1;

    /**
     * The layout of a file of {@code size} bytes: a layout is recognised by its exact size, the
     * struct or the struct plus the writer's extra byte.
     */
    public static Optional<CacheLayout> ofSize(long size) {
        for (CacheLayout layout : new CacheLayout[] {V1, V0}) {
            if (size >= layout.structSize && size <= layout.structSize + WRITER_SLACK) {
                return Optional.of(layout);
            }
        }
        return Optional.empty();
    }

    // Offsets inside one used[d] entry (both formats).
    public static final int USED_CONTEXT = 0;
    public static final int USED_MODULE = 8;
    public static final int USED_DATA = 16;
    public static final int USED_OFFSET = 24;
    public static final int USED_TOTAL = 32;
    // Offsets inside one device_util[d] entry (both formats).
    public static final int UTIL_DEC = 0;
    public static final int UTIL_ENC = 8;
    public static final int UTIL_SM = 16;

    public final String name;
    /** sizeof(shared_region_t). */
    public final int structSize;
    public final int majorVersion;
    public final int minorVersion;
    public final int smInitFlag;
    public final int ownerPid;
    public final int ownerPidBytes;
    public final int sem;
    public final int deviceNum;
    public final int uuids;
    public final int limit;
    public final int smLimit;
    public final int procs;
    public final int procNum;
    public final int utilizationSwitch;
    public final int recentKernel;
    public final int priority;
    public final int lastKernelTime;
    public final int semPostinit;

    /** sizeof(shrreg_proc_slot_t). */
    public final int slotSize;
    public final int slotPid;
    public final int slotHostPid;
    public final int slotUsed;
    public final int usedStride;
    public final int slotMonitorUsed;
    public final int slotUtil;
    public final int utilStride;
    public final int slotStatus;
    public final int slotSeqlock;
    /** First byte after the seqlock that HAMi-Core leaves unused (to the end of the slot). */
    public final int slotReserved;

    private CacheLayout(String name, int structSize, int majorVersion, int minorVersion, int smInitFlag,
                        int ownerPid, int ownerPidBytes, int sem, int deviceNum, int uuids, int limit, int smLimit,
                        int procs, int procNum, int utilizationSwitch, int recentKernel, int priority,
                        int lastKernelTime, int semPostinit, int slotSize, int slotPid, int slotHostPid,
                        int slotUsed, int usedStride, int slotMonitorUsed, int slotUtil, int utilStride,
                        int slotStatus, int slotSeqlock, int slotReserved) {
        this.name = name;
        this.structSize = structSize;
        this.majorVersion = majorVersion;
        this.minorVersion = minorVersion;
        this.smInitFlag = smInitFlag;
        this.ownerPid = ownerPid;
        this.ownerPidBytes = ownerPidBytes;
        this.sem = sem;
        this.deviceNum = deviceNum;
        this.uuids = uuids;
        this.limit = limit;
        this.smLimit = smLimit;
        this.procs = procs;
        this.procNum = procNum;
        this.utilizationSwitch = utilizationSwitch;
        this.recentKernel = recentKernel;
        this.priority = priority;
        this.lastKernelTime = lastKernelTime;
        this.semPostinit = semPostinit;
        this.slotSize = slotSize;
        this.slotPid = slotPid;
        this.slotHostPid = slotHostPid;
        this.slotUsed = slotUsed;
        this.usedStride = usedStride;
        this.slotMonitorUsed = slotMonitorUsed;
        this.slotUtil = slotUtil;
        this.utilStride = utilStride;
        this.slotStatus = slotStatus;
        this.slotSeqlock = slotSeqlock;
        this.slotReserved = slotReserved;
    }

    /** Bytes from the start of the file to the end of the fields after the slot array. */
    public int tailStart() {
        return procNum;
    }

    public int tailLength() {
        return structSize - procNum;
    }

    public int slotOffset(int slot) {
        return procs + slot * slotSize;
    }

    public int uuidOffset(int device) {
        return uuids + device * UUID_BYTES;
    }

    /** Offset of used[device].field inside a slot. */
    public int usedOffset(int device, int field) {
        return slotUsed + device * usedStride + field;
    }

    /** Offset of device_util[device].field inside a slot. */
    public int utilOffset(int device, int field) {
        return slotUtil + device * utilStride + field;
    }

    public boolean hasVersion() {
        return majorVersion != ABSENT;
    }

    public boolean hasLastKernelTime() {
        return lastKernelTime != ABSENT;
    }

    @Override
    public String toString() {
        return name;
    }
}
