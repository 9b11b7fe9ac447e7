package io.hamiobserve.domain;

import java.util.Arrays;
import java.util.List;

/**
 * What unmet demand costs at the ledger's bound: the heap of {@link Ledger#MAX_PENDING_PODS} pending
 * pods (names as long as real ones), one pending pod's update (the watch path), and one scrape's
 * view plus {@link PendingDemand#of} over all of them. Run with
 * {@code java -cp domain/target/test-classes:domain/target/classes io.hamiobserve.domain.PendingDemandBenchmark [pods]}
 * (or {@code bin/bench domain io.hamiobserve.domain.PendingDemandBenchmark}).
 */
public final class PendingDemandBenchmark {
    private PendingDemandBenchmark() {
    }

    public static void main(String[] args) {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : Ledger.MAX_PENDING_PODS;
        PendingReason[] reasons = PendingReason.values();
        long now = 1_800_000_000_000L;
        long before = heapAfterGc();
        Ledger ledger = new Ledger();
        for (int i = 0; i < count; i++) {
            // 36-character UIDs and 30-odd-character names, as a Job's pods have; held by the ledger only.
            ledger.putPending(new PendingPod(new PodRef("team-" + (i % 50), "batch-train-7f9c6d5b8-" + i,
                    String.format("5c0e%04x-1b2d-4c3e-8f4a-%012x", i & 0xffff, (long) i)), now - (i % 86_400) * 1000L,
                    reasons[i % reasons.length]));
        }
        long after = heapAfterGc();
        List<PendingPod> pods = ledger.view().pending();
        System.out.printf("pending pods: %,d; ledger heap for them %.1f MiB (%.0f bytes per pod, its strings included)%n",
                count, (after - before) / 1048576.0, (after - before) / (double) count);

        long[] updates = new long[20_000];
        for (int i = 0; i < updates.length; i++) {
            PendingPod pod = pods.get(i % count);
            PendingPod changed = new PendingPod(pod.pod(), pod.waitingSinceEpochMillis(),
                    reasons[(pod.reason().ordinal() + 1 + i) % reasons.length]);
            long start = System.nanoTime();
            ledger.putPending(changed);
            updates[i] = System.nanoTime() - start;
        }
        Arrays.sort(updates);
        System.out.printf("one pending pod's update: median %.1f µs, p99 %.1f µs%n", updates[updates.length / 2] / 1e3,
                updates[updates.length * 99 / 100] / 1e3);

        long[] scrapes = new long[30];
        int groups = 0;
        for (int i = 0; i < scrapes.length; i++) {
            long start = System.nanoTime();
            List<PendingPod> pending = ledger.view().pending();
            groups = PendingDemand.of(pending, now + i * 1000L).groups().size();
            scrapes[i] = System.nanoTime() - start;
        }
        Arrays.sort(scrapes);
        System.out.printf("view + PendingDemand.of over %,d pods (%d groups): median %.1f ms, max %.1f ms%n", count,
                groups, scrapes[scrapes.length / 2] / 1e6, scrapes[scrapes.length - 1] / 1e6);
    }

    /** The heap in use once the collector has run: what is reachable (the domain's benchmarks). */
    static long heapAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
