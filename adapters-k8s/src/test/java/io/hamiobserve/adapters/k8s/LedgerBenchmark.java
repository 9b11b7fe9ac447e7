package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.ports.SkipReporter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Ledger figures at the scale of a large GPU cluster: 1,250 nodes x 8 cards (10,000 cards) and
 * 100,000 placed containers (50,000 pods, each one init container without GPU and two app
 * containers on one card). Run: {@code bin/bench adapters-k8s io.hamiobserve.adapters.k8s.LedgerBenchmark}.
 */
public final class LedgerBenchmark {
    private static final int NODES = 1_250;
    private static final int CARDS_PER_NODE = 8;
    private static final int PODS = 50_000;

    private LedgerBenchmark() {
    }

    public static void main(String[] args) {
        long before = heapAfterGc();
        Ledger ledger = new Ledger();
        List<String> uuids = new ArrayList<>(NODES * CARDS_PER_NODE);
        for (int n = 0; n < NODES; n++) {
            List<RegisteredCard> cards = new ArrayList<>(CARDS_PER_NODE);
            for (int c = 0; c < CARDS_PER_NODE; c++) {
                String uuid = String.format("GPU-%08x-0000-4000-8000-%012x", n, c);
                uuids.add(uuid);
                cards.add(new RegisteredCard(uuid, c, 10, 81559, 100, "NVIDIA H100 80GB HBM3", 0,
                        io.hamiobserve.domain.CardMode.HAMI_CORE, true));
            }
            ledger.putNode(node(n), cards);
        }
        List<PodPlacement> placements = new ArrayList<>(PODS);
        for (int p = 0; p < PODS; p++) {
            placements.add(placement(p, uuids, 4000));
        }
        long buildStart = System.nanoTime();
        placements.forEach(ledger::putPod);
        double buildMs = (System.nanoTime() - buildStart) / 1e6;
        placements = null;
        long after = heapAfterGc();
        System.out.printf("ledger: %,d nodes, %,d cards, %,d pods, %,d placed containers (built in %.0f ms)%n",
                NODES, uuids.size(), PODS, PODS * 2, buildMs);
        System.out.printf("ledger heap: %.1f MiB (target <= 512 MiB)%n", (after - before) / 1048576.0);

        long[] viewNanos = new long[7];
        int containers = 0;
        for (int i = 0; i < viewNanos.length; i++) {
            long start = System.nanoTime();
            containers = ledger.view().containers().size();
            viewNanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(viewNanos);
        System.out.printf("Ledger.view(): median %.1f ms over %d runs (%,d container rows)%n",
                viewNanos[viewNanos.length / 2] / 1e6, viewNanos.length, containers);

        // One pod event: an existing pod re-applied with a changed share (subtract old, add new).
        int events = 400_000;
        PodPlacement[] variants = new PodPlacement[2048];
        for (int i = 0; i < variants.length; i++) {
            variants[i] = placement(i * 7 % PODS, uuids, 4000 + i % 2);
        }
        for (int i = 0; i < events / 4; i++) { // warm-up
            ledger.putPod(variants[i % variants.length]);
        }
        long eventStart = System.nanoTime();
        for (int i = 0; i < events; i++) {
            ledger.putPod(variants[i % variants.length]);
        }
        double perEvent = (System.nanoTime() - eventStart) / (double) events;
        System.out.printf("pod event (Ledger.putPod on an existing pod): %.0f ns/event (target <= 50,000 ns)%n",
                perEvent);

        // Decode: fabric8 Pod with HAMi annotations to a PodPlacement.
        PodMapper mapper = new PodMapper(Vendors.load());
        Skips skips = new Skips(SkipReporter.NONE);
        Pod[] pods = new Pod[1024];
        for (int i = 0; i < pods.length; i++) {
            String uuid = uuids.get(i % uuids.size());
            pods[i] = Fixtures.pod("ns-" + i % 50, "pod-" + i, node(i % NODES),
                    ";" + uuid + ",NVIDIA,4000,25:;" + uuid + ",NVIDIA,4000,25:;", "main", "sidecar")
                    .editSpec().addToInitContainers(new io.fabric8.kubernetes.api.model.ContainerBuilder()
                            .withName("init").build()).endSpec().build();
        }
        int decodes = 300_000;
        long sink = 0;
        for (int i = 0; i < decodes / 3; i++) {
            sink += mapper.toPlacement(pods[i % pods.length], skips).orElseThrow().containers().size();
        }
        long decodeStart = System.nanoTime();
        for (int i = 0; i < decodes; i++) {
            sink += mapper.toPlacement(pods[i % pods.length], skips).orElseThrow().containers().size();
        }
        double perDecode = (System.nanoTime() - decodeStart) / (double) decodes;
        long annotationStart = System.nanoTime();
        String annotation = pods[0].getMetadata().getAnnotations().get(Fixtures.ALLOCATED);
        for (int i = 0; i < decodes; i++) {
            sink += AllocationDecoder.decode(annotation).containers().size();
        }
        double perAnnotation = (System.nanoTime() - annotationStart) / (double) decodes;
        System.out.printf("decode per pod (fabric8 Pod -> PodPlacement): %.0f ns; allocation annotation alone: %.0f ns"
                + " (checksum %d)%n", perDecode, perAnnotation, sink);
    }

    private static String node(int n) {
        return String.format("gpu-node-%04d", n);
    }

    // Pod p: an init container without GPU and two app containers sharing one card.
    private static PodPlacement placement(int p, List<String> uuids, long memoryMib) {
        String uuid = uuids.get(p % uuids.size());
        PodRef ref = new PodRef("ns-" + p % 50, "pod-" + p, "uid-" + p);
        return new PodPlacement(ref, node(p % NODES), PodPhase.RUNNING, true, List.of(
                new ContainerShares(0, "init", true, List.of()),
                new ContainerShares(1, "main", false, List.of(new DeviceShare(uuid, "NVIDIA", memoryMib, 25))),
                new ContainerShares(2, "sidecar", false, List.of(new DeviceShare(uuid, "NVIDIA", memoryMib, 25)))));
    }

    // Runtime rather than MemoryMXBean: the test sources compile into this module, which does not
    // (and should not) read java.management. Both report the same used heap.
    private static long heapAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
