package io.hamiobserve.role.scheduler.bench;

import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.ports.SkipReporter;

import java.util.Arrays;

import static io.hamiobserve.role.scheduler.bench.AllocationScrapeBenchmark.median;
import static io.hamiobserve.role.scheduler.bench.AllocationScrapeBenchmark.pod;
import static io.hamiobserve.role.scheduler.bench.AllocationScrapeBenchmark.render;
import static io.hamiobserve.role.scheduler.bench.AllocationScrapeBenchmark.usedHeapAfterGc;

/**
 * The allocation endpoint sharded, at the scale of {@link AllocationScrapeBenchmark} (1,250 nodes ×
 * 8 cards, 100,000 containers): for 1, 2 and 4 shards, per shard, the nodes it owns, the size of
 * its exposition, its cold render (nothing kept), its full render after 100 pod events spread over
 * the cluster, and the heap its render cache holds. Each shard reads the whole ledger (quota use
 * and unregistered cards are sums over every node), so the ledger, measured once, is the same on
 * every shard; what sharding divides is the render, the render cache and the scrape.
 *
 * <p>Run: {@code bin/bench role-scheduler io.hamiobserve.role.scheduler.bench.ShardedAllocationBenchmark [nodes] [containers]}
 */
public final class ShardedAllocationBenchmark {
    private ShardedAllocationBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1_250;
        int containers = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int cardsPerNode = 8;
        System.out.printf("ledger: %,d nodes x %d cards, %,d containers; Prometheus text, no gzip%n", nodes,
                cardsPerNode, containers);
        long heapBefore = usedHeapAfterGc();
        Ledger[] holder = new Ledger[1];
        AllocationScrapeBenchmark.syntheticLedger(nodes, cardsPerNode, containers, holder)
                .start(new Ledger(), SkipReporter.NONE);
        Ledger ledger = holder[0];
        System.out.printf("ledger heap (every shard holds all of it): %.1f MiB%n",
                (usedHeapAfterGc() - heapBefore) / 1048576.0);
        int sequence = 0;
        for (int total : new int[] {1, 2, 4}) {
            long[] coldMedians = new long[total];
            for (int index = 0; index < total; index++) {
                Shard shard = new Shard(index, total);
                long heapLedger = usedHeapAfterGc();
                AllocationScrapeBenchmark.Rendering role = new AllocationScrapeBenchmark.Rendering(ledger, shard);
                AllocationScrapeBenchmark.ColdRenders colds = AllocationScrapeBenchmark.coldRenders(role, 5);
                long[] cold = colds.nanos();
                long heapRendered = usedHeapAfterGc();

                // 100 pod events anywhere in the cluster: a shard renders again only the nodes it owns.
                long[] after = new long[9];
                for (int i = 0; i < after.length; i++) {
                    for (int c = 0; c < 100; c++) {
                        int p = (sequence++ * 7919) % containers;
                        ledger.putPod(pod(p, nodes, cardsPerNode, 2048 + (sequence & 1)));
                    }
                    long start = System.nanoTime();
                    render(role, ExpositionFormat.PROMETHEUS_TEXT, false);
                    after[i] = System.nanoTime() - start;
                }
                int owned = 0;
                for (int n = 0; n < nodes; n++) {
                    owned += shard.ownsNode(String.format("gpu-node-%04d", n)) ? 1 : 0;
                }
                coldMedians[index] = median(cold);
                System.out.printf("shard %d of %d: %,d nodes, %,d bytes; cold render median %.0f ms (min %.0f); "
                                + "after 100 pod events median %.0f ms; render cache %.1f MiB%n",
                        index, total, owned, colds.bytes(), median(cold) / 1e6,
                        AllocationScrapeBenchmark.min(cold) / 1e6, median(after) / 1e6,
                        (heapRendered - heapLedger) / 1048576.0);
            }
            System.out.printf("%d shard(s): slowest shard's cold render median %.0f ms%n", total,
                    Arrays.stream(coldMedians).max().orElseThrow() / 1e6);
        }
    }
}
