package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import io.hamiobserve.adapters.cachefile.Skips.Kind;
import io.hamiobserve.adapters.cachefile.Skips.Reason;
import io.hamiobserve.domain.Quantities;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The part of a cache file before and after its slot array: which layout the file is (its magic,
 * its size, its version), and the fields the header and the tail hold, device entries included.
 * Counts the file states are clamped to the layout's bounds; device entries whose UUID is not
 * usable text, or whose limits are beyond any card, are kept as unusable with the reason.
 */
final class HeaderDecoder {
    private static final int VERSION_PREFIX = 12;

    /** Large enough for every layout's header (the v1 header is the larger). */
    private final ByteBuffer header = SlotReader.allocate(Math.max(CacheLayout.V0.procs, CacheLayout.V1.procs));
    private ByteBuffer tail = SlotReader.allocate(CacheLayout.V1.tailLength());

    /**
     * What the header and the tail say.
     *
     * @param devices     the first {@code device_num} (clamped) device entries
     * @param procCount   slots in use: {@code proc_num} clamped
     * @param problems    what was clamped or skipped so far; the slots add theirs
     */
    record Header(CacheLayout layout, int major, int minor, long size, long ownerPid, long deviceNumRaw,
                  List<CacheFileContent.Device> devices, int procNumRaw, int procCount, int utilizationSwitch,
                  int recentKernel, int priority, long lastKernelTime, List<CacheFileContent.Problem> problems) {
        int deviceCount() {
            return devices.size();
        }

        /** Whether slots are written under the per-slot seqlock (v1.2 on). */
        boolean seqlocked() {
            return layout.slotSeqlock != CacheLayout.ABSENT && minor >= CacheLayout.V1_SEQLOCK_MINOR;
        }
    }

    /** A header, or why the file is rejected as a whole. */
    record Decoded(Header header, ReadResult rejected) {
    }

    Decoded decode(ByteSource source) throws IOException {
        long size = source.size();
        if (size < VERSION_PREFIX) {
            return rejected(size == 0 ? Reason.NOT_INITIALIZED : Reason.UNKNOWN_SIZE,
                    size + " bytes: too small for any layout");
        }
        // The version prefix and the whole header in one read: the prefix says which layout's header it is.
        ByteBuffer h = header.clear().limit((int) Math.min(size, header.capacity()));
        try {
            source.readFully(h, 0);
        } catch (EOFException e) {
            return rejected(Reason.TRUNCATED, e.getMessage());
        }
        int magic = h.getInt(0);
        if (magic == 0 || magic == CacheLayout.INIT_IN_PROGRESS) {
            return rejected(Reason.NOT_INITIALIZED, "HAMi-Core has not finished setting the file up (flag "
                    + magic + ")");
        }
        if (magic != CacheLayout.MAGIC) {
            return rejected(Reason.BAD_MAGIC, "starts with " + magic + ", not " + CacheLayout.MAGIC);
        }
        CacheLayout layout = CacheLayout.ofSize(size).orElse(null);
        if (layout == null) {
            return rejected(Reason.UNKNOWN_SIZE, size + " bytes: " + sizeHint(size));
        }
        int major = 0;
        int minor = 0;
        if (layout.hasVersion()) {
            major = h.getInt(layout.majorVersion);
            minor = h.getInt(layout.minorVersion);
            if (major != 1) {
                return rejected(Reason.UNKNOWN_VERSION, "major version " + Integer.toUnsignedString(major)
                        + " with the v1 size; only 1 is known");
            }
            if (minor < 0 || minor > CacheLayout.V1_MAX_MINOR) {
                return rejected(Reason.UNKNOWN_VERSION, "version 1." + Integer.toUnsignedString(minor)
                        + "; known are 1.0 to 1." + CacheLayout.V1_MAX_MINOR);
            }
        }
        try {
            return new Decoded(fields(source, layout, major, minor, size), null);
        } catch (EOFException e) {
            return rejected(Reason.TRUNCATED, e.getMessage());
        }
    }

    private static Decoded rejected(Reason reason, String detail) {
        return new Decoded(null, ReadResult.rejected(reason, detail));
    }

    private static String sizeHint(long size) {
        if (size < CacheLayout.V0.structSize) {
            return "smaller than the v0 layout (" + CacheLayout.V0.structSize + "); an older layout or a file cut short";
        }
        if (size < CacheLayout.V1.structSize) {
            return "between the v0 (" + CacheLayout.V0.structSize + ") and v1 (" + CacheLayout.V1.structSize
                    + ") layouts; a v1 file cut short?";
        }
        return "larger than the v1 layout (" + CacheLayout.V1.structSize + "); a layout this reader does not know";
    }

