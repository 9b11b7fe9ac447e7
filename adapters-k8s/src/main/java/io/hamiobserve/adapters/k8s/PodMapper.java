package io.hamiobserve.adapters.k8s;

import io.hamiobserve.adapters.k8s.Skips.Kind;

import io.hamiobserve.adapters.k8s.Skips.Reason;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.domain.PodLifecycle;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.ports.spi.DeviceProvider;
import io.hamiobserve.ports.spi.PodAllocation;
import io.hamiobserve.ports.spi.PodDevices;
import io.hamiobserve.ports.spi.Problem;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Maps a fabric8 {@link Pod} to the domain's {@link PodPlacement}, so that no Kubernetes object
 * outlives the event that delivered it. Work is proportional to the pod.
 */
final class PodMapper {
    static final String NODE_KEY = "hami.io/vgpu-node";
    /** When HAMi bound the pod to its node, unix seconds. */
    static final String BIND_TIME_KEY = "hami.io/bind-time";
    /** When HAMi's scheduler chose the pod's cards, unix seconds (set before the bind). */
    static final String VGPU_TIME_KEY = "hami.io/vgpu-time";
    /**
     * Kubernetes names (DNS subdomains) are at most 253 characters; so are identities and container
     * names here: an API server never stores a longer one, a crafted snapshot may.
     */
    static final int MAX_NAME_CHARS = 253;

    private final DeviceProviders providers;

    PodMapper(DeviceProviders providers) {
        this.providers = providers;
        // The first time parse loads java.time's formatters (tens of milliseconds on a loaded node):
        // paid here, before the informers start, not by the first list's first pod.
        ObjectTimes.rfc3339("1970-01-01T00:00:00Z");
    }

    /** The pod's identity, or empty when the object lacks namespace, name or UID. */
    static Optional<PodRef> ref(Pod pod) {
        ObjectMeta meta = pod.getMetadata();
        if (meta == null || isBlank(meta.getName()) || isBlank(meta.getUid())) {
            return Optional.empty();
        }
        String namespace = isBlank(meta.getNamespace()) ? "default" : meta.getNamespace();
        return Optional.of(new PodRef(namespace, meta.getName(), meta.getUid()));
    }

    /** The node HAMi placed the pod on: the annotation, else the label of the same key. */
    static Optional<String> placedNode(Pod pod) {
        ObjectMeta meta = pod.getMetadata();
        if (meta == null) {
            return Optional.empty();
        }
        String node = value(meta.getAnnotations(), NODE_KEY);
        if (isBlank(node)) {
            node = value(meta.getLabels(), NODE_KEY);
        }
        return isBlank(node) ? Optional.empty() : Optional.of(node.strip());
    }

    /** Container names in allocation order: init containers first, then app containers. */
    static List<String> containerNames(Pod pod) {
        List<String> names = new ArrayList<>();
        PodSpec spec = pod.getSpec();
        if (spec != null) {
            for (Container container : nullToEmpty(spec.getInitContainers())) {
                names.add(container.getName() == null ? "" : container.getName());
            }
            for (Container container : nullToEmpty(spec.getContainers())) {
                names.add(container.getName() == null ? "" : container.getName());
            }
        }
        return names;
    }

    /**
     * The pod's placement when it carries {@code hami.io/vgpu-node}; empty for a pod HAMi has not
     * placed (or one without identity). Undecodable parts are reported and left out.
     */
    Optional<PodPlacement> toPlacement(Pod pod, Skips skips) {
        Optional<PodRef> ref = ref(pod);
        Optional<String> node = placedNode(pod);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        if (ref.isEmpty()) {
            skips.skip(Kind.POD_ANNOTATION, describe(pod), Reason.MISSING_IDENTITY, "pod without name or uid");
            return Optional.empty();
        }
        List<String> names = containerNames(pod);
        Optional<String> badName = names(ref.get(), node.get(), names);
        if (badName.isPresent()) {
            skips.skip(Kind.POD_ANNOTATION, describe(pod), Reason.TOO_LONG, badName.get());
            return Optional.empty();
        }
        String item = ref.get().namespace() + "/" + ref.get().name();
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        PodSpec spec = pod.getSpec();
        int initCount = spec == null ? 0 : nullToEmpty(spec.getInitContainers()).size();

        List<List<DeviceShare>> merged = new ArrayList<>();
        List<MigInstance> mig = List.of();
        for (DeviceProvider provider : providers.allocating(annotations)) {
            PodDevices devices = provider.decodePod(DeviceProviders.declaredBy(provider, annotations));
            String kind = DeviceProviders.podKind(provider);
            for (Problem problem : devices.problems()) {
                skips.skip(kind, item, problem);
            }
            for (PodAllocation allocation : devices.allocations()) {
                List<List<DeviceShare>> entries = allocation.containers();
                if (!names.isEmpty() && entries.size() > names.size()) {
                    skips.skip(kind, item, new Problem(allocation.key(), Reason.TOO_MANY_CONTAINERS.label(),
                            "lists " + entries.size() + " containers, the pod has " + names.size()));
                    entries = entries.subList(0, names.size());
                }
                // Positions are the contract: the i-th entry of every key is the i-th container.
                for (int i = 0; i < entries.size(); i++) {
                    while (merged.size() <= i) {
                        merged.add(new ArrayList<>(2));
                    }
                    merged.get(i).addAll(entries.get(i));
                }
            }
            if (!devices.migInstances().isEmpty()) {
                mig = mig.isEmpty() ? devices.migInstances() : concat(mig, devices.migInstances());
            }
        }

        int containerCount = names.isEmpty() ? merged.size() : names.size();
        List<ContainerShares> containers = new ArrayList<>(containerCount);
        for (int i = 0; i < containerCount; i++) {
            String name = i < names.size() ? names.get(i) : "";
            List<DeviceShare> devices = i < merged.size() ? merged.get(i) : List.of();
            containers.add(new ContainerShares(i, name, i < initCount, devices));
        }
        PodStatus status = pod.getStatus();
        PodPhase phase = PodPhase.parse(status == null ? null : status.getPhase());
        return Optional.of(new PodPlacement(ref.get(), node.get(), phase, initContainersFinished(pod, initCount),
                containers, mig).withLifecycle(lifecycle(pod)));
    }

