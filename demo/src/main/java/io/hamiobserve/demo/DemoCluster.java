package io.hamiobserve.demo;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.domain.PendingPod;
import io.hamiobserve.domain.PendingReason;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.QuotaLimit;
import io.hamiobserve.domain.QuotaResource;
import io.hamiobserve.domain.RegisteredCard;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The embedded cluster of the demo: two NVIDIA GPU nodes with cards of three models, a node of
 * Ascend NPUs (allocation view only), a dozen pods and two quotas, chosen so that every interesting case is on screen at once:
 * <ul>
 *   <li>the brief's pod that asks for 8192 MiB and uses about 2100 MiB ({@code ml-team/llm-inference});</li>
 *   <li>a card shared by three containers (node-a card 0);</li>
 *   <li>a pod with an init container and two app containers on one card ({@code vision/train-resnet});</li>
 *   <li>a container with two cards; a container without a GPU;</li>
 *   <li>a container started with {@code CUDA_DISABLE_CONTROL=true} ({@code research/cuda-sim}): no
 *       HAMi-Core accounting, and it uses more than its share, so host use exceeds the allocation;</li>
 *   <li>a finished pod (not counted), a pod on a card no node registers, a MIG instance.</li>
 * </ul>
 * Everything here is fixed; {@link DemoWorkload} makes the use move over time.
 */
public final class DemoCluster {
    public static final String NODE_A = "gpu-node-a";
    public static final String NODE_B = "gpu-node-b";
    /**
     * A node of another vendor (Huawei Ascend 910B3, in template mode): its cards and shares are in
     * the allocation view; its usage comes from the vendor's own exporter, so it has no usage view here.
     */
    public static final String NPU_NODE = "npu-node-c";
    private static final String ASCEND = "Ascend910B3";
    private static final DeviceUnits ASCEND_UNITS = new DeviceUnits(MemoryUnit.MIB, CoreUnit.AI_CORES);

    private static final String A100 = "NVIDIA-NVIDIA A100-SXM4-40GB";
    private static final String H100 = "NVIDIA H100 80GB HBM3";
    private static final String V100 = "NVIDIA-Tesla V100-SXM2-32GB";

    /**
     * A simulated card: its registration, the driver's name for it, and the HAMi backend and units
     * its figures are in.
     */
    public record Card(String node, RegisteredCard registration, String driverName, String backend,
                       DeviceUnits units) {
        /** Whether this demo simulates the card's driver (NVML) and its containers' HAMi-Core files. */
        public boolean nvidia() {
            return backend.equals(Ledger.NVIDIA_BACKEND);
        }

        public VendorCard vendorCard() {
            return new VendorCard(registration, backend, units);
        }
    }

    /**
     * A simulated container and how it uses each of its cards.
     *
     * @param name          container name
     * @param init          init container
     * @param shares        what the scheduler gave it
     * @param baseUseMib    its typical memory use per share (same order as {@code shares})
     * @param managed       whether HAMi-Core runs in it (false: {@code CUDA_DISABLE_CONTROL=true})
     * @param running       whether it runs now (finished init containers do not)
     */
    public record Container(String name, boolean init, List<DeviceShare> shares, List<Long> baseUseMib,
                            boolean managed, boolean running) {
    }

    /** A simulated pod. */
    public record Pod(PodRef ref, String node, PodPhase phase, List<Container> containers, List<MigInstance> mig) {
        public PodPlacement placement() {
            List<ContainerShares> shares = new ArrayList<>();
            boolean initFinished = containers.stream().filter(Container::init).noneMatch(Container::running);
            for (int i = 0; i < containers.size(); i++) {
                Container container = containers.get(i);
                shares.add(new ContainerShares(i, container.name(), container.init(), container.shares()));
            }
            return new PodPlacement(ref, node, phase, initFinished, shares, mig);
        }
    }

    private final List<Card> cards = new ArrayList<>();
    private final List<Pod> pods = new ArrayList<>();
    private final List<QuotaLimit> quotas = new ArrayList<>();
    private final List<Waiting> waiting = new ArrayList<>();

    /**
     * A pod that requests a HAMi resource and that no node fits: unmet demand, with the
     * {@code PodScheduled} message kube-scheduler would write from HAMi's filter failures.
     *
     * @param waitedMinutes how long before the workload's clock it was created
     */
    public record Waiting(PodRef ref, long waitedMinutes, String message) {
        /** As the Kubernetes adapter keeps it: the message mapped onto its reason, then dropped. */
        public PendingPod pending(long nowEpochMillis) {
            return new PendingPod(ref, nowEpochMillis - waitedMinutes * 60_000,
                    PendingReason.of("False", "Unschedulable", message));
        }
    }

