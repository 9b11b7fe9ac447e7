package io.hamiobserve.domain.fleet;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What right-sizing costs a page at a fleet's size, with every figure already read: the
 * per-container recommendations ({@link RightSizing#recommendAll}) and the per-workload ones
 * ({@link RightSizing#byWorkload}) that the workloads, right-sizing and capacity pages compute on
 * each visit. The fleet is the console benchmark's shape: per cluster 125 nodes × 8 cards and
 * 10,000 containers in 50 namespaces; half of them replicas of Deployments (four pods each), a
 * quarter a CronJob's pods (each with two more pods of its in the history, gone now), a quarter
 * pods of their own. Run with
 * {@code bin/bench domain io.hamiobserve.domain.fleet.RightSizingBenchmark [clusters] [containers per cluster]}.
 */
public final class RightSizingBenchmark {
    private static final double MIB = 1024 * 1024;

    private RightSizingBenchmark() {
    }

    public static void main(String[] args) {
        int clusters = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int perCluster = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        List<Workload> now = new ArrayList<>();
        List<UsageHistory.ShareHistory> shares = new ArrayList<>();
        for (int c = 0; c < clusters; c++) {
            String cluster = clusters == 1 ? "" : "cluster-" + (c + 1);
            for (int i = 0; i < perCluster; i++) {
                String namespace = "team-" + (i / 200) % 50;
                String node = String.format("gpu-node-%03d", (i / 80) % 125);
                String card = String.format("GPU-%08x-%04d-4000-a000-%012d", c, (i / 10) % 1000, i % 10);
                String kind;
                String owner;
                String pod;
                switch (i % 4) {
                    case 0, 1 -> {
                        kind = "Deployment";
                        owner = "serve-" + (i / 8);
                        pod = owner + "-7d9f8c6b5-" + Integer.toString(i, 36);
                    }
                    case 2 -> {
                        kind = "CronJob";
                        owner = "nightly-" + (i / 4);
                        pod = owner + "-29000000-" + Integer.toString(i, 36);
                    }
                    default -> {
                        kind = WorkloadGroup.BARE_POD;
                        pod = "job-" + String.format("%05d", i) + "-7c9f";
                        owner = pod;
                    }
                }
                WorkloadGroup group = new WorkloadGroup(cluster, namespace, kind, owner, "main");
                WorkloadRef ref = new WorkloadRef(namespace, pod, "main");
                now.add(new Workload(ref, node, List.of(new WorkloadShare(ref, 0, node, card, "A100",
                        Figure.of(4096 * MIB), Figure.of(30), Figure.of(1500 * MIB), Figure.of(12), Figure.of(4), 0))));
                shares.add(share(namespace, pod, card, group, i, 336));
                if (kind.equals("CronJob")) {
                    for (int past = 1; past <= 2; past++) {
                        shares.add(share(namespace, owner + "-2899999" + past + "-" + Integer.toString(i, 36), card,
                                group, i + past, 2));
                    }
                }
            }
        }
        UsageHistory history = new UsageHistory(Instant.EPOCH, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY,
                shares, Map.of(), Map.of());
        System.out.printf("%d cluster(s) × %,d containers: %,d running, %,d shares in the history%n", clusters,
                perCluster, now.size(), shares.size());
        time("RightSizing.recommendAll (each container)", () -> RightSizing.recommendAll(now, history).size());
        time("RightSizing.byWorkload (each workload)", () -> RightSizing.byWorkload(now, history).size());
    }

    private static UsageHistory.ShareHistory share(String namespace, String pod, String card, WorkloadGroup group,
                                                   int seed, long hours) {
        double peak = (1000 + seed % 2000) * MIB;
        return new UsageHistory.ShareHistory(namespace, pod, "main", card, Figure.of(peak), Figure.of(20 + seed % 60),
                hours * 60, hours * 30, Figure.of(25), group, Figure.of(peak * 0.8), Figure.of(10 + seed % 30), hours);
    }

    /** Ten calls to warm up, then the median and maximum of thirty. */
    private static void time(String what, Supplier<Integer> call) {
        int rows = 0;
        for (int i = 0; i < 10; i++) {
            rows = call.get();
        }
        long[] took = new long[30];
        for (int i = 0; i < took.length; i++) {
            long start = System.nanoTime();
            rows = call.get();
            took[i] = System.nanoTime() - start;
        }
        Arrays.sort(took);
        System.out.printf("  %-45s %,7d rows: median %6.1f ms, max %6.1f ms%n", what, rows,
                took[took.length / 2] / 1e6, took[took.length - 1] / 1e6);
    }
}
