package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.testkit.CacheFileImage;
import io.hamiobserve.testkit.ScratchDirectory;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.ports.SkipReporter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * A node's scrape: 200 container directories, each with a v1.2 file holding 4 live processes on
 * 1 to 4 devices; times full reads of all of them. Run with
 * {@code bin/bench adapters-cachefile io.hamiobserve.adapters.cachefile.CacheFileReadBenchmark [CONTAINERS] [ROUNDS] [opening]}:
 * {@code opening} reads without kept channels, every file opened and closed at every read, as a
 * node's first scrape does (each open handed to {@link OpenDeadline}'s thread).
 */
public final class CacheFileReadBenchmark {
    private CacheFileReadBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int containers = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        boolean opening = args.length > 2 && args[2].equals("opening");
        try (ScratchDirectory scratch = ScratchDirectory.create("cachefile-bench")) {
            Path root = scratch.path();
            for (int c = 0; c < containers; c++) {
                int devices = 1 + c % 4;
                CacheFileImage.Builder builder = CacheFileImage.v1(2).lastKernelTime(1_760_000_000L + c);
                for (int d = 0; d < devices; d++) {
                    builder.device("GPU-bench-" + d, 8L << 30, 50);
                }
                for (int p = 0; p < 4; p++) {
                    CacheFileImage.DeviceUse[] uses = new CacheFileImage.DeviceUse[devices];
                    Arrays.fill(uses, CacheFileImage.DeviceUse.of(300L << 20, 20L << 20, (long) (c + p) << 20, 10));
                    builder.process(100 + p, 10_000 + c * 10 + p, uses);
                }
                Path directory = Files.createDirectories(root.resolve(String.format("pod-%04d_main", c)));
                builder.build().writeTo(directory.resolve("f" + c + ".cache"));
            }
            CacheFileSource source = new CacheFileSource(root, !opening);
            long[] skipped = new long[1];
            SkipReporter skips = (key, item) -> skipped[0]++;
            for (int i = 0; i < Math.max(50, rounds / 5); i++) {
                source.read(skips);
            }
            long[] nanos = new long[rounds];
            long[] allocated = new long[rounds];
            // HotSpot's per-thread allocation counter, called reflectively: the module reads neither
            // java.management nor jdk.management (the benchmark runs on the class path).
            Object threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            java.lang.reflect.Method allocatedBytes = Class.forName("com.sun.management.ThreadMXBean")
                    .getMethod("getCurrentThreadAllocatedBytes");
            long bytes = 0;
            int served = 0;
            Runtime runtime = Runtime.getRuntime();
            for (int i = 0; i < rounds; i++) {
                long readBefore = bytesReadByThisThread();
                long allocatedBefore = (long) allocatedBytes.invoke(threads);
                long start = System.nanoTime();
                List<ContainerUsage> usages = source.read(skips);
                nanos[i] = System.nanoTime() - start;
                allocated[i] = (long) allocatedBytes.invoke(threads) - allocatedBefore;
                bytes = bytesReadByThisThread() - readBefore;
                served = usages.size();
            }
            Arrays.sort(nanos);
            Arrays.sort(allocated);
            System.out.printf("containers %d (v1.2, 4 live processes, 1-4 devices), rounds %d, %s%n", containers, rounds,
                    opening ? "every file opened at every read" : "kept channels");
            System.out.printf("full read: median %.2f ms, p99 %.2f ms, max %.2f ms%n", nanos[rounds / 2] / 1e6,
                    nanos[(int) Math.min(rounds - 1, Math.ceil(rounds * 0.99) - 1)] / 1e6, nanos[rounds - 1] / 1e6);
            System.out.printf("allocated per scrape: median %.1f KiB (%.0f bytes per container)%n",
                    allocated[rounds / 2] / 1024.0, (double) allocated[rounds / 2] / containers);
            System.out.printf("bytes read per scrape (the kernel's count of this thread's reads): %d (%.1f KiB, %.0f "
                            + "per container; files hold %d bytes each)%n",
                    bytes, bytes / 1024.0, (double) bytes / containers, CacheLayout.V1.structSize + 1);
            System.out.printf("containers served %d, skips %d, heap in use after %.1f MiB%n", served, skipped[0],
                    (runtime.totalMemory() - runtime.freeMemory()) / 1048576.0);
        }
    }

    /**
     * What the kernel counts as read by this thread ({@code rchar} of {@code /proc/thread-self/io}):
     * every read and pread, file data only (directory listings are not reads).
     */
    private static long bytesReadByThisThread() throws java.io.IOException {
        for (String line : Files.readAllLines(Path.of("/proc/thread-self/io"))) {
            if (line.startsWith("rchar:")) {
                return Long.parseLong(line.substring("rchar:".length()).trim());
            }
        }
        throw new IllegalStateException("no rchar in /proc/thread-self/io");
    }
}
