package io.hamiobserve.domain;

import java.util.ArrayList;
import java.util.List;

/**
 * What a cluster-sized ledger costs: one pod update (the watch path) and one view (every scrape).
 * Run with {@code bin/bench domain io.hamiobserve.domain.LedgerBenchmark [nodes] [cardsPerNode] [podsPerCard]}.
 */
public final class LedgerBenchmark {
    private LedgerBenchmark() {
    }

    public static void main(String[] args) {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        int cardsPerNode = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int podsPerCard = args.length > 2 ? Integer.parseInt(args[2]) : 4;

        Ledger ledger = new Ledger();
        List<PodPlacement> pods = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            String node = "node-" + n;
            List<RegisteredCard> cards = new ArrayList<>();
            for (int c = 0; c < cardsPerNode; c++) {
                String uuid = "GPU-" + n + "-" + c;
                cards.add(new RegisteredCard(uuid, c, 10, 81559, 100, "NVIDIA H100 80GB HBM3", 0, CardMode.HAMI_CORE,
                        true));
                for (int p = 0; p < podsPerCard; p++) {
                    PodRef pod = new PodRef("ns-" + (p % 20), "pod-" + n + "-" + c + "-" + p, "uid-" + n + "-" + c + "-" + p);
                    pods.add(new PodPlacement(pod, node, PodPhase.RUNNING, false, List.of(
                            new ContainerShares(0, "main", false, List.of(new DeviceShare(uuid, "NVIDIA", 8192, 20))))));
                }
            }
            ledger.putNode(node, cards);
        }
        pods.forEach(ledger::putPod);
        System.out.printf("ledger: %d nodes, %d cards, %d pods%n", nodes, nodes * cardsPerNode, pods.size());

        // Alternate two placements per pod so that every update is a real change.
        int updates = 200_000;
        for (int round = 0; round < 2; round++) {
            long start = System.nanoTime();
            for (int i = 0; i < updates; i++) {
                PodPlacement original = pods.get(i % pods.size());
                ledger.putPod((i / pods.size() + round) % 2 == 0 ? withCores(original, 30) : original);
            }
            long elapsed = System.nanoTime() - start;
            System.out.printf("putPod: %.2f us per update (%d updates)%n", elapsed / 1e3 / updates, updates);
        }

        int views = 50;
        long checksum = 0;
        for (int round = 0; round < 2; round++) {
            long start = System.nanoTime();
            for (int i = 0; i < views; i++) {
                checksum += ledger.view().containers().size();
            }
            long elapsed = System.nanoTime() - start;
            System.out.printf("view: %.2f ms per view (%d views)%n", elapsed / 1e6 / views, views);
        }
        System.out.println("checksum " + checksum);
    }

    private static PodPlacement withCores(PodPlacement placement, long cores) {
        ContainerShares container = placement.containers().get(0);
        DeviceShare share = container.devices().get(0);
        return new PodPlacement(placement.pod(), placement.node(), placement.phase(), false, List.of(
                new ContainerShares(0, container.name(), false,
                        List.of(new DeviceShare(share.uuid(), share.vendor(), share.memoryMib(), cores)))));
    }
}
