package io.hamiobserve.testkit;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A HAMi-Core shared cache file in the real binary layout, for the demo and tests: build one, write
 * it where HAMi-Core would, then change it in place the way HAMi-Core does (under the slot's
 * seqlock for version 1.2). Uses the same layout description as the reader
 * ({@link CacheLayout}).
 *
 * <p>Invariants: at most 16 devices and 1024 processes; a process lists usage for at most as many
 * devices as the image has (missing ones are zero); memory is in bytes, SM figures in percent.
 * Files are {@code sizeof(shared_region_t) + 1} bytes long, like HAMi-Core's.
 */
public final class CacheFileImage {
    /** Slot status of an exited process or a free slot. */
    public static final int STATUS_FREE = CacheLayout.STATUS_FREE;
    public static final int STATUS_RUNNING = CacheLayout.STATUS_RUNNING;
    public static final int STATUS_SUSPENDED = CacheLayout.STATUS_SUSPENDED;

    /**
     * One device position of the container.
     *
     * @param uuid           the card UUID (at most 95 ASCII bytes)
     * @param limitBytes     the memory limit, bytes
     * @param smLimitPercent the compute limit, percent; 0 writes "no limit"
     */
    public record Device(String uuid, long limitBytes, long smLimitPercent) {
        public Device {
            Objects.requireNonNull(uuid, "uuid");
            if (uuid.getBytes(StandardCharsets.US_ASCII).length >= CacheLayout.UUID_BYTES) {
                throw new IllegalArgumentException("uuid longer than " + (CacheLayout.UUID_BYTES - 1) + " bytes");
            }
        }
    }

    /**
     * One process's use of one device.
     *
     * @param totalBytes   what HAMi-Core counts against the limit (normally the sum of the other three)
     * @param smUtilPercent the process's SM utilisation, percent
     */
    public record DeviceUse(long contextBytes, long moduleBytes, long dataBytes, long totalBytes, long smUtilPercent) {
        /** A use whose total is context + module + data. */
        public static DeviceUse of(long contextBytes, long moduleBytes, long dataBytes, long smUtilPercent) {
            return new DeviceUse(contextBytes, moduleBytes, dataBytes, contextBytes + moduleBytes + dataBytes,
                    smUtilPercent);
        }
    }

    /**
     * One process slot.
     *
     * @param status  {@link #STATUS_RUNNING}, {@link #STATUS_SUSPENDED} or {@link #STATUS_FREE}
     * @param devices use per device position (index = position)
     */
    public record Process(int pid, int hostPid, int status, List<DeviceUse> devices) {
        public Process {
            devices = List.copyOf(devices);
            if (devices.size() > CacheLayout.MAX_DEVICES) {
                throw new IllegalArgumentException("at most " + CacheLayout.MAX_DEVICES + " devices");
            }
        }
    }

    private final CacheLayout layout;
    private final int minor;
    private final List<Device> devices;
    private final List<Process> processes;
    private final long ownerPid;
    private final long lastKernelTime;
    private final int priority;
    private final int utilizationSwitch;
    private final int recentKernel;

    private CacheFileImage(Builder b) {
        this.layout = b.layout;
        this.minor = b.minor;
        this.devices = List.copyOf(b.devices);
        this.processes = List.copyOf(b.processes);
        this.ownerPid = b.ownerPid;
        this.lastKernelTime = b.lastKernelTime;
        this.priority = b.priority;
        this.utilizationSwitch = b.utilizationSwitch;
        this.recentKernel = b.recentKernel;
    }

    /** A version 1.{@code minor} file (current HAMi-Core writes 1.2, the first with seqlocks). */
    public static Builder v1(int minor) {
        if (minor < 0 || minor > CacheLayout.V1_MAX_MINOR) {
            throw new IllegalArgumentException("known v1 minor versions are 0.." + CacheLayout.V1_MAX_MINOR);
        }
        return new Builder(CacheLayout.V1, minor);
    }

    /** A file of the layout before version fields existed (no last kernel time, no seqlock). */
    public static Builder v0() {
        return new Builder(CacheLayout.V0, 0);
    }

