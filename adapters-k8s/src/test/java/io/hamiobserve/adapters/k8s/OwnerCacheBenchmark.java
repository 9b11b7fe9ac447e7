package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.OwnerRef;
import io.hamiobserve.domain.PodController;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.ports.SkipReporter;

import java.lang.ref.Reference;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The owner cache at the scale of a large cluster: 100,000 HAMi pods, each controlled by one of
 * 20,000 ReplicaSets (5 pods each) of 4,000 Deployments, with their {@code pod-template-hash}
 * labels. Prints what the owner data costs in memory (the pods' controller references in the
 * ledger, the ReplicaSets as the ledger keeps them with the index of pods by owner, and the
 * informer's lean store of their identities) and per event (a ReplicaSet changing controller,
 * which re-resolves its 5 pods; a ReplicaSet's watch event read through the narrowed mapping;
 * a pod event). Targets: at most 64 MiB and 10 µs per event.
 * Run: {@code bin/bench adapters-k8s io.hamiobserve.adapters.k8s.OwnerCacheBenchmark}.
 */
public final class OwnerCacheBenchmark {
    private static final int PODS = 100_000;
    private static final int REPLICA_SETS = 20_000;
    private static final int DEPLOYMENTS = 4_000;
    private static final int NODES = 1_250;

    private OwnerCacheBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        String[] rsUids = new String[REPLICA_SETS];
        String[] deploymentUids = new String[DEPLOYMENTS];
        for (int i = 0; i < REPLICA_SETS; i++) {
            rsUids[i] = UUID.nameUUIDFromBytes(("rs" + i).getBytes()).toString();
        }
        for (int i = 0; i < DEPLOYMENTS; i++) {
            deploymentUids[i] = UUID.nameUUIDFromBytes(("deploy" + i).getBytes()).toString();
        }

        // The same pods without and with their controllers: the difference is what pods' owner data costs.
        long base = heapAfterGc();
        Ledger plain = new Ledger();
        for (int p = 0; p < PODS; p++) {
            plain.putPod(pod(p, false));
        }
        long plainHeap = heapAfterGc() - base;
        // Kept reachable up to here: the JIT may otherwise collect it before it is measured.
        Reference.reachabilityFence(plain);
        plain = null;
        base = heapAfterGc();
        Ledger ledger = new Ledger();
        for (int p = 0; p < PODS; p++) {
            ledger.putPod(pod(p, true));
        }
        long withControllers = heapAfterGc();
        long podOwnerData = withControllers - base - plainHeap;

        // The ReplicaSets, fed as the informer feeds them (fabric8 objects through LedgerFeed), and
        // the informer's lean store of their identities.
        LedgerFeed feed = new LedgerFeed(ledger, DeviceProviders.load(), new Skips(SkipReporter.NONE));
        LeanStore<ReplicaSet> store = new LeanStore<>(ReplicaSet::new);
        long feedStart = System.nanoTime();
        List<ReplicaSet> replicaSets = new java.util.ArrayList<>(REPLICA_SETS);
        for (int i = 0; i < REPLICA_SETS; i++) {
            ReplicaSet rs = replicaSet(i, rsUids[i], owner("Deployment", i % DEPLOYMENTS, deploymentUids));
            feed.putOwner(rs, InformerLedgerSource.REPLICA_SET);
            replicaSets.add(rs);
        }
        double feedMs = (System.nanoTime() - feedStart) / 1e6;
        // The lean store shares the identity strings the ledger's OwnerObjects hold, as in the informer;
        // the parsed objects are garbage once both have what they keep.
        replicaSets.forEach(rs -> store.put(store.getKey(rs), rs));
        replicaSets = null;
        long withOwners = heapAfterGc();
        Reference.reachabilityFence(store);
        long replicaSetCache = withOwners - withControllers;
        long owned = ledger.view().owners().stream().filter(owner -> owner.kind().equals("Deployment")).count();

        System.out.printf("owner cache: %,d pods (%,d nodes), %,d ReplicaSets, %,d Deployments; %,d pods named by "
                + "their Deployment (first %,d ReplicaSets fed in %.0f ms)%n", PODS, NODES, REPLICA_SETS, DEPLOYMENTS,
                owned, REPLICA_SETS, feedMs);
        System.out.printf("  the same pods without controllers: %.1f MiB of ledger%n", mib(plainHeap));
        System.out.printf("  pods' controller references and resolved owners in the ledger: %.1f MiB%n", mib(podOwnerData));
        System.out.printf("  ReplicaSets (the ledger's OwnerObjects and indexes, the informer's lean store): %.1f MiB%n",
                mib(replicaSetCache));
        System.out.printf("  owner cache total: %.1f MiB (target <= 64 MiB)%n", mib(podOwnerData + replicaSetCache));

        // A ReplicaSet event: its controller alternates between a Deployment and an Argo Rollout, so
        // each event re-resolves its 5 pods and changes their owner.
        int events = 200_000;
        ReplicaSet[][] variants = new ReplicaSet[2][2048];
        for (int v = 0; v < variants[0].length; v++) {
            int i = v * 9 % REPLICA_SETS;
            variants[0][v] = replicaSet(i, rsUids[i], owner("Deployment", i % DEPLOYMENTS, deploymentUids));
            variants[1][v] = replicaSet(i, rsUids[i], new OwnerReferenceBuilder().withApiVersion("argoproj.io/v1alpha1")
                    .withKind("Rollout").withName("rollout-" + i).withUid("rollout-uid-" + i).withController(true).build());
        }
        System.out.printf("one ReplicaSet event (LedgerFeed.putOwner, controller changed, 5 pods re-resolved): %s "
                + "(target <= 10 µs)%n", timed(events, e -> feed.putOwner(variants[(e / variants[0].length) % 2]
                [e % variants[0].length], InformerLedgerSource.REPLICA_SET)));

