package io.hamiobserve.vendors.protocol;

import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.DeviceKeys;
import io.hamiobserve.ports.spi.DeviceProvider;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.ports.spi.PodAllocation;
import io.hamiobserve.ports.spi.PodDevices;
import io.hamiobserve.ports.spi.Problem;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@link DeviceProvider} made of HAMi backends: a vendor module subclasses it with a public
 * no-argument constructor that lists its backends, and declares it in {@code provides}. The
 * declared keys are the union of the backends'; a node's cards are the backends' cards in order,
 * a pod's allocations one per allocated key it carries.
 */
public abstract class HamiDeviceProvider implements DeviceProvider {
    private final String name;
    private final List<Backend> backends;
    private final DeviceKeys keys;

    /**
     * @param name               the provider's stable, label-safe name
     * @param backends           its backends, in the order their cards are listed
     * @param morePodAnnotations pod annotations a subclass reads beyond the allocated keys
     */
    protected HamiDeviceProvider(String name, List<Backend> backends, String... morePodAnnotations) {
        this.name = name;
        this.backends = List.copyOf(backends);
        Set<String> annotations = new LinkedHashSet<>();
        Set<String> resources = new LinkedHashSet<>();
        Set<String> pods = new LinkedHashSet<>();
        for (Backend backend : this.backends) {
            annotations.addAll(backend.nodeAnnotations());
            resources.addAll(backend.nodeResources());
            if (!pods.add(backend.allocatedKey())) {
                throw new IllegalArgumentException("two backends of " + name + " share " + backend.allocatedKey());
            }
        }
        pods.addAll(List.of(morePodAnnotations));
        // No backend of HAMi v2.10 reads a node label into a card (Neuron's instance type stays in HAMi's CustomInfo).
        this.keys = new DeviceKeys(annotations, Set.of(), resources, pods);
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final DeviceKeys keys() {
        return keys;
    }

    /**
     * Every vendor module names the resources HAMi schedules for it (its chart's defaults), so
     * none falls back on the node resources by accident: HAMi's register annotations name none.
     */
    @Override
    public abstract Set<String> podResources();

    /**
     * The backends' cards in order. A UUID that a later backend registers again is left out with a
     * {@code duplicate_uuid} problem: a UUID is one card in every view.
     */
    @Override
    public NodeDevices decodeNode(NodeView node) {
        NodeDevices devices = NodeDevices.absent();
        Set<String> kept = new HashSet<>();
        for (Backend backend : backends) {
            NodeDevices found = backend.decodeNode(node);
            List<VendorCard> unique = new ArrayList<>(found.cards().size());
            Problems duplicates = new Problems(backend.source());
            for (VendorCard card : found.cards()) {
                if (kept.add(card.card().uuid())) {
                    unique.add(card);
                } else {
                    duplicates.add("duplicate_uuid", "card " + card.card().uuid() + " is registered by an earlier "
                            + name + " backend too, which keeps it");
                }
            }
            if (!duplicates.isEmpty()) {
                List<Problem> problems = new ArrayList<>(found.problems());
                problems.addAll(duplicates.list());
                found = new NodeDevices(found.present(), unique, problems);
            }
            devices = devices.and(found);
        }
        return devices;
    }

    @Override
    public PodDevices decodePod(Map<String, String> annotations) {
        List<PodAllocation> allocations = new ArrayList<>(1);
        List<Problem> problems = new ArrayList<>(0);
        for (Backend backend : backends) {
            String value = annotations.get(backend.allocatedKey());
            if (value == null) {
                // A pod carries one backend's key among many (Ascend has seven): the others cost a lookup.
                continue;
            }
            Problems found = new Problems(backend.allocatedKey());
            backend.decodePod(value, found).ifPresent(allocations::add);
            problems.addAll(found.list());
        }
        return allocations.isEmpty() && problems.isEmpty() ? PodDevices.none()
                : new PodDevices(allocations, List.of(), problems);
    }
}