    /** The file's bytes: {@code sizeof(shared_region_t) + 1}. */
    public byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(layout.structSize + CacheLayout.WRITER_SLACK).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, CacheLayout.MAGIC);
        if (layout.hasVersion()) {
            b.putInt(layout.majorVersion, 1);
            b.putInt(layout.minorVersion, minor);
        }
        b.putInt(layout.smInitFlag, 1);
        if (layout.ownerPidBytes == 8) {
            b.putLong(layout.ownerPid, ownerPid);
        } else {
            b.putInt(layout.ownerPid, (int) ownerPid);
        }
        b.putLong(layout.deviceNum, devices.size());
        for (int d = 0; d < devices.size(); d++) {
            Device device = devices.get(d);
            b.put(layout.uuidOffset(d), device.uuid().getBytes(StandardCharsets.US_ASCII));
            b.putLong(layout.limit + d * 8, device.limitBytes());
            b.putLong(layout.smLimit + d * 8, device.smLimitPercent());
        }
        for (int p = 0; p < processes.size(); p++) {
            ByteBuffer slot = encodeSlot(layout, processes.get(p));
            b.put(layout.slotOffset(p), slot, 0, slot.capacity());
        }
        b.putInt(layout.procNum, processes.size());
        b.putInt(layout.utilizationSwitch, utilizationSwitch);
        b.putInt(layout.recentKernel, recentKernel);
        b.putInt(layout.priority, priority);
        if (layout.hasLastKernelTime()) {
            b.putLong(layout.lastKernelTime, lastKernelTime);
        }
        return b.array();
    }

    /**
     * Writes the file at {@code file}: to a temporary file in the same directory (whose name does not
     * end in {@code .cache}), then renamed over {@code file}, so that a reader sees the old or the new
     * file, never a partial one.
     */
    public void writeTo(Path file) throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        Path temporary = Files.createTempFile(directory, "." + file.getFileName(), ".tmp");
        try {
            Files.write(temporary, toBytes());
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /** Opens an existing cache file to change it in place, as HAMi-Core does. */
    public static Updater update(Path file) throws IOException {
        return new Updater(file);
    }

    private static ByteBuffer encodeSlot(CacheLayout layout, Process process) {
        ByteBuffer s = ByteBuffer.allocate(layout.slotSize).order(ByteOrder.LITTLE_ENDIAN);
        s.putInt(layout.slotPid, process.pid());
        s.putInt(layout.slotHostPid, process.hostPid());
        for (int d = 0; d < process.devices().size(); d++) {
            DeviceUse use = process.devices().get(d);
            s.putLong(layout.usedOffset(d, CacheLayout.USED_CONTEXT), use.contextBytes());
            s.putLong(layout.usedOffset(d, CacheLayout.USED_MODULE), use.moduleBytes());
            s.putLong(layout.usedOffset(d, CacheLayout.USED_DATA), use.dataBytes());
            s.putLong(layout.usedOffset(d, CacheLayout.USED_TOTAL), use.totalBytes());
            s.putLong(layout.slotMonitorUsed + d * 8, use.totalBytes());
            s.putLong(layout.utilOffset(d, CacheLayout.UTIL_SM), use.smUtilPercent());
        }
        s.putInt(layout.slotStatus, process.status());
        return s;
    }

    /** Builds an image; every field not set is zero. */
    public static final class Builder {
        private final CacheLayout layout;
        private final int minor;
        private final List<Device> devices = new ArrayList<>();
        private final List<Process> processes = new ArrayList<>();
        private long ownerPid;
        private long lastKernelTime;
        private int priority;
        private int utilizationSwitch;
        private int recentKernel;

        private Builder(CacheLayout layout, int minor) {
            this.layout = layout;
            this.minor = minor;
        }

        public Builder device(String uuid, long limitBytes, long smLimitPercent) {
            if (devices.size() == CacheLayout.MAX_DEVICES) {
                throw new IllegalStateException("at most " + CacheLayout.MAX_DEVICES + " devices");
            }
            devices.add(new Device(uuid, limitBytes, smLimitPercent));
            return this;
        }

        public Builder process(Process process) {
            if (processes.size() == CacheLayout.MAX_PROCS) {
                throw new IllegalStateException("at most " + CacheLayout.MAX_PROCS + " processes");
            }
            processes.add(Objects.requireNonNull(process));
            return this;
        }

        /** A running process using the given devices, by position. */
        public Builder process(int pid, int hostPid, DeviceUse... uses) {
            return process(new Process(pid, hostPid, STATUS_RUNNING, List.of(uses)));
        }

        /** Unix seconds of the last kernel launch (ignored by v0, which has no such field). */
        public Builder lastKernelTime(long epochSeconds) {
            this.lastKernelTime = epochSeconds;
            return this;
        }

        public Builder ownerPid(long pid) {
            this.ownerPid = pid;
            return this;
        }

        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        public Builder utilizationSwitch(int value) {
            this.utilizationSwitch = value;
            return this;
        }

        public Builder recentKernel(int value) {
            this.recentKernel = value;
            return this;
        }

        public CacheFileImage build() {
            for (Process process : processes) {
                if (process.devices().size() > devices.size()) {
                    throw new IllegalStateException("process " + process.pid() + " uses more devices than the file has");
                }
            }
            return new CacheFileImage(this);
        }
    }

    /**
     * Changes a cache file in place with positional writes, like a HAMi-Core process updating its
     * own slot. For version 1.2 files every slot write takes the slot's seqlock: the word goes odd,
     * the slot is written, the word goes even again. Not thread-safe; one updater per writer.
     */
    public static final class Updater implements Closeable {
        private final FileChannel channel;
        private final CacheLayout layout;
        private final boolean seqlocked;
        private final ByteBuffer word = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);

        private Updater(Path file) throws IOException {
            channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            try {
                // Which layout and version the file is, as HAMi-Core set it up.
                ByteBuffer prefix = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
                int read;
                do {
                    read = channel.read(prefix, prefix.position());
                } while (read > 0 && prefix.hasRemaining());
                layout = CacheLayout.ofSize(channel.size()).orElse(null);
                if (prefix.hasRemaining() || prefix.getInt(0) != CacheLayout.MAGIC || layout == null) {
                    throw new IOException(file + " is not a cache file this writer knows (" + channel.size()
                            + " bytes)");
                }
                int minor = layout.hasVersion() ? prefix.getInt(layout.minorVersion) : 0;
                seqlocked = layout.slotSeqlock != CacheLayout.ABSENT && minor >= CacheLayout.V1_SEQLOCK_MINOR;
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
        }

        /** Writes {@code process} into slot {@code slot}, under the seqlock where the version has one. */
        public void writeProcess(int slot, Process process) throws IOException {
            checkSlot(slot);
            ByteBuffer encoded = encodeSlot(layout, process);
            if (seqlocked) {
                beginSlotWrite(slot);
                writeFully(encoded.limit(layout.slotSeqlock), layout.slotOffset(slot));
                endSlotWrite(slot);
            } else {
                writeFully(encoded, layout.slotOffset(slot));
            }
        }

        /**
         * Makes the slot's seqlock odd: a write is in progress, as a writer that stops mid-write
         * leaves it; {@link #writeProcess} calls it itself.
         */
        public void beginSlotWrite(int slot) throws IOException {
            long value = seqlock(slot);
            putSeqlock(slot, (value & 1) == 0 ? value + 1 : value + 2);
        }

        /** Makes the slot's seqlock even again: the slot is consistent. */
        public void endSlotWrite(int slot) throws IOException {
            long value = seqlock(slot);
            putSeqlock(slot, (value & 1) == 1 ? value + 1 : value + 2);
        }

        /** Sets {@code proc_num}, the number of slots in use. */
        public void setProcNum(int procNum) throws IOException {
            writeFully(word.clear().putInt(0, procNum).limit(4), layout.procNum);
        }

        /** Sets {@code last_kernel_time} (unix seconds); v0 files have no such field. */
        public void setLastKernelTime(long epochSeconds) throws IOException {
            if (!layout.hasLastKernelTime()) {
                throw new UnsupportedOperationException("v0 files have no last kernel time");
            }
            writeFully(word.clear().putLong(0, epochSeconds), layout.lastKernelTime);
        }

        private long seqlock(int slot) throws IOException {
            requireSeqlock();
            ByteBuffer b = word.clear();
            long at = layout.slotOffset(slot) + layout.slotSeqlock;
            while (b.hasRemaining()) {
                if (channel.read(b, at + b.position()) < 0) {
                    throw new IOException("file ended inside slot " + slot);
                }
            }
            return b.getLong(0);
        }

        private void putSeqlock(int slot, long value) throws IOException {
            writeFully(word.clear().putLong(0, value), layout.slotOffset(slot) + layout.slotSeqlock);
        }

        private void requireSeqlock() {
            if (!seqlocked) {
                throw new UnsupportedOperationException("only version 1.2 files have slot seqlocks");
            }
        }

        private void checkSlot(int slot) {
            if (slot < 0 || slot >= CacheLayout.MAX_PROCS) {
                throw new IndexOutOfBoundsException("slot " + slot);
            }
        }

        private void writeFully(ByteBuffer b, long position) throws IOException {
            long at = position;
            while (b.hasRemaining()) {
                at += channel.write(b, at);
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
