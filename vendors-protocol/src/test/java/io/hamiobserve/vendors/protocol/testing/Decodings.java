package io.hamiobserve.vendors.protocol.testing;

import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.DeviceProvider;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.ports.spi.PodAllocation;
import io.hamiobserve.ports.spi.PodDevices;
import io.hamiobserve.ports.spi.Problem;

import java.util.List;
import java.util.Map;

/** Short forms for the vendor modules' tests. */
public final class Decodings {
    private Decodings() {
    }

    /** The registered cards of a decoded node. */
    public static List<RegisteredCard> cards(NodeDevices devices) {
        return devices.cards().stream().map(VendorCard::card).toList();
    }

    /** The reasons of some problems, in order. */
    public static List<String> reasons(List<Problem> problems) {
        return problems.stream().map(Problem::reason).toList();
    }

    /** A node with only these resources in its capacity. */
    public static NodeDevices withCapacity(DeviceProvider provider, String node, Map<String, String> capacity) {
        return provider.decodeNode(NodeView.withCapacity(node, capacity));
    }

    /** A node with only these annotations. */
    public static NodeDevices annotated(DeviceProvider provider, String node, Map<String, String> annotations) {
        return provider.decodeNode(NodeView.annotated(node, annotations));
    }

    /** The one allocation a pod with this one annotation holds, after checking it decoded whole. */
    public static PodAllocation allocation(DeviceProvider provider, String key, String value) {
        PodDevices devices = provider.decodePod(Map.of(key, value));
        if (!devices.problems().isEmpty() || devices.allocations().size() != 1) {
            throw new AssertionError("not one whole allocation: " + devices);
        }
        return devices.allocations().getFirst();
    }

    /** One container position's shares, for a short expected value. */
    public static List<DeviceShare> shares(DeviceShare... shares) {
        return List.of(shares);
    }
}
