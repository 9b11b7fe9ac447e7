package io.hamiobserve.role.scheduler;

import io.hamiobserve.domain.Ghost;
import io.hamiobserve.domain.NodeStamps;
import io.hamiobserve.domain.PodPlacement;

import java.util.Arrays;
import java.util.List;

/**
 * A view's pods split into nodes, with the count of ghosts ({@link Ghost}) among each node's: the
 * view lists the pods node by node, so each node's pods are one run of the list. Found once per
 * exposition, for every section that has a segment per node's pods.
 */
final class NodeRuns {
    private final String[] nodes;
    private final int[] starts;
    private final int[] ghosts;

    private NodeRuns(String[] nodes, int[] starts, int[] ghosts) {
        this.nodes = nodes;
        this.starts = starts;
        this.ghosts = ghosts;
    }

    /** The runs of {@code pods}, which come node by node, read pod by pod. */
    static NodeRuns of(List<PodPlacement> pods) {
        String[] nodes = new String[16];
        int[] starts = new int[17];
        int[] ghosts = new int[16];
        int count = 0;
        String current = null;
        for (int i = 0; i < pods.size(); i++) {
            PodPlacement pod = pods.get(i);
            if (!pod.node().equals(current)) {
                if (count == nodes.length) {
                    nodes = Arrays.copyOf(nodes, count * 2);
                    starts = Arrays.copyOf(starts, count * 2 + 1);
                    ghosts = Arrays.copyOf(ghosts, count * 2);
                }
                nodes[count] = pod.node();
                starts[count] = i;
                count++;
                current = pod.node();
            }
            if (Ghost.of(pod).isPresent()) {
                ghosts[count - 1]++;
            }
        }
        starts[count] = pods.size();
        return new NodeRuns(Arrays.copyOf(nodes, count), Arrays.copyOf(starts, count + 1), Arrays.copyOf(ghosts, count));
    }

    /**
     * The runs of {@code pods} as {@code stamps} of the same view tell them, without reading a pod
     * (at 100,000 pods a walk reads 100,000 records scattered over the heap, 10-20 ms); read pod by
     * pod when they do not count exactly {@code pods} (stamps of another view, or of the whole view
     * while {@code pods} are a shard's).
     */
    static NodeRuns of(List<PodPlacement> pods, NodeStamps stamps) {
        List<NodeStamps.PodRun> told = stamps.podRuns();
        String[] nodes = new String[told.size()];
        int[] starts = new int[told.size() + 1];
        int[] ghosts = new int[told.size()];
        int at = 0;
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = told.get(i).node();
            starts[i] = at;
            ghosts[i] = told.get(i).ghosts();
            at += told.get(i).pods();
        }
        starts[nodes.length] = at;
        return at == pods.size() ? new NodeRuns(nodes, starts, ghosts) : of(pods);
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

    /** How many of the run's pods are ghosts. */
    int ghosts(int run) {
        return ghosts[run];
    }
}
