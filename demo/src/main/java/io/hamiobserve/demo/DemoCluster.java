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
import io.hamiobserve.domain.OwnerObject;
import io.hamiobserve.domain.OwnerRef;
import io.hamiobserve.domain.PodController;
import io.hamiobserve.domain.PodOwner;
import io.hamiobserve.domain.PendingPod;
import io.hamiobserve.domain.PendingReason;
import io.hamiobserve.domain.PodLifecycle;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.QuotaLimit;
import io.hamiobserve.domain.QuotaResource;
import io.hamiobserve.domain.RegisteredCard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The embedded cluster of the demo: two NVIDIA GPU nodes with cards of three models, a node of
 * Ascend NPUs (usage from the Ascend plugin's HAMi-named endpoint and npu-exporter, {@link DemoAscend}),
 * about twenty pods and two quotas, chosen so that every interesting case is on screen at once. The
 * pods run as real clusters run them: Deployments (pods of a ReplicaSet {@code <deploy>-<hash>},
 * with the {@code pod-template-hash}), StatefulSets, a DaemonSet, Jobs, a CronJob's Jobs, an
 * operator's resource (PyTorchJob) and one bare pod ({@link Controller}).
 * <ul>
 *   <li>the brief's workload that asks for 8192 MiB and uses about 2100 MiB: Deployment
 *       {@code ml-team/llm-inference}, two replicas, which rolled out a new ReplicaSet
 *       {@link #ROLLOUT_AGO} (new pod names, the same use);</li>
 *   <li>a card shared by three containers (node-a card 0);</li>
 *   <li>a pod with an init container and two app containers on one card ({@code vision/train-resnet});</li>
 *   <li>a container with two cards; a container without a GPU;</li>
 *   <li>a container started with {@code CUDA_DISABLE_CONTROL=true} ({@code research/cuda-sim}): no
 *       HAMi-Core accounting, and it uses more than its share, so host use exceeds the allocation;</li>
 *   <li>a finished pod (not counted: the CronJob's last Job), a pod on a card no node registers, a MIG instance;</li>
 *   <li>stuck things: a ghost allocation (a pod whose container never started holds its share), a
 *       zombie process (on a card, covered by no share), pods pending for memory.</li>
 * </ul>
 * One definition serves the present and the past: each pod has a {@link Life} relative to the
 * present, and {@link #at} gives the cluster at any instant of its history (the live simulation is
 * {@code at(0)}). {@link DemoWorkload} makes the use move over time.
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

    /**
     * A simulated pod.
     *
     * @param controller what controls it, as its owner references and the API server's ReplicaSets and Jobs say
     * @param life       when it lived, relative to the present
     */
    public record Pod(PodRef ref, String node, PodPhase phase, List<Container> containers, List<MigInstance> mig,
                      Controller controller, Life life) {
        public PodPlacement placement() {
            return placement(PodLifecycle.NOT_KNOWN);
        }

        /**
         * The pod as the ledger holds it at {@code nowMillis}: placed when its life began (at most the
         * history's week before), started unless it is Pending with no container running (the ghost).
         */
        public PodPlacement placement(long nowMillis) {
            // On a whole hour, so that every role the demo runs (the whole endpoint, each shard),
            // loading its ledger at its own instant, says the same moment.
            long hour = Duration.ofHours(1).toMillis();
            long placed = Math.floorDiv(nowMillis - Math.min(life.bornAgo().toMillis(), Duration.ofDays(7).toMillis()),
                    hour) * hour;
            boolean started = phase != PodPhase.PENDING || containers.stream().anyMatch(Container::running);
            return placement(new PodLifecycle(placed, false, PodLifecycle.UNKNOWN_TIME, started));
        }

        private PodPlacement placement(PodLifecycle lifecycle) {
            List<ContainerShares> shares = new ArrayList<>();
            boolean initFinished = containers.stream().filter(Container::init).noneMatch(Container::running);
            for (int i = 0; i < containers.size(); i++) {
                Container container = containers.get(i);
                shares.add(new ContainerShares(i, container.name(), container.init(), container.shares()));
            }
            return new PodPlacement(ref, node, phase, initFinished, shares, mig, controller.podController(), lifecycle);
        }

        /** The same pod in another phase. */
        Pod in(PodPhase other) {
            return other == phase ? this : new Pod(ref, node, other, containers, mig, controller, life);
        }
    }

    /**
     * When a pod lived, as durations before the present (the demo's start): it exists from
     * {@code bornAgo} until {@code goneAgo}, and is Succeeded from {@code finishedAgo} on.
     * {@link #NEVER} is "not before the present".
     */
    public record Life(Duration bornAgo, Duration finishedAgo, Duration goneAgo) {
        static final Duration NEVER = Duration.ofSeconds(-1);
        static final Duration BEFORE_HISTORY = Duration.ofDays(10_000);
        static final Life ALWAYS = new Life(BEFORE_HISTORY, NEVER, NEVER);

        static Life since(Duration ago) {
            return new Life(ago, NEVER, NEVER);
        }

        static Life until(Duration ago) {
            return new Life(BEFORE_HISTORY, NEVER, ago);
        }

        /** The pod's phase {@code ago} before the present, or empty when it did not exist then. */
        Optional<PodPhase> phase(PodPhase declared, Duration ago) {
            if (ago.compareTo(bornAgo) > 0 || ago.compareTo(goneAgo) <= 0) {
                return Optional.empty();
            }
            return Optional.of(ago.compareTo(finishedAgo) <= 0 ? PodPhase.SUCCEEDED : declared);
        }
    }

    /**
     * A pod's controller as the cluster records it: the pod's {@code controller: true} owner
     * reference and {@code pod-template-hash} label, the intermediate owner the API server holds
     * (a ReplicaSet, a Job, with its own controller reference), and the top controller an operator
     * knows, which the scheduler role must name (the owner labels of {@code hami_observe_container_info}).
     *
     * @param podPrefix    the pods' names start with it ({@code <prefix>-<suffix>}); a bare pod's name
     */
    public record Controller(String namespace, String podPrefix, Optional<OwnerRef> ref, String templateHash,
                             Optional<OwnerObject> intermediate, PodOwner workload) {
        static Controller deployment(String namespace, String name, String templateHash) {
            String replicaSet = name + "-" + templateHash;
            OwnerRef rs = ref(namespace, "ReplicaSet", replicaSet);
            return new Controller(namespace, replicaSet, Optional.of(rs), templateHash,
                    Optional.of(new OwnerObject("ReplicaSet", namespace, replicaSet, rs.uid(),
                            Optional.of(ref(namespace, "Deployment", name)))), new PodOwner("Deployment", name));
        }

        static Controller statefulSet(String namespace, String name) {
            return operator(namespace, "StatefulSet", name);
        }

        static Controller daemonSet(String namespace, String name) {
            return operator(namespace, "DaemonSet", name);
        }

        /** A kind whose objects are not cached (StatefulSet, DaemonSet, an operator's resource): the pod's reference names it. */
        static Controller operator(String namespace, String kind, String name) {
            return new Controller(namespace, name, Optional.of(ref(namespace, kind, name)), "", Optional.empty(),
                    new PodOwner(kind, name));
        }

        /** A Job nothing controls. */
        static Controller job(String namespace, String name) {
            OwnerRef job = ref(namespace, "Job", name);
            return new Controller(namespace, name, Optional.of(job), "",
                    Optional.of(new OwnerObject("Job", namespace, name, job.uid(), Optional.empty())),
                    new PodOwner("Job", name));
        }

        /** A CronJob, whose {@link #job} makes each of its Jobs. */
        static Controller cronJob(String namespace, String name) {
            return new Controller(namespace, name, Optional.of(ref(namespace, "CronJob", name)), "", Optional.empty(),
                    new PodOwner("CronJob", name));
        }

        /** The CronJob's Job number {@code n}: {@code <cronjob>-<n>}, controlled by it. */
        Controller job(long n) {
            String name = podPrefix + "-" + n;
            OwnerRef job = ref(namespace, "Job", name);
            return new Controller(namespace, name, Optional.of(job), "",
                    Optional.of(new OwnerObject("Job", namespace, name, job.uid(), ref)), workload);
        }

        /** A pod nothing controls: its own workload. */
        static Named bare(String namespace, String name) {
            return new Named(new Controller(namespace, name, Optional.empty(), "", Optional.empty(),
                    new PodOwner(PodOwner.POD, name)), name);
        }

        /** One of its pods, {@code <prefix>-<suffix>}. */
        Named pod(String suffix) {
            return new Named(this, podPrefix + "-" + suffix);
        }

        /** What the pod itself says (its owner reference and template hash). */
        public PodController podController() {
            return new PodController(ref, templateHash);
        }

        private static OwnerRef ref(String namespace, String kind, String name) {
            return new OwnerRef(kind, name, UUID.nameUUIDFromBytes((namespace + "/" + kind + "/" + name)
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString());
        }
    }

    /** A pod's name under its controller. */
    record Named(Controller controller, String name) {
    }

    /**
     * A process on a card that no HAMi share covers: the driver lists it, but no cache file and no
     * pod's cgroup names it (a zombie of the stuck list).
     */
    public record Stray(String node, String uuid, long pid, long useMib, long smUtilPercent) {
    }

    private final List<Card> cards = new ArrayList<>();
    /** The pods that exist now (at the instant this cluster stands for). */
    private final List<Pod> pods = new ArrayList<>();
    /** Every pod over the history, with its life. */
    private final List<Pod> history = new ArrayList<>();
    private final List<Stray> strays = new ArrayList<>();
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

    /** How long before the present the brief's Deployment rolled out its new ReplicaSet. */
    public static final Duration ROLLOUT_AGO = Duration.ofHours(3 * 24 + 5);
    /** How long before the present the CronJob's last Job started; the others started a day apart before. */
    public static final Duration LAST_REPORT_AGO = Duration.ofHours(6);
    /** How long each of the CronJob's Jobs runs. */
    public static final Duration REPORT_RUNS = Duration.ofMinutes(45);
    /** How many of the CronJob's Jobs the history holds (one a day, the last one finished now). */
    public static final int REPORT_JOBS = 8;
    /**
     * The last Job's number: the CronJob controller names a Job after its scheduled time in
     * minutes since the epoch, so the Jobs before it are {@value} − 1440 × k.
     */
    static final long LAST_REPORT_JOB = 29_436_480L;
    /** The pending evaluation job's pod, placed and withdrawn by the minute. */
    static final String EVAL_JOB_NEXT = "eval-job-next-master-0";

    /** The demo's cluster, as it is now; {@link #at} gives it at an instant of its past. */
    public static DemoCluster standard() {
        return standard(0);
    }

    /**
     * The demo's {@code ordinal}-th simulated cluster (from 0), as it is now: the same nodes and pods
     * as the first (real clusters' names often are), on cards of its own: a GPU's UUID is unique in
     * the world, so each cluster's cards have their own ({@link #uuid(int, String, int)}).
     */
    public static DemoCluster standard(int ordinal) {
        DemoCluster cluster = new DemoCluster();
        for (int i = 0; i < 4; i++) {
            cluster.card(NODE_A, uuid(ordinal, "a100", i), i, 10, 40960, A100, "NVIDIA A100-SXM4-40GB", CardMode.HAMI_CORE);
        }
        cluster.card(NODE_B, uuid(ordinal, "h100", 0), 0, 10, 81559, H100, "NVIDIA H100 80GB HBM3", CardMode.HAMI_CORE);
        cluster.card(NODE_B, uuid(ordinal, "h100", 1), 1, 7, 81559, H100, "NVIDIA H100 80GB HBM3", CardMode.MIG);
        cluster.card(NODE_B, uuid(ordinal, "v100", 0), 2, 10, 32768, V100, "Tesla V100-SXM2-32GB", CardMode.HAMI_CORE);

        String a0 = uuid(ordinal, "a100", 0);
        String a1 = uuid(ordinal, "a100", 1);
        String a2 = uuid(ordinal, "a100", 2);
        String a3 = uuid(ordinal, "a100", 3);
        String h0 = uuid(ordinal, "h100", 0);
        String h1 = uuid(ordinal, "h100", 1);
        String v0 = uuid(ordinal, "v100", 0);

        // The brief's workload: a Deployment of two replicas, each asking 8192 MiB and using about
        // 2100. It rolled out a new ReplicaSet (new pod names, the same use) ROLLOUT_AGO.
        Controller llm = Controller.deployment("ml-team", "llm-inference", "7d9f8c6b5");
        Controller llmBefore = Controller.deployment("ml-team", "llm-inference", "5c4b7f9d8");
        cluster.pod(llm.pod("x2k4q"), 1, NODE_A, PodPhase.RUNNING, Life.since(ROLLOUT_AGO),
                app("server", share(a0, 8192, 30), 2100));
        cluster.pod(llm.pod("m8w2n"), 19, NODE_A, PodPhase.RUNNING, Life.since(ROLLOUT_AGO),
                app("server", share(a1, 8192, 30), 2100));
        cluster.pod(llmBefore.pod("q7t2z"), 20, NODE_A, PodPhase.RUNNING, Life.until(ROLLOUT_AGO),
                app("server", share(a0, 8192, 30), 2100));
        cluster.pod(llmBefore.pod("h4p9d"), 21, NODE_A, PodPhase.RUNNING, Life.until(ROLLOUT_AGO),
                app("server", share(a1, 8192, 30), 2100));
        // Kubeflow's notebooks: a StatefulSet each (the Notebook resource above it is not followed).
        cluster.pod(Controller.statefulSet("ml-team", "notebook-alice").pod("0"), 2, NODE_A, PodPhase.RUNNING,
                Life.ALWAYS, app("jupyter", share(a0, 4096, 20), 3000));
        cluster.pod(Controller.statefulSet("ml-team", "notebook-bob").pod("0"), 3, NODE_A, PodPhase.RUNNING,
                Life.ALWAYS, app("jupyter", share(a0, 4096, 20), 1200));
        cluster.pod(Controller.statefulSet("vision", "train-resnet").pod("0"), 4, NODE_A, PodPhase.RUNNING,
                Life.ALWAYS,
                new Container("fetch-weights", true, List.of(share(a1, 2048, 10)), List.of(1500L), true, false),
                app("trainer", share(a1, 16384, 50), 15000),
                app("metrics-sidecar", share(a1, 1024, 5), 300));
        cluster.pod(Controller.job("vision", "batch-embed").pod("5kq8w"), 5, NODE_A, PodPhase.RUNNING, Life.ALWAYS,
                new Container("worker", false, List.of(share(a2, 10240, 40), share(a3, 10240, 40)),
                        List.of(9000L, 8800L), true, true));
        // The one bare pod: a researcher's hand-run simulation, outside HAMi-Core.
        cluster.pod(Controller.bare("research", "cuda-sim"), 6, NODE_A, PodPhase.RUNNING, Life.ALWAYS,
                new Container("sim", false, List.of(share(a2, 2048, 10)), List.of(6144L), false, true));

        // An operator's resource: Kubeflow's PyTorchJob, reported as it is.
        cluster.pod(Controller.operator("research", "PyTorchJob", "eval-job").pod("master-0"), 7, NODE_B,
                PodPhase.RUNNING, Life.ALWAYS, app("eval", share(h0, 20480, 50), 17000));
        cluster.pod(Controller.deployment("serving", "api-gateway", "6f7c9d8b4").pod("2vxkq"), 8, NODE_B,
                PodPhase.RUNNING, Life.ALWAYS, app("api", share(v0, 8192, 25), 6000),
                new Container("cache", false, List.of(), List.of(), true, true));
        cluster.pod(Controller.deployment("serving", "reranker", "58d6c7b9f4").pod("j9wzt"), 9, NODE_B,
                PodPhase.RUNNING, Life.ALWAYS, app("model", share(v0, 12288, 30), 11000));
        cluster.pod(Controller.operator("research", "PyTorchJob", "eval-job-next").pod("master-0"), 10, NODE_B,
                PodPhase.PENDING, Life.ALWAYS, app("eval", share(h0, 20480, 50), 0));
        // A CronJob: one Job a day, 45 minutes each; the ledger keeps the last finished one's pod
        // (Succeeded: not counted) until the next one finishes.
        Controller report = Controller.cronJob("default", "nightly-report");
        for (int k = 0; k < REPORT_JOBS; k++) {
            Duration started = LAST_REPORT_AGO.plusDays(k);
            Duration finished = started.minus(REPORT_RUNS);
            Duration gone = k == 0 ? Life.NEVER : LAST_REPORT_AGO.plusDays(k - 1).minus(REPORT_RUNS);
            cluster.pod(report.job(LAST_REPORT_JOB - 1440L * k).pod(suffix(k)), 11 + 0x100 * (k + 1), NODE_B,
                    PodPhase.RUNNING, new Life(started, finished, gone), app("report", share(h0, 4096, 10), 3500));
        }
        cluster.history.add(new Pod(podRef("research", "mig-tuner-74c9f6d5b8-p2xrl", 12), NODE_B, PodPhase.RUNNING,
                List.of(new Container("tuner", false, List.of(share(h1, 10240, 14)), List.of(7000L), true, true)),
                List.of(new MigInstance(0, 0, h1, "1g.10gb", 0, 1, "MIG-" + uuid(ordinal, "mig", 0).substring(4), 7, 0)),
                Controller.deployment("research", "mig-tuner", "74c9f6d5b8"), Life.ALWAYS));
        cluster.pod(Controller.statefulSet("ml-team", "legacy-trainer").pod("0"), 13, NODE_B, PodPhase.RUNNING,
                Life.ALWAYS, app("train", share(uuid(ordinal, "gone", 0), 4096, 20), 0));
        // A DaemonSet: a model cache on every NVIDIA node, each with a small share.
        Controller cache = Controller.daemonSet("serving", "triton-model-cache");
        cluster.pod(cache.pod("8kq2x"), 22, NODE_A, PodPhase.RUNNING, Life.ALWAYS,
                app("cache", share(a3, 1024, 5), 700));
        cluster.pod(cache.pod("r4m7z"), 23, NODE_B, PodPhase.RUNNING, Life.ALWAYS,
                app("cache", share(v0, 1024, 5), 700));
        // A ghost allocation: placed and holding its share, but its container never started (the
        // image cannot be pulled), so the pod stays Pending with no use and no HAMi-Core file.
        cluster.pod(Controller.deployment("ml-team", "embed-api", "6c5d9f7b8").pod("zq4ht"), 24, NODE_B,
                PodPhase.PENDING, Life.ALWAYS,
                new Container("embed", false, List.of(share(h0, 4096, 10)), List.of(0L), true, false));

        // Ascend in template mode: each card registers its AI cores, shares hold memory and 0 cores.
        for (int i = 0; i < 2; i++) {
            cluster.cards.add(new Card(NPU_NODE, new RegisteredCard(ascendDieId(ordinal, i), i, 7, 65536, 20, ASCEND, 0,
                    CardMode.HAMI_CORE, true), ASCEND, ASCEND, ASCEND_UNITS));
        }
        cluster.pod(Controller.deployment("ml-team", "npu-infer", "6d8f7c9b5").pod("t5vnb"), 14, NPU_NODE,
                PodPhase.RUNNING, Life.ALWAYS, app("server", new DeviceShare(ascendDieId(ordinal, 0), ASCEND, 16384, 0), 12000));
        cluster.pod(Controller.job("vision", "npu-finetune").pod("w8r3j"), 15, NPU_NODE, PodPhase.RUNNING,
                Life.ALWAYS, app("trainer", new DeviceShare(ascendDieId(ordinal, 1), ASCEND, 32768, 0), 29000));

        // A zombie: a process on gpu-node-a's card 3 that no HAMi share covers (started on the host,
        // outside Kubernetes): the driver lists it, no container's cache file or cgroup names it.
        cluster.strays.add(new Stray(NODE_A, a3, 39_017, 1536, 12));

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
        return cluster.at(Duration.ZERO);
    }

    /**
     * The cluster {@code ago} before the present: the pods that lived then, in the phase they had
     * (the rollout's old ReplicaSet before it, the CronJob's Job of that day). Everything else is
     * the same cluster.
     */
    public DemoCluster at(Duration ago) {
        DemoCluster then = new DemoCluster();
        then.cards.addAll(cards);
        then.quotas.addAll(quotas);
        then.waiting.addAll(waiting);
        then.strays.addAll(strays);
        then.history.addAll(history);
        for (Pod pod : then.history) {
            pod.life().phase(pod.phase(), ago).ifPresent(phase -> then.pods.add(pod.in(phase)));
        }
        return then;
    }

    /** Every pod the cluster had over its history, in its phase when it was created. */
    public List<Pod> everyPod() {
        return List.copyOf(history);
    }

    /** The intermediate owners the API server holds now: the ReplicaSets and Jobs of the pods that exist. */
    public List<OwnerObject> owners() {
        return pods.stream().flatMap(pod -> pod.controller().intermediate().stream()).distinct().toList();
    }

    /** The processes on the cards that no HAMi share covers. */
    public List<Stray> strays(String node) {
        return strays.stream().filter(stray -> stray.node().equals(node)).toList();
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

    private void pod(Named named, int serial, String node, PodPhase phase, Life life, Container... containers) {
        history.add(new Pod(podRef(named.controller().namespace(), named.name(), serial), node, phase,
                List.of(containers), List.of(), named.controller(), life));
    }

    /** A Job's pod name suffix, five characters as the Job controller makes them. */
    private static String suffix(int k) {
        String alphabet = "bcdfghjklmnpqrstvwxz2456789";
        StringBuilder suffix = new StringBuilder();
        long value = 0x5DEECE66DL * (k + 7);
        for (int i = 0; i < 5; i++) {
            suffix.append(alphabet.charAt((int) Math.floorMod(value, (long) alphabet.length())));
            value /= alphabet.length();
        }
        return suffix.toString();
    }

    /**
     * An Ascend chip's VDIE die id: what HAMi's Ascend device plugin registers as the card's id and
     * labels its usage series with ({@code device_uuid}), and what npu-exporter labels {@code vdie_id}.
     */
    static String ascendDieId(int chip) {
        return ascendDieId(0, chip);
    }

    /** {@link #ascendDieId(int)} of the {@code ordinal}-th cluster: the first's as ever, another's its own. */
    static String ascendDieId(int ordinal, int chip) {
        long tag = 0x910B3L * 7919 + chip + 0x10000L * ordinal;
        return String.format("%08X-%08X-%08X-%08X-%08X", 0x4A1C0000 + chip + 0x100 * ordinal, tag & 0xFFFFFFFFL, 0x5E2F0000L + chip * 17,
                (tag * 131) & 0xFFFFFFFFL, 0x00C0FFEEL + chip);
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

    /** Stable, UUID-shaped card ids that say what they are (the first cluster's). */
    static String uuid(String model, int index) {
        return uuid(0, model, index);
    }

    /** {@link #uuid(String, int)} of the {@code ordinal}-th cluster: the first's as ever, another's its own. */
    static String uuid(int ordinal, String model, int index) {
        long tag = ordinal;
        for (char c : model.toCharArray()) {
            tag = tag * 31 + c;
        }
        return String.format("GPU-%08x-%04x-4%03x-a%03x-%012x", tag & 0xFFFFFFFFL, index, index, index,
                (tag * 131 + index) & 0xFFFFFFFFFFFFL);
    }
}
