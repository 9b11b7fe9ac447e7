package io.hamiobserve.ports.spi;

import java.util.Map;
import java.util.Set;

/**
 * One device vendor family as HAMi's scheduler knows it: how a node's cards of that vendor are
 * found (a register annotation, or the node's resource quantities and labels) and how a pod's
 * allocation annotations of that vendor read, in the vendor's own formats and units.
 *
 * <p>A new vendor is a new module that {@code requires io.hamiobserve.ports} and declares
 * {@code provides io.hamiobserve.ports.spi.DeviceProvider with ...}; the Kubernetes adapter
 * {@code uses} this service and names no provider.
 *
 * <p><b>Contract.</b> A provider reads only what {@link #keys()} declares, so the caller may hand
 * it a view holding nothing else. Its decoders never throw on input: every part of a value that
 * does not decode is left out and named in a {@link Problem} with a stable, label-safe reason,
 * and the parts that do decode are still returned. Quantities are checked where they enter, as
 * {@link io.hamiobserve.domain.Quantities} says. Decoding is a pure function of its argument,
 * so the caller may decode a node or pod again at any time and get the same result.
 */
public interface DeviceProvider {
    /**
     * A short, stable, label-safe name of the vendor family, e.g. {@code nvidia}, {@code ascend};
     * skips are counted per provider under this name.
     */
    String name();

    /** Every node annotation, label, resource and pod annotation this provider reads. */
    DeviceKeys keys();

    /** The node's cards of this vendor; {@link NodeDevices#absent()} when it has none. */
    NodeDevices decodeNode(NodeView node);

    /**
     * The pod's allocations of this vendor, from its annotations (only the keys of
     * {@link DeviceKeys#podAnnotations()} need be present); none when it holds no such key.
     */
    PodDevices decodePod(Map<String, String> annotations);

    /**
     * The resource names a pod requests (in a container's {@code resources.limits} or
     * {@code requests}) to be scheduled onto this vendor's cards by HAMi, e.g. {@code nvidia.com/gpu},
     * {@code nvidia.com/gpumem}: a pod that requests one and has no node is unmet demand.
     *
     * <p>By default the node resources this provider reads ({@link DeviceKeys#nodeResources()}):
     * a vendor whose cards register as node resources is requested under the same names. A vendor
     * that registers through an annotation declares its own.
     */
    default Set<String> podResources() {
        return keys().nodeResources();
    }
}