        // The same event as the watch delivers it: JSON read through the narrowed mapping, pod template skipped.
        KubernetesSerialization serialization = LedgerMapping.serialization();
        String[] json = new String[256];
        for (int v = 0; v < json.length; v++) {
            json[v] = new KubernetesSerialization().asJson(withTemplate(variants[v % 2][v]));
        }
        System.out.printf("one ReplicaSet watch event read from JSON (%d bytes, with its pod template) and applied: "
                + "%s%n", json[0].length(), timed(100_000, e -> feed.putOwner(serialization.unmarshal(
                json[e % json.length], ReplicaSet.class), InformerLedgerSource.REPLICA_SET)));

        // A pod event with its controller, for comparison: an existing pod re-applied with a changed share.
        PodPlacement[] pods = new PodPlacement[2048];
        for (int v = 0; v < pods.length; v++) {
            pods[v] = pod(v * 37 % PODS, true, 1000 + v % 2);
        }
        System.out.printf("one pod event (Ledger.putPod, owner resolved): %s%n",
                timed(events, e -> ledger.putPod(pods[e % pods.length])));
        if (store.size() != REPLICA_SETS) {
            throw new AssertionError("lean store holds " + store.size());
        }
    }

    /**
     * Per event, median of 7 rounds: the thread's CPU time (what the event costs; the build machine
     * is shared, so the wall clock also counts time the thread waited for a core) and the wall time.
     */
    private static String timed(int events, java.util.function.IntConsumer event) {
        long[] cpu = new long[7];
        long[] wall = new long[7];
        for (int round = 0; round < cpu.length; round++) {
            long cpuStart = threadCpuNanos();
            long start = System.nanoTime();
            for (int e = 0; e < events; e++) {
                event.accept(e);
            }
            wall[round] = (System.nanoTime() - start) / events;
            cpu[round] = (threadCpuNanos() - cpuStart) / events;
        }
        Arrays.sort(cpu);
        Arrays.sort(wall);
        return String.format("median %,d ns CPU (%,d ns wall) over %d rounds of %,d", cpu[cpu.length / 2],
                wall[wall.length / 2], cpu.length, events);
    }

    /** This thread's CPU time from Linux's scheduler statistics (the module reads no java.management). */
    private static long threadCpuNanos() {
        try {
            return Long.parseLong(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/thread-self/schedstat"))
                    .split(" ")[0]);
        } catch (java.io.IOException | RuntimeException notLinux) {
            return System.nanoTime();
        }
    }

    private static OwnerReference owner(String kind, int index, String[] uids) {
        return new OwnerReferenceBuilder().withApiVersion("apps/v1").withKind(kind).withName("serve-" + index)
                .withUid(uids[index]).withController(true).withBlockOwnerDeletion(true).build();
    }

    private static String hash(int replicaSet) {
        return String.format("%010x", replicaSet * 2654435761L & 0xffffffffffL);
    }

    private static String namespace(int replicaSet) {
        return "team-" + (replicaSet % DEPLOYMENTS) % 200;
    }

    private static ReplicaSet replicaSet(int i, String uid, OwnerReference owner) {
        return new ReplicaSetBuilder().withNewMetadata().withNamespace(namespace(i))
                .withName("serve-" + (i % DEPLOYMENTS) + "-" + hash(i)).withUid(uid)
                .withResourceVersion(Integer.toString(1000 + i))
                .addToLabels("app", "serve-" + (i % DEPLOYMENTS)).addToLabels("pod-template-hash", hash(i))
                .withOwnerReferences(owner).endMetadata().build();
    }

    private static ReplicaSet withTemplate(ReplicaSet rs) {
        return new ReplicaSetBuilder(rs).withNewSpec().withReplicas(5).withNewSelector()
                .addToMatchLabels("pod-template-hash", hash(0)).endSelector().withNewTemplate().withNewMetadata()
                .addToLabels("app", "serve").endMetadata().withNewSpec().addNewContainer().withName("serve")
                .withImage("registry.example/serve:1.2.3").addToArgs("--port", "8080", "--model", "/models/llm")
                .withNewResources().addToLimits("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("1"))
                .addToLimits("nvidia.com/gpumem", new io.fabric8.kubernetes.api.model.Quantity("8192")).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build();
    }

    private static PodPlacement pod(int p, boolean controlled) {
        return pod(p, controlled, 1000);
    }

    private static PodPlacement pod(int p, boolean controlled, long memoryMib) {
        int rs = p % REPLICA_SETS;
        String name = "serve-" + (rs % DEPLOYMENTS) + "-" + hash(rs) + "-" + Integer.toString(p, 36);
        PodRef ref = new PodRef(namespace(rs), name, UUID.nameUUIDFromBytes(("pod" + p).getBytes()).toString());
        String node = String.format("gpu-node-%04d", p % NODES);
        String uuid = String.format("GPU-%08x-0000-4000-8000-%012x", p % NODES, p % 8);
        PodPlacement placement = new PodPlacement(ref, node, PodPhase.RUNNING, true, List.of(
                new ContainerShares(0, "serve", false, List.of(new DeviceShare(uuid, "NVIDIA", memoryMib, 10)))));
        if (!controlled) {
            return placement;
        }
        // As the adapter maps them: each pod's own strings, the kind interned.
        OwnerRef controller = new OwnerRef("ReplicaSet".intern(), "serve-" + (rs % DEPLOYMENTS) + "-" + hash(rs),
                UUID.nameUUIDFromBytes(("rs" + rs).getBytes()).toString());
        return placement.withController(new PodController(Optional.of(controller), hash(rs)));
    }

    private static double mib(long bytes) {
        return bytes / 1048576.0;
    }

    private static long heapAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
