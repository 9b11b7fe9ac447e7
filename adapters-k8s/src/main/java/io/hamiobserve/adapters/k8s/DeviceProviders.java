package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Quantity;
import io.hamiobserve.ports.SkipKey;
import io.hamiobserve.ports.spi.DeviceKeys;
import io.hamiobserve.ports.spi.DeviceProvider;
import io.hamiobserve.ports.spi.NodeView;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The device providers found on the module or class path (this module {@code uses} the service
 * and names none), sorted by name so that merged cards and allocations are deterministic, with
 * an index from every key they declare to the provider that reads it: a node or pod is handed
 * only to the providers whose keys it carries, and only those keys of it are copied.
 */
final class DeviceProviders {
    private final List<DeviceProvider> providers;
    private final Map<String, DeviceProvider> byNodeAnnotation = new HashMap<>();
    private final Map<String, DeviceProvider> byNodeResource = new HashMap<>();
    private final Map<String, DeviceProvider> byPodAnnotation = new HashMap<>();
    private final Set<String> nodeLabels;
    /** Every provider's {@link DeviceProvider#podResources()}: what makes an unscheduled pod unmet demand. */
    private final Set<String> podResources;

    DeviceProviders(List<DeviceProvider> found) {
        if (found.isEmpty()) {
            throw new IllegalStateException("no device provider on the module path: a distribution holds "
                    + "the vendors-* modules beside the Kubernetes adapter");
        }
        List<DeviceProvider> sorted = new ArrayList<>(found);
        sorted.sort(Comparator.comparing(DeviceProvider::name));
        this.providers = List.copyOf(sorted);
        Set<String> labels = new HashSet<>();
        Set<String> resources = new HashSet<>();
        for (DeviceProvider provider : providers) {
            resources.addAll(provider.podResources());
            // Skips are counted under the provider's name: it must make a label-safe kind.
            SkipKey.checkWord("kind", nodeKind(provider));
            DeviceKeys keys = provider.keys();
            index(byNodeAnnotation, keys.nodeAnnotations(), provider, "node annotation");
            index(byNodeResource, keys.nodeResources(), provider, "node resource");
            index(byPodAnnotation, keys.podAnnotations(), provider, "pod annotation");
            labels.addAll(keys.nodeLabels());
        }
        this.nodeLabels = Set.copyOf(labels);
        this.podResources = Set.copyOf(resources);
    }

    /** The resource names a pod requests to be scheduled by HAMi, of every provider. */
    Set<String> podResources() {
        return podResources;
    }

    private static void index(Map<String, DeviceProvider> index, Set<String> keys, DeviceProvider provider,
                              String what) {
        for (String key : keys) {
            DeviceProvider other = index.putIfAbsent(key, provider);
            if (other != null) {
                throw new IllegalStateException("device providers " + other.name() + " and " + provider.name()
                        + " both read the " + what + " " + key);
            }
        }
    }

    /** Every provider visible to this module; looked up once. */
    static DeviceProviders load() {
        return Loaded.PROVIDERS;
    }

    /** The providers on the module or class path do not change while the process runs. */
    private static final class Loaded {
        static final DeviceProviders PROVIDERS = find();
    }

    private static DeviceProviders find() {
        List<DeviceProvider> found = new ArrayList<>();
        ServiceLoader.load(DeviceProvider.class, DeviceProviders.class.getClassLoader()).forEach(found::add);
        return new DeviceProviders(found);
    }

    List<DeviceProvider> all() {
        return providers;
    }

    /** The skip kind of a provider's node problems, e.g. {@code nvidia_node}: skips are counted per vendor. */
    static String nodeKind(DeviceProvider provider) {
        return provider.name() + "_node";
    }

    /** The skip kind of a provider's pod problems, e.g. {@code ascend_pod}. */
    static String podKind(DeviceProvider provider) {
        return provider.name() + "_pod";
    }

    /**
     * The node as providers may see it, holding only the annotations, labels and resources some
     * provider declares; {@code null} when it carries no annotation or resource of any provider
     * (a node without accelerators, or one whose plugins withdrew), which is decided without
     * copying anything.
     */
    NodeView view(String name, Node node) {
        ObjectMeta meta = node.getMetadata();
        Map<String, String> annotations = declared(meta.getAnnotations(), byNodeAnnotation);
        NodeStatus status = node.getStatus();
        Map<String, String> capacity = quantities(status == null ? null : status.getCapacity());
        Map<String, String> allocatable = quantities(status == null ? null : status.getAllocatable());
        if (annotations.isEmpty() && capacity.isEmpty() && allocatable.isEmpty()) {
            return null;
        }
        Map<String, String> labels = new LinkedHashMap<>();
        if (meta.getLabels() != null && !nodeLabels.isEmpty()) {
            meta.getLabels().forEach((key, value) -> {
                if (nodeLabels.contains(key)) {
                    labels.put(key, value);
                }
            });
        }
        return new NodeView(name, annotations, labels, capacity, allocatable);
    }

    /** The providers that {@code node} may register cards of, in name order. */
    List<DeviceProvider> registering(NodeView node) {
        List<DeviceProvider> found = new ArrayList<>(2);
        for (DeviceProvider provider : providers) {
            if (provider.keys().mayRegister(node)) {
                found.add(provider);
            }
        }
        return found;
    }

    /**
     * The providers whose allocation keys the pod carries, in name order, found from the pod's
     * annotations (a handful) rather than from every provider's keys.
     */
    List<DeviceProvider> allocating(Map<String, String> podAnnotations) {
        if (podAnnotations == null || podAnnotations.isEmpty()) {
            return List.of();
        }
        DeviceProvider first = null;
        List<DeviceProvider> more = null;
        for (String key : podAnnotations.keySet()) {
            DeviceProvider provider = byPodAnnotation.get(key);
            if (provider == null || provider == first || (more != null && more.contains(provider))) {
                continue;
            }
            if (first == null) {
                first = provider;
            } else {
                if (more == null) {
                    more = new ArrayList<>(2);
                    more.add(first);
                }
                more.add(provider);
            }
        }
        if (more != null) {
            more.sort(Comparator.comparing(DeviceProvider::name));
            return more;
        }
        return first == null ? List.of() : List.of(first);
    }

    /** The pod annotations that {@code provider} declares, for its decoder. */
    static Map<String, String> declaredBy(DeviceProvider provider, Map<String, String> podAnnotations) {
        Set<String> keys = provider.keys().podAnnotations();
        Map<String, String> declared = new HashMap<>(keys.size() * 2);
        for (String key : keys) {
            String value = podAnnotations.get(key);
            if (value != null) {
                declared.put(key, value);
            }
        }
        return declared;
    }

    private Map<String, String> quantities(Map<String, Quantity> resources) {
        if (resources == null || resources.isEmpty()) {
            return Map.of();
        }
        Map<String, String> declared = new LinkedHashMap<>();
        resources.forEach((name, quantity) -> {
            if (quantity != null && byNodeResource.containsKey(name)) {
                String amount = quantity.getAmount();
                String format = quantity.getFormat();
                declared.put(name, (amount == null ? "" : amount) + (format == null ? "" : format));
            }
        });
        return declared;
    }

    private static Map<String, String> declared(Map<String, String> all, Map<String, DeviceProvider> index) {
        if (all == null || all.isEmpty()) {
            return Map.of();
        }
        Map<String, String> declared = new LinkedHashMap<>();
        all.forEach((key, value) -> {
            if (index.containsKey(key)) {
                declared.put(key, value);
            }
        });
        return declared;
    }
}
