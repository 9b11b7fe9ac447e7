package io.hamiobserve.adapters.k8s;

import io.hamiobserve.adapters.k8s.Skips.Kind;

import io.hamiobserve.adapters.k8s.Skips.Reason;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.hamiobserve.domain.NodePod;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.ports.NodePodDirectory;
import io.hamiobserve.ports.SkipReporter;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The HAMi pods of one node, from one informer scoped to that node on the server by the label
 * selector {@code hami.io/vgpu-node=<node>} (HAMi sets it on every pod it places), never a
 * cluster-wide pod cache. The label selects HAMi pods only, which a {@code spec.nodeName} field
 * selector would not; a pod bound to another node despite the label is left out client-side.
 * Each pod is mapped to a {@link NodePod} on arrival; the fabric8 object is dropped.
 *
 * <p>The informer is a {@link WatchedInformer}, checked at every beat of its {@link Heartbeat}: a
 * watch that was up and is down for two checks is relisted. {@link #isSynced()} stays true across
 * such relists.
 */
final class NodePodInformer implements NodePodDirectory {
    private static final Logger LOG = Logger.getLogger(NodePodInformer.class.getName());
    private static final Comparator<NodePod> ORDER = Comparator
            .comparing((NodePod pod) -> pod.pod().namespace())
            .thenComparing(pod -> pod.pod().name())
            .thenComparing(pod -> pod.pod().uid());

    private final Supplier<KubernetesClient> clientFactory;
    private final boolean ownsClient;
    /** Made at {@link #start}: building fabric8's client (configuration, HTTP client) is no work for the caller's thread. */
    private KubernetesClient client;
    private final String nodeName;
    private final PodMapper mapper;
    private final Heartbeat heartbeat;
    private final Map<String, NodePod> byUid = new ConcurrentHashMap<>();
    private WatchedInformer<Pod> informer;

    NodePodInformer(KubernetesClient client, boolean ownsClient, String nodeName, DeviceProviders providers, Heartbeat heartbeat) {
        this(() -> client, ownsClient, nodeName, providers, heartbeat);
        Objects.requireNonNull(client, "client");
    }

    /** @param clientFactory called once, when the informer starts */
    NodePodInformer(Supplier<KubernetesClient> clientFactory, boolean ownsClient, String nodeName, DeviceProviders providers,
                    Heartbeat heartbeat) {
        this.clientFactory = Objects.requireNonNull(clientFactory, "clientFactory");
        this.ownsClient = ownsClient;
        this.heartbeat = Objects.requireNonNull(heartbeat, "heartbeat");
        if (nodeName == null || nodeName.isBlank()) {
            throw new IllegalArgumentException("node name is empty: set NODE_NAME from spec.nodeName");
        }
        this.nodeName = nodeName;
        this.mapper = new PodMapper(providers);
    }

    @Override
    public synchronized void start(SkipReporter reporter) {
        if (informer != null) {
            throw new IllegalStateException("already started");
        }
        Skips skips = new Skips(reporter);
        client = Objects.requireNonNull(clientFactory.get(), "client");
        informer = new WatchedInformer<>("pods on " + nodeName, () -> client.pods().inAnyNamespace()
                .withLabel(PodMapper.NODE_KEY, nodeName).runnableInformer(0), Pod::new, new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(Pod pod) {
                        put(pod, skips);
                    }

                    @Override
                    public void onUpdate(Pod previous, Pod current) {
                        if (previous.getMetadata() != null && !Objects.equals(previous.getMetadata().getUid(),
                                current.getMetadata().getUid())) {
                            byUid.remove(previous.getMetadata().getUid());
                        }
                        put(current, skips);
                    }

                    @Override
                    public void onDelete(Pod pod, boolean finalStateUnknown) {
                        if (pod.getMetadata() != null && pod.getMetadata().getUid() != null) {
                            byUid.remove(pod.getMetadata().getUid());
                        }
                    }
                }, failure -> LOG.log(Level.WARNING, "watch of pods on " + nodeName + " failed; retrying: " + failure));
        informer.start();
        heartbeat.start(this::checkWatch);
    }

    private void checkWatch() {
        try {
            informer.checkWatch();
        } catch (RuntimeException e) {
            // The watchdog must survive anything, or a stuck watch would never be noticed again.
            LOG.log(Level.WARNING, "watch check of pods on " + nodeName + " failed", e);
        }
    }

    private void put(Pod pod, Skips skips) {
        try {
            Optional<PodRef> ref = PodMapper.ref(pod);
            if (ref.isEmpty()) {
                skips.skip(Kind.POD_ANNOTATION, PodMapper.describe(pod), Reason.MISSING_IDENTITY, "pod without uid");
                return;
            }
            String boundTo = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
            if (boundTo != null && !boundTo.isEmpty() && !boundTo.equals(nodeName)) {
                byUid.remove(ref.get().uid());
                return;
            }
            Optional<PodPlacement> placement = mapper.toPlacement(pod, skips);
            byUid.put(ref.get().uid(), new NodePod(ref.get(), PodMapper.containerNames(pod), containerIds(pod),
                    placement));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "could not map pod " + PodMapper.describe(pod), e);
            skips.skip(Kind.POD_ANNOTATION, PodMapper.describe(pod), Reason.INVALID_OBJECT, String.valueOf(e.getMessage()));
        }
    }

    /** Runtime container IDs without their scheme ({@code containerd://}, {@code cri-o://}, ...) to names. */
    static Map<String, String> containerIds(Pod pod) {
        Map<String, String> ids = new HashMap<>();
        PodStatus status = pod.getStatus();
        if (status == null) {
            return ids;
        }
        List<ContainerStatus> all = new ArrayList<>();
        if (status.getInitContainerStatuses() != null) {
            all.addAll(status.getInitContainerStatuses());
        }
        if (status.getContainerStatuses() != null) {
            all.addAll(status.getContainerStatuses());
        }
        for (ContainerStatus container : all) {
            String id = container.getContainerID();
            if (id == null || id.isBlank() || container.getName() == null) {
                continue; // not started yet
            }
            int scheme = id.indexOf("://");
            String bare = scheme >= 0 ? id.substring(scheme + 3) : id;
            if (!bare.isBlank()) {
                ids.put(bare.strip(), container.getName());
            }
        }
        return ids;
    }

    @Override
    public boolean isSynced() {
        WatchedInformer<Pod> current = informer;
        return current != null && current.listed();
    }

    @Override
    public List<NodePod> pods() {
        List<NodePod> pods = new ArrayList<>(byUid.values());
        pods.sort(ORDER);
        return pods;
    }

    @Override
    public synchronized void close() {
        heartbeat.close();
        if (informer != null) {
            informer.stop();
        }
        if (ownsClient && client != null) {
            client.close();
        }
    }
}
