package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.adapters.cachefile.Skips.Kind;
import io.hamiobserve.adapters.cachefile.Skips.Reason;
import io.hamiobserve.domain.Quantities;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Decodes one cache file. Reads only the header, the fields after the slot array and the slots in
 * use, never the whole file (a v1 file is 2 MB, nearly all of it empty slots). Never writes.
 *
 * <p>Not thread-safe: one reader per scrape, reused across that scrape's files so that its
 * buffers are allocated once. Its memory is bounded by the largest file layout's slot array
 * (three copies, for the seqlock protocol), whatever the files say.
 */
final class CacheFileReader {
    /** Reads of a slot range before unsettled slots are given up on. */
    static final int SEQLOCK_ROUNDS = 16;

    private static final int VERSION_PREFIX = 12;

    private ByteBuffer header = allocate(CacheLayout.V1.procs);
    private ByteBuffer tail = allocate(CacheLayout.V1.tailLength());
    private ByteBuffer before = allocate(0);
    private ByteBuffer data = allocate(0);
    private ByteBuffer after = allocate(0);

    /**
     * Reads the file at {@code path}: a regular file, not followed through a symlink, checked not
     * to have been replaced or shrunk while it was read.
     */
    ReadResult read(Path path) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return ReadResult.rejected(Reason.VANISHED, "gone before it could be read");
        } catch (IOException e) {
            return ReadResult.rejected(Reason.IO_ERROR, "cannot stat: " + e);
        }
        if (attributes.isSymbolicLink()) {
            return ReadResult.rejected(Reason.SYMLINK, "a symbolic link; links are never followed");
        }
        if (!attributes.isRegularFile()) {
            return ReadResult.rejected(Reason.NOT_REGULAR_FILE, "not a regular file");
        }
        ReadResult result;
        // NOFOLLOW_LINKS (O_NOFOLLOW) closes the window where a symlink replaces the file after the check.
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            result = read(ByteSource.of(channel));
        } catch (NoSuchFileException e) {
            return ReadResult.rejected(Reason.VANISHED, "gone before it could be opened");
        } catch (AccessDeniedException e) {
            return ReadResult.rejected(Reason.UNREADABLE, "permission denied");
        } catch (FileSystemException e) {
            String why = String.valueOf(e.getReason());
            if (why.contains("symbolic links")) {
                return ReadResult.rejected(Reason.SYMLINK, "replaced by a symbolic link while opened");
            }
            return ReadResult.rejected(Reason.IO_ERROR, e.toString());
        } catch (IOException e) {
            return ReadResult.rejected(Reason.IO_ERROR, e.toString());
        }
        BasicFileAttributes afterwards;
        try {
            afterwards = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return ReadResult.rejected(Reason.VANISHED, "deleted while it was read");
        } catch (IOException e) {
            return ReadResult.rejected(Reason.IO_ERROR, "cannot stat after reading: " + e);
        }
        Object key = attributes.fileKey();
        if (key != null && !Objects.equals(key, afterwards.fileKey())) {
            return ReadResult.rejected(Reason.REPLACED, "replaced by another file while it was read");
        }
        if (result.ok() && afterwards.size() < result.content().layout().structSize) {
            return ReadResult.rejected(Reason.TRUNCATED, "shrank to " + afterwards.size() + " bytes while it was read");
        }
        return result;
    }

    /** Decodes whatever bytes {@code source} holds. Never throws for bad bytes. */
    ReadResult read(ByteSource source) throws IOException {
        long size = source.size();
        if (size < VERSION_PREFIX) {
            return ReadResult.rejected(size == 0 ? Reason.NOT_INITIALIZED : Reason.UNKNOWN_SIZE,
                    size + " bytes: too small for any layout");
        }
        ByteBuffer h = header.clear().limit(VERSION_PREFIX);
        try {
            readFully(source, h, 0);
        } catch (EOFException e) {
            return ReadResult.rejected(Reason.TRUNCATED, e.getMessage());
        }
        int magic = h.getInt(0);
        if (magic == 0 || magic == CacheLayout.INIT_IN_PROGRESS) {
            return ReadResult.rejected(Reason.NOT_INITIALIZED, "HAMi-Core has not finished setting the file up (flag "
                    + magic + ")");
        }
        if (magic != CacheLayout.MAGIC) {
            return ReadResult.rejected(Reason.BAD_MAGIC, "starts with " + magic + ", not " + CacheLayout.MAGIC);
        }
        CacheLayout layout;
        int major = 0;
        int minor = 0;
        if (fits(size, CacheLayout.V1)) {
            layout = CacheLayout.V1;
            major = h.getInt(CacheLayout.V1.majorVersion);
            minor = h.getInt(CacheLayout.V1.minorVersion);
            if (major != 1) {
                return ReadResult.rejected(Reason.UNKNOWN_VERSION, "major version " + Integer.toUnsignedString(major)
                        + " with the v1 size; only 1 is known");
            }
            if (minor < 0 || minor > CacheLayout.V1_MAX_MINOR) {
                return ReadResult.rejected(Reason.UNKNOWN_VERSION, "version 1." + Integer.toUnsignedString(minor)
                        + "; known are 1.0 to 1." + CacheLayout.V1_MAX_MINOR);
            }
        } else if (fits(size, CacheLayout.V0)) {
            layout = CacheLayout.V0;
        } else {
            return ReadResult.rejected(Reason.UNKNOWN_SIZE, size + " bytes: " + sizeHint(size));
        }
        try {
            return decode(source, layout, major, minor, size);
        } catch (EOFException e) {
            return ReadResult.rejected(Reason.TRUNCATED, e.getMessage());
        }
    }

    /** A layout is recognised by its exact size: the struct, or the struct plus the writer's extra byte. */
    private static boolean fits(long size, CacheLayout layout) {
        return size >= layout.structSize && size <= layout.structSize + CacheLayout.WRITER_SLACK;
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

    private ReadResult decode(ByteSource source, CacheLayout layout, int major, int minor, long size)
            throws IOException {
        List<CacheFileContent.Problem> problems = new ArrayList<>();
        ByteBuffer h = header.clear().limit(layout.procs);
        readFully(source, h, 0);
        ByteBuffer t = tail.clear().limit(layout.tailLength());
        readFully(source, t, layout.tailStart());

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
            devices.add(new CacheFileContent.Device(d, uuid, uuidProblem, unsigned(limit), unsigned(smLimit)));
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

        boolean seqlocked = layout.slotSeqlock != CacheLayout.ABSENT && minor >= CacheLayout.V1_SEQLOCK_MINOR;
        List<CacheFileContent.Slot> slots = seqlocked
                ? readSlotsUnderSeqlock(source, layout, procCount, deviceCount, problems)
                : readSlots(source, layout, procCount, deviceCount, problems);

        if (layout == CacheLayout.V1 && !seqlocked) {
            for (CacheFileContent.Slot slot : slots) {
                if (slot.live() && reservedInUse(layout, slot.index())) {
                    // Some 1.1-labelled builds moved the seqlock: their slots do not match this table.
                    return ReadResult.rejected(Reason.UNKNOWN_LAYOUT, "version 1." + minor + " but slot "
                            + slot.index() + " has data in the seqlock/reserved words, which 1.0/1.1 leave at 0;"
                            + " a build with a relocated seqlock?");
                }
            }
        }
        return ReadResult.of(new CacheFileContent(layout, major, minor, size, ownerPid, deviceNumRaw, devices,
                procNumRaw, slots, utilizationSwitch, recentKernel, priority,
                lastKernelTime, problems));
    }

    /** Reads slots without a seqlock (v0, v1.0, v1.1): one read; a slot can be half-written. */
    private List<CacheFileContent.Slot> readSlots(ByteSource source, CacheLayout layout, int procCount,
                                                  int deviceCount, List<CacheFileContent.Problem> problems)
            throws IOException {
        data = ensure(data, procCount * layout.slotSize);
        readFully(source, data, layout.procs);
        List<CacheFileContent.Slot> slots = new ArrayList<>(procCount);
        for (int p = 0; p < procCount; p++) {
            addSlot(slots, layout, data, p, deviceCount, problems);
        }
        return slots;
    }

    /**
     * Reads slots under their seqlocks. The seqlock words are read in one read, then the slots in a
     * second, then the seqlock words again in a third; a slot is consistent when its word was even and
     * unchanged across the two outer reads, since a writer bumps it to odd before touching the slot and
     * back to even after. Separate reads order those loads; within one read the kernel's copy order is
     * not a contract. Unsettled slots are re-read a bounded number of times, then skipped.
     */
    private List<CacheFileContent.Slot> readSlotsUnderSeqlock(ByteSource source, CacheLayout layout, int procCount,
                                                              int deviceCount,
                                                              List<CacheFileContent.Problem> problems)
            throws IOException {
        int length = procCount * layout.slotSize;
        before = ensure(before, length);
        data = ensure(data, length);
        after = ensure(after, length);
        readFully(source, before, layout.procs);
        CacheFileContent.Slot[] settled = new CacheFileContent.Slot[procCount];
        int low = 0;
        int high = procCount;
        for (int round = 0; round < SEQLOCK_ROUNDS && low < high; round++) {
            if (round > 0) {
                backOff(round);
            }
            // Later rounds re-read only the span of slots still unsettled; buffers keep file-relative offsets.
            int from = low * layout.slotSize;
            int to = high * layout.slotSize;
            readFully(source, data.limit(to).position(from), layout.procs + from);
            readFully(source, after.limit(to).position(from), layout.procs + from);
            int nextLow = high;
            int nextHigh = low;
            for (int p = low; p < high; p++) {
                if (settled[p] != null) {
                    continue;
                }
                int word = p * layout.slotSize + layout.slotSeqlock;
                long first = before.getLong(word);
                long last = after.getLong(word);
                if ((first & 1) == 0 && first == last && first == data.getLong(word)) {
                    List<CacheFileContent.Slot> one = new ArrayList<>(1);
                    addSlot(one, layout, data, p, deviceCount, problems);
                    // A slot with a bad status is settled too: it is skipped, not retried.
                    settled[p] = one.isEmpty() ? SKIPPED : one.get(0);
                } else {
                    before.putLong(word, last);
                    nextLow = Math.min(nextLow, p);
                    nextHigh = p + 1;
                }
            }
            low = nextLow;
            high = nextHigh;
        }
        List<CacheFileContent.Slot> slots = new ArrayList<>(procCount);
        for (int p = 0; p < procCount; p++) {
            if (settled[p] == null) {
                problems.add(new CacheFileContent.Problem(Kind.SLOT, Reason.SLOT_UNSETTLED,
                        "slot " + p + ": seqlock still moving after " + SEQLOCK_ROUNDS + " reads"));
            } else if (settled[p] != SKIPPED) {
                slots.add(settled[p]);
            }
        }
        return slots;
    }

    private static final CacheFileContent.Slot SKIPPED = new CacheFileContent.Slot(-1, 0, 0, 0, 0,
            new long[0], new long[0], new long[0], new long[0], new long[0]);

    private static void backOff(int round) {
        if (round < 4) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    private static void addSlot(List<CacheFileContent.Slot> into, CacheLayout layout, ByteBuffer slots, int p,
                                int deviceCount, List<CacheFileContent.Problem> problems) {
        int base = p * layout.slotSize;
        int status = slots.getInt(base + layout.slotStatus);
        if (status != CacheLayout.STATUS_FREE && status != CacheLayout.STATUS_RUNNING
                && status != CacheLayout.STATUS_SUSPENDED) {
            problems.add(new CacheFileContent.Problem(Kind.SLOT, Reason.BAD_STATUS,
                    "slot " + p + ": status " + status + " is none of 0 (free), 1 (running), 2 (suspended)"));
            return;
        }
        long[] context = new long[deviceCount];
        long[] module = new long[deviceCount];
        long[] dataBytes = new long[deviceCount];
        long[] total = new long[deviceCount];
        long[] sm = new long[deviceCount];
        boolean live = status != CacheLayout.STATUS_FREE;
        for (int d = 0; d < deviceCount; d++) {
            context[d] = unsigned(slots.getLong(base + layout.usedOffset(d, CacheLayout.USED_CONTEXT)));
            module[d] = unsigned(slots.getLong(base + layout.usedOffset(d, CacheLayout.USED_MODULE)));
            dataBytes[d] = unsigned(slots.getLong(base + layout.usedOffset(d, CacheLayout.USED_DATA)));
            total[d] = unsigned(slots.getLong(base + layout.usedOffset(d, CacheLayout.USED_TOTAL)));
            sm[d] = unsigned(slots.getLong(base + layout.utilOffset(d, CacheLayout.UTIL_SM)));
            // A live process counts; one figure beyond any card (or a "negative" uint64) discredits the slot.
            if (live && !(Quantities.isMemoryBytes(context[d]) && Quantities.isMemoryBytes(module[d])
                    && Quantities.isMemoryBytes(dataBytes[d]) && Quantities.isMemoryBytes(total[d])
                    && Quantities.isPercent(sm[d]))) {
                problems.add(new CacheFileContent.Problem(Kind.SLOT, Reason.NUMBER_OVERFLOW, "slot " + p
                        + " device " + d + ": memory or SM figures beyond what any card has (total "
                        + total[d] + ", context " + context[d] + ", module " + module[d] + ", data " + dataBytes[d]
                        + ", sm " + sm[d] + ")"));
                return;
            }
        }
        long seqlock = layout.slotSeqlock == CacheLayout.ABSENT ? 0 : slots.getLong(base + layout.slotSeqlock);
        into.add(new CacheFileContent.Slot(p, slots.getInt(base + layout.slotPid),
                slots.getInt(base + layout.slotHostPid), status, seqlock, context, module, dataBytes, total, sm));
    }

    private boolean reservedInUse(CacheLayout layout, int p) {
        int base = p * layout.slotSize;
        for (int at = layout.slotSeqlock; at < layout.slotSize; at += 8) {
            if (data.getLong(base + at) != 0) {
                return true;
            }
        }
        return false;
    }

    private void readFully(ByteSource source, ByteBuffer into, long position) throws IOException {
        int wanted = into.remaining();
        long at = position;
        while (into.hasRemaining()) {
            int n = source.read(into, at);
            if (n <= 0) {
                throw new EOFException("ended at byte " + at + " while " + wanted + " bytes from " + position
                        + " were expected: the file shrank while it was read");
            }
            at += n;
        }
    }

    private static ByteBuffer ensure(ByteBuffer buffer, int length) {
        ByteBuffer b = buffer.capacity() >= length ? buffer : allocate(length);
        return b.clear().limit(length);
    }

    private static ByteBuffer allocate(int length) {
        return ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static long clamp(long value, int max) {
        return value < 0 ? 0 : Math.min(value, max);
    }

    /** A C uint64 beyond what a long holds means nonsense; it saturates rather than turning negative. */
    static long unsigned(long value) {
        return value < 0 ? Long.MAX_VALUE : value;
    }
}
