package io.hamiobserve.adapters.nvml;

import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.ports.SkipReporter;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Time and allocation of one {@code read()} of 8 scripted cards (4 processes each) on the fake NVML
 * library, through the real JNA path and the worker thread.
 *
 * <p>Allocation is counted on both threads that take part: the caller (the scrape thread) and the
 * NVML worker, via {@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}. The fake
 * re-reads its script file at every device count, so the time includes one small file read that
 * a real driver does not do.
 *
 * <p>Run: {@code bin/bench adapters-nvml io.hamiobserve.adapters.nvml.NvmlReadBenchmark [reads]}
 */
public final class NvmlReadBenchmark {
    private NvmlReadBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int reads = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int warmup = Math.max(2_000, reads / 5);
        Path dir = Files.createTempDirectory("nvml-bench");
        FakeNvml fake = FakeNvml.create(FakeNvml.CURRENT, dir);
        StringBuilder script = new StringBuilder();
        for (int card = 0; card < 8; card++) {
            script.append(FakeNvml.card("GPU-%08d-0000-4000-8000-000000000000".formatted(card), "NVIDIA H100 80GB HBM3",
                    80L << 30, (long) card << 30, 10 * card, 5 * card, 40 + card, 300_000 + card, "00000000:%02X:00.0".formatted(card)));
        }
        for (int card = 0; card < 8; card++) {
            script.append("procs ").append(card);
            for (int p = 0; p < 4; p++) {
                script.append(' ').append(10_000 + card * 10 + p).append(':').append((p + 1L) << 28);
            }
            script.append('\n');
        }
        fake.script(script.toString());

        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        java.util.Set<Thread> before = NvmlHostCardsTest.nvmlThreads();
        try (NvmlHostCards source = Nvml.open(List.of(fake.libraryPath()), Duration.ofSeconds(2), Duration.ZERO, 32)) {
            for (int i = 0; i < warmup; i++) {
                check(source.read(SkipReporter.NONE));
            }
            long worker = NvmlHostCardsTest.onlyNewThread(before).threadId();
            long caller = Thread.currentThread().threadId();
            long callerBefore = threads.getThreadAllocatedBytes(caller);
            long workerBefore = threads.getThreadAllocatedBytes(worker);
            long[] nanos = new long[reads];
            for (int i = 0; i < reads; i++) {
                long start = System.nanoTime();
                List<HostCardReading> cards = source.read(SkipReporter.NONE);
                nanos[i] = System.nanoTime() - start;
                check(cards);
            }
            long callerBytes = threads.getThreadAllocatedBytes(caller) - callerBefore;
            long workerBytes = threads.getThreadAllocatedBytes(worker) - workerBefore;
            Arrays.sort(nanos);
            System.out.printf("NVML read of 8 cards x 4 processes, %d reads after %d warm-up (JDK %s)%n",
                    reads, warmup, Runtime.version());
            System.out.printf("  time per read: median %.1f us, p99 %.1f us, max %.1f us%n",
                    nanos[reads / 2] / 1e3, nanos[(int) (reads * 0.99)] / 1e3, nanos[reads - 1] / 1e3);
            System.out.printf("  allocated per read: %d bytes on the caller + %d bytes on the NVML worker = %d bytes%n",
                    callerBytes / reads, workerBytes / reads, (callerBytes + workerBytes) / reads);
        }
    }

    private static void check(List<HostCardReading> cards) {
        if (cards.size() != 8 || cards.get(7).processes().orElseThrow().size() != 4) {
            throw new IllegalStateException("unexpected reading: " + cards);
        }
    }
}
