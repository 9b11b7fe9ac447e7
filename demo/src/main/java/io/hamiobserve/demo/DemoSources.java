package io.hamiobserve.demo;

import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.NodePod;
import io.hamiobserve.domain.PendingPod;
import io.hamiobserve.domain.PendingReason;
import io.hamiobserve.domain.ProcessOwner;
import io.hamiobserve.ports.HostCardSource;
import io.hamiobserve.ports.NodePodDirectory;
import io.hamiobserve.ports.ProcessOwnerResolver;
import io.hamiobserve.ports.SchedulerLedgerSource;
import io.hamiobserve.ports.SkipReporter;
import io.hamiobserve.testkit.FixedPods;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The demo's implementations of the ports: the same interfaces the Kubernetes, NVML and /proc
 * adapters implement, fed by {@link DemoWorkload} instead of a cluster and a driver.
 */
public final class DemoSources {
    private DemoSources() {
    }

    /**
     * The scheduler ledger of the demo cluster, with three pods that wait for a GPU (two for
     * memory, one for quota). After the initial load it keeps changing: every minute the pending
     * evaluation job is placed or withdrawn (and waits for memory meanwhile), and the ledger is re-confirmed
     * every few seconds, like an informer resync.
     */
    public static SchedulerLedgerSource ledger(DemoWorkload workload) {
        return new SchedulerLedgerSource() {
            private ScheduledExecutorService timer;

            @Override
            public void start(Ledger ledger, SkipReporter skips) {
                load(workload, ledger);
                timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("demo-ledger")
                        .factory());
                timer.scheduleAtFixedRate(() -> churn(workload, ledger), 5, 5, TimeUnit.SECONDS);
            }

            @Override
            public void close() {
                if (timer != null) {
                    timer.shutdownNow();
                }
            }
        };
    }

    /** Puts the whole demo cluster into {@code ledger} and marks it synced. */
    public static void load(DemoWorkload workload, Ledger ledger) {
        DemoCluster cluster = workload.cluster();
        for (String node : cluster.registeringNodes()) {
            ledger.putVendorCards(node, cluster.cards(node).stream().map(DemoCluster.Card::vendorCard).toList());
        }
        // The ReplicaSets and Jobs first, as the informers' first lists give them.
        cluster.owners().forEach(ledger::putOwner);
        for (DemoCluster.Pod pod : cluster.pods()) {
            ledger.putPod(pod.placement(workload.clock().millis()));
        }
        cluster.quotas().forEach((namespace, objects) ->
                objects.forEach((object, limits) -> ledger.putQuota(namespace, object, limits)));
        for (DemoCluster.Waiting waiting : cluster.waiting()) {
            ledger.putPending(waiting.pending(workload.clock().millis()));
        }
        ledger.markSynced(workload.clock().millis());
    }

    /**
     * Places the pending pods on even minutes of the workload's clock and withdraws them on odd
     * ones, when they wait for memory (unmet demand) since the minute began.
     */
    static void churn(DemoWorkload workload, Ledger ledger) {
        long now = workload.clock().millis();
        long minute = now / 60_000;
        for (DemoCluster.Pod pod : workload.cluster().pods()) {
            if (pod.ref().name().equals(DemoCluster.EVAL_JOB_NEXT)) {
                if (minute % 2 == 0) {
                    ledger.removePending(pod.ref().uid());
                    ledger.putPod(pod.placement(now));
                } else {
                    ledger.removePod(pod.ref().uid());
                    ledger.putPending(new PendingPod(pod.ref(), minute * 60_000,
                            PendingReason.of("False", "Unschedulable", DemoCluster.EVAL_JOB_WAITING)));
                }
            }
        }
        ledger.markSynced(workload.clock().millis());
    }

    /** The driver of one demo node. */
    public static HostCardSource hostCards(DemoWorkload workload, String node) {
        return new HostCardSource() {
            @Override
            public List<HostCardReading> read(SkipReporter skips) {
                return workload.hostCards(node);
            }

            @Override
            public void close() {
            }
        };
    }

    /** The HAMi pods of one demo node; synced from the start. */
    public static NodePodDirectory pods(DemoWorkload workload, String node) {
        return new FixedPods(workload.cluster().pods(node).stream().map(DemoSources::nodePod).toList());
    }

    private static NodePod nodePod(DemoCluster.Pod pod) {
        Map<String, String> ids = new HashMap<>();
        for (int i = 0; i < pod.containers().size(); i++) {
            ids.put(DemoWorkload.containerId(pod, i), pod.containers().get(i).name());
        }
        return new NodePod(pod.ref(), pod.containers().stream().map(DemoCluster.Container::name).toList(), ids,
                Optional.of(pod.placement()));
    }

    /** Who owns the demo's processes, as a cgroup lookup on the host would say. */
    public static ProcessOwnerResolver processOwners(DemoWorkload workload) {
        Map<Long, ProcessOwner> owners = new HashMap<>();
        for (DemoCluster.Pod pod : workload.cluster().pods()) {
            for (int i = 0; i < pod.containers().size(); i++) {
                owners.put(DemoWorkload.pid(pod, i), new ProcessOwner(pod.ref().uid(), DemoWorkload.containerId(pod, i)));
            }
        }
        return (Collection<Long> pids) -> {
            Map<Long, ProcessOwner> found = new HashMap<>();
            pids.forEach(pid -> {
                ProcessOwner owner = owners.get(pid);
                if (owner != null) {
                    found.put(pid, owner);
                }
            });
            return found;
        };
    }

}
