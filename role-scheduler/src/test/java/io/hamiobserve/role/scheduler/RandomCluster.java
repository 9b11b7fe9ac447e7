package io.hamiobserve.role.scheduler;

import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.domain.OwnerObject;
import io.hamiobserve.domain.OwnerRef;
import io.hamiobserve.domain.PodController;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.QuotaLimit;
import io.hamiobserve.domain.QuotaResource;
import io.hamiobserve.domain.RegisteredCard;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * Random clusters with what makes segments hard: shared cards, init containers, MIG, quotas, stray
 * cards, and pods' owners (ReplicaSets that come, change controller and go; names that need escaping).
 */
public final class RandomCluster {
    private static final String[] NAMESPACES = {"a", "b", "team-x"};
    /** Controllers above the random ReplicaSets: none, a Deployment, an Argo Rollout, a name to escape. */
    private static final String[][] ABOVE = {{}, {"Deployment", "serve"}, {"Rollout", "canary"},
            {"RayCluster", "q\"uote\\back\nline"}};
    private final Random random;
    /** Owners have a stream of their own, so the seeds' clusters are otherwise what they were. */
    private final Random owners;
    private final int nodes;

    public RandomCluster(long seed) {
        this.random = new Random(seed);
        this.owners = new Random(seed ^ 0x29);
        this.nodes = 2 + random.nextInt(5);
    }

    /** A cluster of {@code nodes} nodes: enough for a scrape's segments to be rendered in parallel. */
    public RandomCluster(long seed, int nodes) {
        this.random = new Random(seed);
        this.owners = new Random(seed ^ 0x29);
        this.nodes = nodes;
    }

    /** A ledger of the cluster's nodes and {@code pods} random pods, synced. */
    public Ledger ledger(int pods) {
        Ledger ledger = new Ledger();
        for (int node = 0; node < nodes; node++) {
            List<RegisteredCard> cards = new ArrayList<>();
            int count = 1 + random.nextInt(4);
            for (int index = 0; index < count; index++) {
                CardMode mode = random.nextInt(5) == 0 ? CardMode.MIG : CardMode.HAMI_CORE;
                cards.add(new RegisteredCard("GPU-" + node + "-" + index, index, 1 + random.nextInt(10),
                        random.nextInt(6) == 0 ? 0 : 16384 + 1024L * random.nextInt(64), 100,
                        random.nextBoolean() ? "NVIDIA A100" : "NVIDIA \"H100\"\\80GB", index / 2, mode,
                        random.nextInt(8) != 0));
            }
            ledger.putNode(nodeName(node), cards);
        }
        for (int pod = 0; pod < pods; pod++) {
            ledger.putPod(pod("uid-" + pod));
        }
        for (int i = 0; i < 4; i++) {
            ownerEvent(ledger);
        }
        for (String namespace : NAMESPACES) {
            if (random.nextBoolean()) {
                ledger.putQuota(namespace, "gpu-quota", List.of(new QuotaLimit(namespace, "gpu-quota",
                        QuotaResource.GPU_MEMORY_MIB, 1024L * random.nextInt(100))));
            }
        }
        ledger.markSynced(1_700_000_000_000L + random.nextInt(1000));
        return ledger;
    }

    /** Applies {@code events} random pod events: new placements, changes and deletions. */
    public void change(Ledger ledger, int events) {
        for (int i = 0; i < events; i++) {
            String uid = "uid-" + random.nextInt(50);
            switch (random.nextInt(4)) {
                case 0 -> ledger.removePod(uid);
                case 1 -> ledger.putNode(nodeName(random.nextInt(nodes)), List.of(new RegisteredCard(
                        "GPU-" + random.nextInt(nodes) + "-0", 0, 4, 8192, 100, "NVIDIA T4", 0,
                        CardMode.HAMI_CORE, true)));
                default -> ledger.putPod(pod(uid));
            }
            if (owners.nextInt(3) == 0) {
                ownerEvent(ledger);
            }
        }
    }

    /** A random ReplicaSet put (with a random controller above it) or deleted. */
    private void ownerEvent(Ledger ledger) {
        int replicaSet = owners.nextInt(4);
        String uid = "rs-uid-" + replicaSet;
        if (owners.nextInt(4) == 0) {
            ledger.removeOwner(uid);
            return;
        }
        String[] above = ABOVE[owners.nextInt(ABOVE.length)];
        for (String namespace : NAMESPACES) {
            // One UID per ReplicaSet: put in one namespace, it owns only that namespace's pods.
            if (namespace.hashCode() % 3 == replicaSet % 3) {
                ledger.putOwner(new OwnerObject("ReplicaSet", namespace, "rs-" + replicaSet, uid,
                        above.length == 0 ? Optional.empty()
                                : Optional.of(new OwnerRef(above[0], above[1], "above-" + above[0]))));
            }
        }
    }

    /** What a random pod says of its controller: none, a ReplicaSet (known or not, with its hash), a StatefulSet. */
    private PodController controller() {
        return switch (owners.nextInt(4)) {
            case 0 -> PodController.NONE;
            case 1 -> PodController.of(new OwnerRef("StatefulSet", "db", "sts-uid"));
            default -> {
                int replicaSet = owners.nextInt(5);
                yield new PodController(Optional.of(new OwnerRef("ReplicaSet", "rs-" + replicaSet, "rs-uid-" + replicaSet)),
                        owners.nextBoolean() ? Integer.toString(replicaSet) : "");
            }
        };
    }

    private PodPlacement pod(String uid) {
        // Few names, so pods of one name (a replaced pod) meet on one node and card.
        PodRef ref = new PodRef(NAMESPACES[random.nextInt(NAMESPACES.length)], "job-" + random.nextInt(8), uid);
        int node = random.nextInt(nodes + 1); // one node past the registered ones: unregistered cards
        List<ContainerShares> containers = new ArrayList<>();
        List<MigInstance> migs = new ArrayList<>();
        int count = 1 + random.nextInt(3);
        for (int container = 0; container < count; container++) {
            List<DeviceShare> shares = new ArrayList<>();
            int cards = random.nextInt(3);
            for (int share = 0; share < cards; share++) {
                String uuid = "GPU-" + node + "-" + random.nextInt(3);
                shares.add(new DeviceShare(uuid, "NVIDIA", 256L * random.nextInt(40), random.nextInt(101)));
                if (random.nextInt(6) == 0) {
                    migs.add(new MigInstance(container, share, uuid, "1g.10gb", random.nextInt(7), 1,
                            random.nextBoolean() ? "MIG-" + uid + "-" + share : "", 1 + random.nextInt(6), 0));
                }
            }
            containers.add(new ContainerShares(container, random.nextInt(5) == 0 ? "" : "c" + container,
                    container == 0 && count > 1, shares));
        }
        PodPhase phase = random.nextInt(10) == 0 ? PodPhase.PENDING : PodPhase.RUNNING;
        return new PodPlacement(ref, nodeName(node), phase, random.nextBoolean(), containers, migs, controller());
    }

    /** Whether two pods of one name share a card in {@code view}: the case that needs deduplication. */
    public boolean sameNamedPodsOnOneCard(AllocationView view) {
        List<String> keys = view.containers().stream()
                .map(c -> c.node() + c.pod().namespace() + c.pod().name() + c.container().index() + c.uuid())
                .toList();
        return keys.stream().distinct().count() < keys.size();
    }

    /** Node names as the random ledgers spell them. */
    public static String nodeName(int node) {
        return String.format("node-%02d", node);
    }
}
