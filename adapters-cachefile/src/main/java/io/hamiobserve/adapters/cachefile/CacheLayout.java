package io.hamiobserve.adapters.cachefile;

/**
 * Where every field of a HAMi-Core shared cache file lives, for each format in the field. The
 * reader, the writer and the inspector take all offsets from here, so that a layout is stated once
 * and checked once (against the C compiler, in the tests).
 *
 * <p>Offsets and sizes are in bytes from the start of the file; integers are little-endian. A
 * value of {@link #ABSENT} means the format has no such field.
 */
final class CacheLayout {
    /** {@code initialized_flag} once HAMi-Core finished setting the file up. */
    static final int MAGIC = 19920718;
    /** {@code initialized_flag} while HAMi-Core is still setting the file up. */
    static final int INIT_IN_PROGRESS = 1;
    static final int MAX_DEVICES = 16;
    static final int MAX_PROCS = 1024;
    static final int UUID_BYTES = 96;
    static final int SEM_BYTES = 32;
    static final int ABSENT = -1;

    /** Slot status: free or exited. */
    static final int STATUS_FREE = 0;
    static final int STATUS_RUNNING = 1;
    static final int STATUS_SUSPENDED = 2;

    /** Before version fields existed. */
    static final CacheLayout V0 = new CacheLayout("v0", 1_197_896,
            ABSENT, ABSENT, 4, 8, 4, 16, 48, 56, 1592, 1720, 1848,
            1_197_880, 1_197_884, 1_197_888, 1_197_892, ABSENT, ABSENT,
            1168, 0, 4, 8, 40, 648, 776, 24, 1160, ABSENT, ABSENT);

    /** HAMi-Core 1.x (minor 0..2); the seqlock is meaningful from minor 2. */
    static final CacheLayout V1 = new CacheLayout("v1", 2_008_952,
            4, 8, 12, 16, 8, 24, 56, 64, 1600, 1728, 1856,
            2_008_896, 2_008_900, 2_008_904, 2_008_908, 2_008_912, 2_008_920,
            1960, 0, 4, 8, 64, 1032, 1160, 48, 1928, 1936, 1944);

    /** Highest v1 minor version whose layout is this table. */
    static final int V1_MAX_MINOR = 2;
    /** First v1 minor version whose writers take the per-slot seqlock. */
    static final int V1_SEQLOCK_MINOR = 2;
    /** The size HAMi-Core gives a file: one byte past the struct. */
    static final int WRITER_SLACK = 1;

    // Offsets inside one used[d] entry (both formats).
    static final int USED_CONTEXT = 0;
    static final int USED_MODULE = 8;
    static final int USED_DATA = 16;
    static final int USED_OFFSET = 24;
    static final int USED_TOTAL = 32;
    // Offsets inside one device_util[d] entry (both formats).
    static final int UTIL_DEC = 0;
    static final int UTIL_ENC = 8;
    static final int UTIL_SM = 16;

    final String name;
    /** sizeof(shared_region_t). */
    final int structSize;
    final int majorVersion;
    final int minorVersion;
    final int smInitFlag;
    final int ownerPid;
    final int ownerPidBytes;
    final int sem;
    final int deviceNum;
    final int uuids;
    final int limit;
    final int smLimit;
    final int procs;
    final int procNum;
    final int utilizationSwitch;
    final int recentKernel;
    final int priority;
    final int lastKernelTime;
    final int semPostinit;

    /** sizeof(shrreg_proc_slot_t). */
    final int slotSize;
    final int slotPid;
    final int slotHostPid;
    final int slotUsed;
    final int usedStride;
    final int slotMonitorUsed;
    final int slotUtil;
    final int utilStride;
    final int slotStatus;
    final int slotSeqlock;
    /** First byte after the seqlock that HAMi-Core leaves unused (to the end of the slot). */
    final int slotReserved;

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
    int tailStart() {
        return procNum;
    }

    int tailLength() {
        return structSize - procNum;
    }

    int slotOffset(int slot) {
        return procs + slot * slotSize;
    }

    int uuidOffset(int device) {
        return uuids + device * UUID_BYTES;
    }

    /** Offset of used[device].field inside a slot. */
    int usedOffset(int device, int field) {
        return slotUsed + device * usedStride + field;
    }

    /** Offset of device_util[device].field inside a slot. */
    int utilOffset(int device, int field) {
        return slotUtil + device * utilStride + field;
    }

    boolean hasVersion() {
        return majorVersion != ABSENT;
    }

    boolean hasLastKernelTime() {
        return lastKernelTime != ABSENT;
    }

    @Override
    public String toString() {
        return name;
    }
}
