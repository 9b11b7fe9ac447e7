package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import io.hamiobserve.adapters.cachefile.Skips.Kind;
import io.hamiobserve.adapters.cachefile.Skips.Reason;
import io.hamiobserve.domain.Quantities;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The process slots of a cache file: read in one go where the format has no seqlock, under the
 * per-slot seqlock protocol where it has one (v1.2). Each live slot's figures are checked against
 * {@link Quantities}' bounds; a slot beyond them, or with an unknown status, is skipped.
 *
 * <p>Holds the slot buffers for one reader (three copies for the seqlock protocol), reused across
 * the files of a scrape: its memory is bounded by the largest layout's slot array.
 */
final class SlotReader {
    /** Reads of a slot range before unsettled slots are given up on. */
    static final int SEQLOCK_ROUNDS = 16;

    private ByteBuffer before = allocate(0);
    private ByteBuffer data = allocate(0);
    private ByteBuffer after = allocate(0);

    /** Reads slots without a seqlock (v0, v1.0, v1.1): one read; a slot can be half-written. */
    List<CacheFileContent.Slot> readPlain(ByteSource source, CacheLayout layout, int procCount,
                                                  int deviceCount, List<CacheFileContent.Problem> problems)
            throws IOException {
        data = ensure(data, procCount * layout.slotSize);
        source.readFully(data, layout.procs);
        List<CacheFileContent.Slot> slots = new ArrayList<>(procCount);
        for (int p = 0; p < procCount; p++) {
            CacheFileContent.Slot slot = slot(layout, data, p, deviceCount, problems);
            if (slot != null) {
                slots.add(slot);
            }
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
    List<CacheFileContent.Slot> readUnderSeqlock(ByteSource source, CacheLayout layout, int procCount,
                                                              int deviceCount,
                                                              List<CacheFileContent.Problem> problems)
            throws IOException {
        int length = procCount * layout.slotSize;
        before = ensure(before, length);
        data = ensure(data, length);
        after = ensure(after, length);
        source.readFully(before, layout.procs);
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
            source.readFully(data.limit(to).position(from), layout.procs + from);
            source.readFully(after.limit(to).position(from), layout.procs + from);
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
                    CacheFileContent.Slot slot = slot(layout, data, p, deviceCount, problems);
                    // A slot with a bad status is settled too: it is skipped, not retried.
                    settled[p] = slot == null ? SKIPPED : slot;
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

    /** Slot {@code p}, or null when it is skipped (the problem is added). */
    private static CacheFileContent.Slot slot(CacheLayout layout, ByteBuffer slots, int p, int deviceCount,
                                              List<CacheFileContent.Problem> problems) {
        int base = p * layout.slotSize;
        int status = slots.getInt(base + layout.slotStatus);
        if (status != CacheLayout.STATUS_FREE && status != CacheLayout.STATUS_RUNNING
                && status != CacheLayout.STATUS_SUSPENDED) {
            problems.add(new CacheFileContent.Problem(Kind.SLOT, Reason.BAD_STATUS,
                    "slot " + p + ": status " + status + " is none of 0 (free), 1 (running), 2 (suspended)"));
            return null;
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
                return null;
            }
        }
        long seqlock = layout.slotSeqlock == CacheLayout.ABSENT ? 0 : slots.getLong(base + layout.slotSeqlock);
        return new CacheFileContent.Slot(p, slots.getInt(base + layout.slotPid),
                slots.getInt(base + layout.slotHostPid), status, seqlock, context, module, dataBytes, total, sm);
    }

    /** Whether the last slots read hold data in slot {@code p}'s seqlock and reserved words. */
    boolean reservedInUse(CacheLayout layout, int p) {
        int base = p * layout.slotSize;
        for (int at = layout.slotSeqlock; at < layout.slotSize; at += 8) {
            if (data.getLong(base + at) != 0) {
                return true;
            }
        }
        return false;
    }

    private static ByteBuffer ensure(ByteBuffer buffer, int length) {
        ByteBuffer b = buffer.capacity() >= length ? buffer : allocate(length);
        return b.clear().limit(length);
    }

    static ByteBuffer allocate(int length) {
        return ByteBuffer.allocate(length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    }

    /** A C uint64 beyond what a long holds means nonsense; it saturates rather than turning negative. */
    static long unsigned(long value) {
        return value < 0 ? Long.MAX_VALUE : value;
    }
}
