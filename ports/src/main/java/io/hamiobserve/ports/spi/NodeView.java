package io.hamiobserve.ports.spi;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a {@link DeviceProvider} may see of a node: no Kubernetes type, only text. Entries with a
 * {@code null} key or value (which a hand-written dump can hold) are dropped, so a provider never
 * meets one.
 *
 * @param name        the node's name; cards that HAMi synthesises from resources are named after it
 * @param annotations the node's annotations (a caller may pass only the keys providers declare)
 * @param labels      the node's labels (likewise)
 * @param capacity    {@code status.capacity}: resource name to quantity as Kubernetes writes it
 *                    ({@code 8}, {@code 1k}, {@code 64Gi})
 * @param allocatable {@code status.allocatable}, in the same form
 */
public record NodeView(String name, Map<String, String> annotations, Map<String, String> labels,
                       Map<String, String> capacity, Map<String, String> allocatable) {
    public NodeView {
        name = name == null ? "" : name;
        annotations = text(annotations);
        labels = text(labels);
        capacity = text(capacity);
        allocatable = text(allocatable);
    }

    /** A node with annotations only, as the register-annotation vendors read it. */
    public static NodeView annotated(String name, Map<String, String> annotations) {
        return new NodeView(name, annotations, Map.of(), Map.of(), Map.of());
    }

    /** A node with resources only, as the vendors that HAMi reads from {@code status.capacity}. */
    public static NodeView withCapacity(String name, Map<String, String> capacity) {
        return new NodeView(name, Map.of(), Map.of(), capacity, Map.of());
    }

    private static Map<String, String> text(Map<String, String> map) {
        if (map == null || map.isEmpty()) {
            return Map.of();
        }
        Map<String, String> copy = new LinkedHashMap<>(map.size() * 2);
        map.forEach((key, value) -> {
            if (key != null && value != null) {
                copy.put(key, value);
            }
        });
        return Collections.unmodifiableMap(copy);
    }
}
