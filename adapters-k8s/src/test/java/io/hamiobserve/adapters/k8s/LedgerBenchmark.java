package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.SkipReporter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Ledger figures at the scale of a large accelerator cluster: 1,250 nodes x 8 cards (10,000 cards;
 * 60% NVIDIA, 20% Ascend, 10% Hygon, 10% Moore Threads nodes) and 100,000 placed containers (50,000
 * pods, each one init container without a device and two app containers on one card), then one
 * pod event of each vendor family through the device providers. Run: {@code bin/bench adapters-k8s io.hamiobserve.adapters.k8s.LedgerBenchmark}.
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
            // A mixed fleet: 60% NVIDIA, 20% Ascend, 10% Hygon, 10% Moore Threads nodes.
            NodeKind kind = NodeKind.of(n);
            List<VendorCard> cards = new ArrayList<>(CARDS_PER_NODE);
            for (int c = 0; c < CARDS_PER_NODE; c++) {
                String uuid = String.format("GPU-%08x-0000-4000-8000-%012x", n, c);
                uuids.add(uuid);
                cards.add(new VendorCard(new RegisteredCard(uuid, c, 10, kind.memoryMib, kind.cores, kind.type, 0,
                        io.hamiobserve.domain.CardMode.HAMI_CORE, true), kind.backend, kind.units));
            }
            ledger.putVendorCards(node(n), cards);
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

        // One pod event of each vendor, as the informer delivers it: a fabric8 Pod through the
        // device providers into the big ledger (decode, subtract the old share, add the new one).
        LedgerFeed feed = new LedgerFeed(ledger, DeviceProviders.load(), new Skips(SkipReporter.NONE));
        long sink = 0;
        for (VendorPods vendor : VendorPods.values()) {
            Pod[] pods = new Pod[1024];
            for (int i = 0; i < pods.length; i++) {
                String uuid = uuids.get(i * 13 % uuids.size());
                long memory = 4000 + i % 2;
                pods[i] = Fixtures.pod("ns-" + i % 50, vendor.name().toLowerCase() + "-" + i / 2, node(i % NODES),
                        null, "main", "sidecar")
                        .editMetadata().withUid("uid-" + vendor + "-" + i / 2)
                        .addToAnnotations(vendor.key, ";" + vendor.device(uuid, memory) + ";" + vendor.device(uuid,
                                memory) + ";").endMetadata()
                        .editSpec().addToInitContainers(new io.fabric8.kubernetes.api.model.ContainerBuilder()
                                .withName("init").build()).endSpec().build();
            }
            int decodes = 200_000;
            for (int i = 0; i < decodes / 4; i++) { // warm-up
                feed.putPod(pods[i % pods.length]);
            }
            long start = System.nanoTime();
            for (int i = 0; i < decodes; i++) {
                feed.putPod(pods[i % pods.length]);
            }
            double perVendorEvent = (System.nanoTime() - start) / (double) decodes;
            sink += ledger.version();
            System.out.printf("pod event, %-9s (fabric8 Pod -> providers -> Ledger.putPod): %,6.0f ns/event "
                    + "(target <= 50,000 ns)%n", vendor.name().toLowerCase(), perVendorEvent);
        }
        System.out.printf("(checksum %d)%n", sink);
    }

    /** One allocation key per vendor family, each share as that vendor writes it. */
    private enum VendorPods {
        NVIDIA("hami.io/vgpu-devices-allocated", "NVIDIA"),
        ASCEND("hami.io/Ascend910B3-devices-allocated", "Ascend910B3"),
        HYGON("hami.io/dcu-devices-allocated", "DCU"),
        CAMBRICON("hami.io/cambricon-mlu-devices-allocated", "MLU"),
        MTHREADS("hami.io/mthreads-vgpu-devices-allocated", "Mthreads"),
        AWSNEURON("hami.io/aws-neuron-devices-allocated", "AWSNeuron"),
        AMD("hami.io/amd-devices-allocated", "AMD Instinct MI300X VF"),
        VASTAI("hami.io/Vastai-devices-allocated", "Vastai");

        final String key;
        final String type;

        VendorPods(String key, String type) {
            this.key = key;
            this.type = type;
        }

        String device(String uuid, long memory) {
            return uuid + "," + type + "," + memory + ",25:";
        }
    }

    private enum NodeKind {
        NVIDIA("NVIDIA", "NVIDIA H100 80GB HBM3", 81559, 100, DeviceUnits.MIB_AND_PERCENT),
        ASCEND("Ascend910B3", "Ascend910B3", 65536, 20, new DeviceUnits(MemoryUnit.MIB, CoreUnit.AI_CORES)),
        HYGON("DCU", "K100_AI", 65520, 100, DeviceUnits.MIB_AND_PERCENT),
        MTHREADS("Mthreads", "Mthreads", 16384, 16, new DeviceUnits(MemoryUnit.MIB, CoreUnit.CORE_SLICES));

        final String backend;
        final String type;
        final long memoryMib;
        final long cores;
        final DeviceUnits units;

        NodeKind(String backend, String type, long memoryMib, long cores, DeviceUnits units) {
            this.backend = backend;
            this.type = type;
            this.memoryMib = memoryMib;
            this.cores = cores;
            this.units = units;
        }

        static NodeKind of(int node) {
            int tenth = node % 10;
            return tenth < 6 ? NVIDIA : tenth < 8 ? ASCEND : tenth < 9 ? HYGON : MTHREADS;
        }
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