    /**
     * The PodScheduled message of the evaluation job while it is withdrawn: HAMi finds no card with
     * 20 GiB free on the node it asks for.
     */
    static final String EVAL_JOB_WAITING = "0/3 nodes are available: 1 node(s) didn't match Pod's node "
            + "affinity/selector, 2 2/3 CardInsufficientMemory.";

    private DemoCluster() {
    }

    /** The demo's cluster. */
    public static DemoCluster standard() {
        DemoCluster cluster = new DemoCluster();
        for (int i = 0; i < 4; i++) {
            cluster.card(NODE_A, uuid("a100", i), i, 10, 40960, A100, "NVIDIA A100-SXM4-40GB", CardMode.HAMI_CORE);
        }
        cluster.card(NODE_B, uuid("h100", 0), 0, 10, 81559, H100, "NVIDIA H100 80GB HBM3", CardMode.HAMI_CORE);
        cluster.card(NODE_B, uuid("h100", 1), 1, 7, 81559, H100, "NVIDIA H100 80GB HBM3", CardMode.MIG);
        cluster.card(NODE_B, uuid("v100", 0), 2, 10, 32768, V100, "Tesla V100-SXM2-32GB", CardMode.HAMI_CORE);

        String a0 = uuid("a100", 0);
        String a1 = uuid("a100", 1);
        String a2 = uuid("a100", 2);
        String a3 = uuid("a100", 3);
        String h0 = uuid("h100", 0);
        String h1 = uuid("h100", 1);
        String v0 = uuid("v100", 0);

        cluster.pod("ml-team", "llm-inference-7d9f", 1, NODE_A, PodPhase.RUNNING,
                app("server", share(a0, 8192, 30), 2100));
        cluster.pod("ml-team", "notebook-alice", 2, NODE_A, PodPhase.RUNNING,
                app("jupyter", share(a0, 4096, 20), 3000));
        cluster.pod("ml-team", "notebook-bob", 3, NODE_A, PodPhase.RUNNING,
                app("jupyter", share(a0, 4096, 20), 1200));
        cluster.pod("vision", "train-resnet-0", 4, NODE_A, PodPhase.RUNNING,
                new Container("fetch-weights", true, List.of(share(a1, 2048, 10)), List.of(1500L), true, false),
                app("trainer", share(a1, 16384, 50), 15000),
                app("metrics-sidecar", share(a1, 1024, 5), 300));
        cluster.pod("vision", "batch-embed", 5, NODE_A, PodPhase.RUNNING,
                new Container("worker", false, List.of(share(a2, 10240, 40), share(a3, 10240, 40)),
                        List.of(9000L, 8800L), true, true));
        cluster.pod("research", "cuda-sim", 6, NODE_A, PodPhase.RUNNING,
                new Container("sim", false, List.of(share(a2, 2048, 10)), List.of(6144L), false, true));

        cluster.pod("research", "eval-job", 7, NODE_B, PodPhase.RUNNING,
                app("eval", share(h0, 20480, 50), 17000));
        cluster.pod("serving", "api-gateway", 8, NODE_B, PodPhase.RUNNING,
                app("api", share(v0, 8192, 25), 6000),
                new Container("cache", false, List.of(), List.of(), true, true));
        cluster.pod("serving", "reranker", 9, NODE_B, PodPhase.RUNNING,
                app("model", share(v0, 12288, 30), 11000));
        cluster.pod("research", "eval-job-next", 10, NODE_B, PodPhase.PENDING,
                app("eval", share(h0, 20480, 50), 0));
        cluster.pod("default", "nightly-report", 11, NODE_B, PodPhase.SUCCEEDED,
                app("report", share(h0, 4096, 10), 0));
        cluster.pods.add(new Pod(podRef("research", "mig-tuner", 12), NODE_B, PodPhase.RUNNING,
                List.of(new Container("tuner", false, List.of(share(h1, 10240, 14)), List.of(7000L), true, true)),
                List.of(new MigInstance(0, 0, h1, "1g.10gb", 0, 1, "MIG-" + uuid("mig", 0).substring(4), 7, 0))));
        cluster.pod("ml-team", "legacy-trainer", 13, NODE_B, PodPhase.RUNNING,
                app("train", share(uuid("gone", 0), 4096, 20), 0));

        // Ascend in template mode: each card registers its AI cores, shares hold memory and 0 cores.
        for (int i = 0; i < 2; i++) {
            cluster.cards.add(new Card(NPU_NODE, new RegisteredCard("NPU-910B3-" + i, i, 7, 65536, 20, ASCEND, 0,
                    CardMode.HAMI_CORE, true), ASCEND, ASCEND, ASCEND_UNITS));
        }
        cluster.pod("ml-team", "npu-infer", 14, NPU_NODE, PodPhase.RUNNING,
                app("server", new DeviceShare("NPU-910B3-0", ASCEND, 16384, 0), 0));
        cluster.pod("vision", "npu-finetune", 15, NPU_NODE, PodPhase.RUNNING,
                app("trainer", new DeviceShare("NPU-910B3-1", ASCEND, 32768, 0), 0));

        // Unmet demand: two pods pending for memory (a 70B fine-tune wants 80 GiB on one card, a
        // ViT 48 GiB on an A100 of 40), one held back by its namespace's GPU quota.
        cluster.waiting.add(new Waiting(podRef("ml-team", "llm-finetune-70b", 16), 95,
                "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
                        + "2 3/3 CardInsufficientMemory."));
        cluster.waiting.add(new Waiting(podRef("vision", "train-vit-huge", 17), 25,
                "0/3 nodes are available: 3 4/4 CardInsufficientMemory."));
        cluster.waiting.add(new Waiting(podRef("ml-team", "notebook-carol", 18), 8,
                "0/3 nodes are available: 3 ResourceQuotaNotFit."));

        cluster.quotas.add(new QuotaLimit("ml-team", "gpu-quota", QuotaResource.GPU_MEMORY_MIB, 40960));
        cluster.quotas.add(new QuotaLimit("ml-team", "gpu-quota", QuotaResource.GPU_CORES_PERCENT, 200));
        cluster.quotas.add(new QuotaLimit("vision", "gpu-quota", QuotaResource.GPU_MEMORY_MIB, 65536));
        return cluster;
    }

