package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.testkit.CacheFileImage;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Shared test images and byte surgery on them. */
final class Images {
    static final String GPU_A = "GPU-0055a2b0-7f4c-4b1c-9e3a-1d2c3b4a5f60";
    static final String GPU_B = "GPU-11aa22bb-33cc-44dd-55ee-66ff77889900";
    static final long GIB = 1L << 30;
    static final long MIB = 1L << 20;

    private Images() {
    }

    /** One device and one running process holding {@code dataBytes} of data (v1.2). */
    static CacheFileImage oneProcess(long dataBytes) {
        return CacheFileImage.v1(2).device(GPU_A, 8 * GIB, 30).lastKernelTime(1_760_000_000L)
                .process(101, 9101, CacheFileImage.DeviceUse.of(300 * MIB, 20 * MIB, dataBytes, 25)).build();
    }

    /** Two devices, two running processes and an exited one (v1.2). */
    static CacheFileImage.Builder twoDevices(CacheFileImage.Builder builder) {
        return builder
                .device(GPU_A, 8 * GIB, 30)
                .device(GPU_B, 4 * GIB, 0)
                .ownerPid(4242)
                .lastKernelTime(1_760_000_000L)
                .process(101, 9101, CacheFileImage.DeviceUse.of(300 * MIB, 20 * MIB, 1000 * MIB, 25),
                        CacheFileImage.DeviceUse.of(100 * MIB, 0, 50 * MIB, 5))
                .process(102, 9102, CacheFileImage.DeviceUse.of(300 * MIB, 10 * MIB, 2000 * MIB, 40))
                .process(new CacheFileImage.Process(103, 9103, CacheFileImage.STATUS_FREE,
                        List.of(CacheFileImage.DeviceUse.of(GIB, GIB, GIB, 99))));
    }

    static byte[] v12() {
        return twoDevices(CacheFileImage.v1(2)).build().toBytes();
    }

    static ByteBuffer le(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    static byte[] resized(byte[] bytes, int size) {
        byte[] copy = new byte[size];
        System.arraycopy(bytes, 0, copy, 0, Math.min(size, bytes.length));
        return copy;
    }

    /** Makes a FIFO at {@code path} with {@code mkfifo}; the test is skipped where there is none. */
    static Path fifo(Path path) throws IOException {
        Process mkfifo;
        try {
            mkfifo = new ProcessBuilder("mkfifo", path.toString()).start();
        } catch (IOException e) {
            assumeTrue(false, "no mkfifo: " + e.getMessage());
            throw e;
        }
        try {
            assumeTrue(mkfifo.waitFor() == 0, "mkfifo failed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("waiting for mkfifo");
        }
        return path;
    }

    static ReadResult read(byte[] bytes) {
        try {
            return new CacheFileReader().read(new InMemoryFile(bytes));
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    /** A file's bytes in memory, counting the bytes read from it. */
    static final class InMemoryFile implements ByteSource {
        private final byte[] bytes;
        long bytesRead;

        InMemoryFile(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public long size() {
            return bytes.length;
        }

        @Override
        public int read(ByteBuffer dst, long position) {
            if (position >= bytes.length) {
                return -1;
            }
            int n = (int) Math.min(dst.remaining(), bytes.length - position);
            dst.put(bytes, (int) position, n);
            bytesRead += n;
            return n;
        }
    }

    /** A reporter that remembers "kind/reason" of every skip. */
    static final class Recorder implements io.hamiobserve.ports.SkipReporter {
        final List<String> reasons = new ArrayList<>();
        final List<String> items = new ArrayList<>();

        @Override
        public synchronized void skipped(io.hamiobserve.ports.SkipKey key, String item) {
            if (!"cachefile".equals(key.source())) {
                throw new AssertionError("source " + key.source());
            }
            reasons.add(key.kind() + "/" + key.reason());
            items.add(item);
        }
    }
}
