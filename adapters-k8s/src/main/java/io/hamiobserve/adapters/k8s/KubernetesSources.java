package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.hamiobserve.ports.NodePodDirectory;
import io.hamiobserve.ports.SchedulerLedgerSource;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Entry point of the Kubernetes adapter: the scheduler's ledger from a live cluster or from a
 * snapshot file, and the directory of HAMi pods on one node. No fabric8 type appears here.
 *
 * <p>Cluster access follows fabric8's usual configuration: in a pod, the service account;
 * elsewhere {@code $KUBECONFIG} or {@code ~/.kube/config} (and the {@code kubernetes.*} system
 * properties / {@code KUBERNETES_*} variables fabric8 reads). Device providers (the vendors-*
 * modules) are loaded with {@link java.util.ServiceLoader}; this module names none of them.
 */
public final class KubernetesSources {
    /** How often a healthy live source re-confirms the ledger complete, and how often watches are checked. */
    static final Duration HEARTBEAT = Duration.ofSeconds(10);

    private KubernetesSources() {
    }

    /** The live ledger from the cluster this process is configured for; nothing connects before {@code start}. */
    public static SchedulerLedgerSource cluster() {
        return new InformerLedgerSource(LedgerMapping.client(), true, DeviceProviders.load(), ledgerHeartbeat(
                HEARTBEAT), Clock.systemUTC());
    }

    /** The ledger from a file such as {@code kubectl get nodes,pods,resourcequotas,replicasets,jobs -A -o yaml} prints. */
    public static SchedulerLedgerSource snapshot(Path file) {
        return new SnapshotLedgerSource(Objects.requireNonNull(file, "file"), DeviceProviders.load(), Clock.systemUTC());
    }

    /** The HAMi pods placed on {@code nodeName} (usually {@code $NODE_NAME}), watched from the API server. */
    public static NodePodDirectory nodePods(String nodeName) {
        return new NodePodInformer(LedgerMapping::client, true, nodeName, DeviceProviders.load(),
                nodePodsHeartbeat(HEARTBEAT));
    }

    static SchedulerLedgerSource cluster(KubernetesClient client, Duration heartbeat) {
        return cluster(client, ledgerHeartbeat(heartbeat));
    }

    static SchedulerLedgerSource cluster(KubernetesClient client, Heartbeat heartbeat) {
        return new InformerLedgerSource(client, false, DeviceProviders.load(), heartbeat, Clock.systemUTC());
    }

    static NodePodDirectory nodePods(KubernetesClient client, String nodeName) {
        return nodePods(client, nodeName, nodePodsHeartbeat(HEARTBEAT));
    }

    static NodePodDirectory nodePods(KubernetesClient client, String nodeName, Heartbeat heartbeat) {
        return new NodePodInformer(client, false, nodeName, DeviceProviders.load(), heartbeat);
    }

    private static Heartbeat ledgerHeartbeat(Duration period) {
        return Heartbeat.every(period, "hami-observe-ledger-heartbeat");
    }

    private static Heartbeat nodePodsHeartbeat(Duration period) {
        return Heartbeat.every(period, "hami-observe-node-pods-watchdog");
    }
}