    /**
     * When HAMi placed the pod ({@code hami.io/bind-time}, else {@code hami.io/vgpu-time}, unix
     * seconds; else its creation), whether
     * it is being deleted and from when, and whether any container has run. An unreadable time is
     * not known ({@link PodLifecycle#UNKNOWN_TIME}); a {@code deletionTimestamp} that does not read
     * still says the pod is being deleted.
     */
    static PodLifecycle lifecycle(Pod pod) {
        ObjectMeta meta = pod.getMetadata();
        long placed = ObjectTimes.unixSeconds(value(meta.getAnnotations(), BIND_TIME_KEY))
                .or(() -> ObjectTimes.unixSeconds(value(meta.getAnnotations(), VGPU_TIME_KEY)))
                .or(() -> ObjectTimes.rfc3339(meta.getCreationTimestamp()))
                .orElse(PodLifecycle.UNKNOWN_TIME);
        String deletion = meta.getDeletionTimestamp();
        boolean deleting = deletion != null && !deletion.isEmpty();
        long deletionAt = deleting ? ObjectTimes.rfc3339(deletion).orElse(PodLifecycle.UNKNOWN_TIME)
                : PodLifecycle.UNKNOWN_TIME;
        return new PodLifecycle(placed, deleting, deletionAt, started(pod.getStatus()));
    }

    /** Whether any container, init or app, runs or has run. */
    private static boolean started(PodStatus status) {
        if (status == null) {
            return false;
        }
        for (List<ContainerStatus> statuses : List.of(nullToEmpty(status.getInitContainerStatuses()),
                nullToEmpty(status.getContainerStatuses()))) {
            for (ContainerStatus container : statuses) {
                ContainerState state = container == null ? null : container.getState();
                if (state != null && (state.getRunning() != null || state.getTerminated() != null)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A problem when a name that becomes a label is longer than Kubernetes allows: an API server
     * never stores one, a crafted snapshot may.
     */
    private static Optional<String> names(PodRef ref, String node, List<String> containers) {
        List<String> names = new ArrayList<>(List.of(ref.namespace(), ref.name(), ref.uid(), node));
        names.addAll(containers);
        for (String name : names) {
            if (name.length() > MAX_NAME_CHARS) {
                return Optional.of("pod: name of " + name.length() + " characters, more than " + MAX_NAME_CHARS);
            }
        }
        return Optional.empty();
    }

    static boolean initContainersFinished(Pod pod, int initCount) {
        if (initCount == 0) {
            return true;
        }
        PodStatus status = pod.getStatus();
        List<ContainerStatus> statuses = status == null ? List.of() : nullToEmpty(status.getInitContainerStatuses());
        if (statuses.size() < initCount) {
            return false;
        }
        for (ContainerStatus initStatus : statuses) {
            if (initStatus.getState() == null || initStatus.getState().getTerminated() == null) {
                return false;
            }
        }
        return true;
    }

    private static <T> List<T> concat(List<T> first, List<T> second) {
        List<T> both = new ArrayList<>(first);
        both.addAll(second);
        return both;
    }

    static String describe(Pod pod) {
        ObjectMeta meta = pod.getMetadata();
        return meta == null ? "?" : meta.getNamespace() + "/" + meta.getName();
    }

    private static String value(Map<String, String> map, String key) {
        return map == null ? null : map.get(key);
    }

    private static boolean isBlank(String text) {
        return text == null || text.isBlank();
    }

    private static <T> List<T> nullToEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }
}
