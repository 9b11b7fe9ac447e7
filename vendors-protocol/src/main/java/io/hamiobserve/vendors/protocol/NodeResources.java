package io.hamiobserve.vendors.protocol;

import io.hamiobserve.ports.spi.NodeView;

/** A node's resources ({@code status.capacity}) as HAMi reads them. */
public final class NodeResources {
    private NodeResources() {
    }

    /**
     * The resource's whole value; 0 when the node lacks it or it does not read (a problem, noted
     * under the resource's name), as HAMi ignores {@code AsInt64}'s verdict for such resources.
     */
    public static long whole(NodeView node, String resource, Problems problems) {
        String text = node.capacity().get(resource);
        if (text == null) {
            return 0;
        }
        return ResourceQuantity.whole(text, "capacity " + resource, Long.MAX_VALUE, problems.about(resource)).orElse(0);
    }
}
