package io.hamiobserve.domain;

import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetState;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the console's kept fleet-wide readings cost beside the fleet now built from them (the
 * console keeps both so that one cluster's pages are served from them, {@link FleetReadings#inCluster}):
 * the heap of readings of {@code clusters} × {@code cards} cards and × {@code containers} containers,
 * every label a string of its own (as parsed from an engine's answer: an upper bound, as the state
 * shares some of them), then of its {@link FleetState}, and the time to narrow them to one cluster
 * and build its state. Run with
 * {@code java -cp domain/target/test-classes:domain/target/classes io.hamiobserve.domain.KeptReadingsBenchmark [clusters cards containers]}
 * (or {@code bin/bench domain io.hamiobserve.domain.KeptReadingsBenchmark}).
 */
public final class KeptReadingsBenchmark {
    private KeptReadingsBenchmark() {
    }

    public static void main(String[] args) {
        int clusters = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int cards = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int containers = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
        long before = PendingDemandBenchmark.heapAfterGc();
        FleetReadings readings = readings(clusters, cards, containers);
        long kept = PendingDemandBenchmark.heapAfterGc();
        FleetState state = FleetState.of(readings);
        long both = PendingDemandBenchmark.heapAfterGc();
        System.out.printf("%d clusters × %,d cards × %,d containers: the readings %.1f MiB (%.0f bytes a container),"
                        + " the state built from them %.1f MiB more%n", clusters, cards, containers,
                (kept - before) / 1048576.0, (kept - before) / (double) (clusters * containers),
                (both - kept) / 1048576.0);
        long[] narrowing = new long[21];
        for (int i = 0; i < narrowing.length; i++) {
            long start = System.nanoTime();
            FleetState one = FleetState.of(readings.inCluster("cluster-" + (i % clusters)).orElseThrow());
            narrowing[i] = System.nanoTime() - start;
            if (one.workloads().size() != containers) {
                throw new IllegalStateException("narrowed to " + one.workloads().size() + " workloads");
            }
        }
        java.util.Arrays.sort(narrowing);
        System.out.printf("one cluster's fleet now from them: %.1f ms median (min %.1f, max %.1f), %d workloads in all%n",
                narrowing[narrowing.length / 2] / 1e6, narrowing[0] / 1e6, narrowing[narrowing.length - 1] / 1e6,
                state.workloads().size());
    }

    private static FleetReadings readings(int clusters, int cards, int containers) {
        List<FleetReadings.Registered> registered = new ArrayList<>();
        List<FleetReadings.Host> hosts = new ArrayList<>();
        List<FleetReadings.Allocation> allocations = new ArrayList<>();
        List<FleetReadings.ContainerName> names = new ArrayList<>();
        List<FleetReadings.Use> uses = new ArrayList<>();
        for (int c = 0; c < clusters; c++) {
            for (int k = 0; k < cards; k++) {
                registered.add(new FleetReadings.Registered("gpu-node-" + k / 8, uuid(c, k), k % 8, "NVIDIA A100",
                        "hami-core", Figure.of(1), Figure.of(40e9), Figure.of(20e9), Figure.of(100), Figure.of(50),
                        Figure.of(3), Figure.of(10), Figure.of(50), "cluster-" + c));
                hosts.add(new FleetReadings.Host("gpu-node-" + k / 8, uuid(c, k), Figure.of(10e9), Figure.of(30),
                        Figure.of(50), Figure.of(200), Figure.of(0)));
            }
            for (int i = 0; i < containers; i++) {
                int card = i % cards;
                String namespace = "team-" + i % 50;
                String pod = "job-" + String.format("%05d", i) + "-7c9f";
                allocations.add(new FleetReadings.Allocation(namespace, pod, 0, "gpu-node-" + card / 8, uuid(c, card),
                        Figure.of(4e9), Figure.of(20), "cluster-" + c));
                names.add(new FleetReadings.ContainerName("team-" + i % 50, new String(pod), 0, "main", false,
                        "cluster-" + c));
                uses.add(new FleetReadings.Use("team-" + i % 50, new String(pod), "main", "gpu-node-" + card / 8,
                        uuid(c, card), Figure.of(2e9), Figure.of(30), Figure.of(3)));
            }
        }
        return new FleetReadings(Instant.ofEpochSecond(1_800_000_000), registered, hosts, allocations, names, uses,
                List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), Map.of(), Map.of());
    }

    private static String uuid(int cluster, int card) {
        return String.format("GPU-%08x-0000-4000-a000-%012x", cluster, card);
    }
}