    public List<Card> cards() {
        return List.copyOf(cards);
    }

    public List<Card> cards(String node) {
        return cards.stream().filter(card -> card.node().equals(node)).toList();
    }

    /** The NVIDIA nodes: those with a usage view (a simulated driver and HAMi-Core files). */
    public List<String> nodes() {
        return cards.stream().filter(Card::nvidia).map(Card::node).distinct().toList();
    }

    /** Every node that registers cards with the scheduler, of any vendor. */
    public List<String> registeringNodes() {
        return cards.stream().map(Card::node).distinct().toList();
    }

    public List<Pod> pods() {
        return List.copyOf(pods);
    }

    /** The pods that wait for a GPU all the time (the evaluation job waits on odd minutes besides). */
    public List<Waiting> waiting() {
        return List.copyOf(waiting);
    }

    public List<Pod> pods(String node) {
        return pods.stream().filter(pod -> pod.node().equals(node)).toList();
    }

    /** Quota limits by ResourceQuota object name, per namespace. */
    public Map<String, Map<String, List<QuotaLimit>>> quotas() {
        return quotas.stream().collect(Collectors.groupingBy(QuotaLimit::namespace,
                Collectors.groupingBy(QuotaLimit::quotaObject)));
    }

    private void card(String node, String uuid, int index, int count, long memoryMib, String type, String driverName,
                      CardMode mode) {
        cards.add(new Card(node, new RegisteredCard(uuid, index, count, memoryMib, 100, type, 0, mode, true),
                driverName, Ledger.NVIDIA_BACKEND, DeviceUnits.MIB_AND_PERCENT));
    }

    private void pod(String namespace, String name, int serial, String node, PodPhase phase, Container... containers) {
        pods.add(new Pod(podRef(namespace, name, serial), node, phase, List.of(containers), List.of()));
    }

    private static Container app(String name, DeviceShare share, long useMib) {
        return new Container(name, false, List.of(share), List.of(useMib), true, true);
    }

    private static DeviceShare share(String uuid, long memoryMib, long cores) {
        return new DeviceShare(uuid, "NVIDIA", memoryMib, cores);
    }

    private static PodRef podRef(String namespace, String name, int serial) {
        return new PodRef(namespace, name, String.format("5c0e%04x-1b2d-4c3e-8f4a-%012x", serial, serial * 7919L));
    }

    /** Stable, UUID-shaped card ids that say what they are. */
    static String uuid(String model, int index) {
        long tag = 0;
        for (char c : model.toCharArray()) {
            tag = tag * 31 + c;
        }
        return String.format("GPU-%08x-%04x-4%03x-a%03x-%012x", tag & 0xFFFFFFFFL, index, index, index,
                (tag * 131 + index) & 0xFFFFFFFFFFFFL);
    }
}
