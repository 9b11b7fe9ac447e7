package io.hamiobserve.role.scheduler;

import io.hamiobserve.domain.PodPlacement;

import java.util.Arrays;
import java.util.List;

/**
 * A view's pods split into nodes: the view lists them node by node, so each node's pods are one
 * run of the list. Found once per exposition, for every section that has a segment per node's pods.
 */
final class NodeRuns {
    private final String[] nodes;
    private final int[] starts;

    private NodeRuns(String[] nodes, int[] starts) {
        this.nodes = nodes;
        this.starts = starts;
    }

    /** The runs of {@code pods}, which come node by node. */
    static NodeRuns of(List<PodPlacement> pods) {
        String[] nodes = new String[16];
        int[] starts = new int[17];
        int count = 0;
        String current = null;
        for (int i = 0; i < pods.size(); i++) {
            String node = pods.get(i).node();
            if (!node.equals(current)) {
                if (count == nodes.length) {
                    nodes = Arrays.copyOf(nodes, count * 2);
                    starts = Arrays.copyOf(starts, count * 2 + 1);
                }
                nodes[count] = node;
                starts[count] = i;
                count++;
                current = node;
            }
        }
        starts[count] = pods.size();
        return new NodeRuns(Arrays.copyOf(nodes, count), Arrays.copyOf(starts, count + 1));
    }

    int count() {
        return nodes.length;
    }

    String node(int run) {
        return nodes[run];
    }

    /** The index of the run's first pod. */
    int from(int run) {
        return starts[run];
    }

    /** The index after the run's last pod. */
    int to(int run) {
        return starts[run + 1];
    }
}