    private Header fields(ByteSource source, CacheLayout layout, int major, int minor, long size) throws IOException {
        List<CacheFileContent.Problem> problems = new ArrayList<>();
        // Read with the version prefix: the layout's size is at least its header's end.
        ByteBuffer h = header;
        ByteBuffer t = tail.clear().limit(layout.tailLength());
        source.readFully(t, layout.tailStart());

        long ownerPid = layout.ownerPidBytes == 8 ? h.getLong(layout.ownerPid)
                : Integer.toUnsignedLong(h.getInt(layout.ownerPid));
        long deviceNumRaw = h.getLong(layout.deviceNum);
        // device_num is a uint64: a "negative" long is a huge count, clamped down like any other.
        boolean deviceNumInRange = Long.compareUnsigned(deviceNumRaw, CacheLayout.MAX_DEVICES) <= 0;
        int deviceCount = deviceNumInRange ? (int) deviceNumRaw : CacheLayout.MAX_DEVICES;
        if (!deviceNumInRange) {
            problems.add(new CacheFileContent.Problem(Kind.FILE, Reason.DEVICE_NUM_CLAMPED,
                    "device_num " + Long.toUnsignedString(deviceNumRaw) + " clamped to " + deviceCount));
        }
        List<CacheFileContent.Device> devices = new ArrayList<>(deviceCount);
        for (int d = 0; d < deviceCount; d++) {
            String uuid = null;
            Reason uuidProblem = null;
            int start = layout.uuidOffset(d);
            int length = -1;
            boolean printable = true;
            for (int i = 0; i < CacheLayout.UUID_BYTES; i++) {
                byte b = h.get(start + i);
                if (b == 0) {
                    length = i;
                    break;
                }
                printable &= b > 0x20 && b < 0x7f;
            }
            if (length < 0) {
                uuidProblem = Reason.BAD_UUID;
                problems.add(new CacheFileContent.Problem(Kind.DEVICE, Reason.BAD_UUID,
                        "device " + d + ": UUID not NUL-terminated within " + CacheLayout.UUID_BYTES + " bytes"));
            } else if (length == 0) {
                uuidProblem = Reason.EMPTY_UUID;
                problems.add(new CacheFileContent.Problem(Kind.DEVICE, Reason.EMPTY_UUID,
                        "device " + d + ": UUID not filled in yet"));
            } else if (!printable) {
                uuidProblem = Reason.BAD_UUID;
                problems.add(new CacheFileContent.Problem(Kind.DEVICE, Reason.BAD_UUID,
                        "device " + d + ": UUID holds non-printable bytes"));
            } else {
                byte[] text = new byte[length];
                h.get(start, text);
                uuid = new String(text, StandardCharsets.US_ASCII);
            }
            long limit = h.getLong(layout.limit + d * 8);
            long smLimit = h.getLong(layout.smLimit + d * 8);
            if (uuid != null && !(Quantities.isMemoryBytes(limit) && Quantities.isPercent(smLimit))) {
                uuid = null;
                uuidProblem = Reason.NUMBER_OVERFLOW;
                problems.add(new CacheFileContent.Problem(Kind.DEVICE, Reason.NUMBER_OVERFLOW,
                        "device " + d + ": limit " + Long.toUnsignedString(limit) + " bytes, sm_limit "
                                + Long.toUnsignedString(smLimit) + ": beyond what any card has"));
            }
            devices.add(new CacheFileContent.Device(d, uuid, uuidProblem, SlotReader.unsigned(limit), SlotReader.unsigned(smLimit)));
        }

        int procNumRaw = t.getInt(0);
        int procCount = (int) clamp(procNumRaw, CacheLayout.MAX_PROCS);
        if (procNumRaw < 0 || procNumRaw > CacheLayout.MAX_PROCS) {
            problems.add(new CacheFileContent.Problem(Kind.FILE, Reason.PROC_NUM_CLAMPED,
                    "proc_num " + procNumRaw + " clamped to " + procCount));
        }
        int utilizationSwitch = t.getInt(layout.utilizationSwitch - layout.tailStart());
        int recentKernel = t.getInt(layout.recentKernel - layout.tailStart());
        int priority = t.getInt(layout.priority - layout.tailStart());
        long lastKernelTime = layout.hasLastKernelTime()
                ? Math.max(0, t.getLong(layout.lastKernelTime - layout.tailStart())) : 0;

        return new Header(layout, major, minor, size, ownerPid, deviceNumRaw, devices, procNumRaw, procCount,
                utilizationSwitch, recentKernel, priority, lastKernelTime, problems);
    }

    private static long clamp(long value, int max) {
        return value < 0 ? 0 : Math.min(value, max);
    }
}
