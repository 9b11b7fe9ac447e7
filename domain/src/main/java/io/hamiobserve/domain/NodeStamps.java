package io.hamiobserve.domain;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * When each node's part of the allocation view last changed, as the {@link Ledger} tells it at
 * the moment of a view ({@link Ledger#stampedView}): a node's {@link #of key} is equal to an
 * earlier one exactly when nothing that node's series say has changed in between (its cards and
 * their totals, its pods and their owners), or more often; never equal after such a change.
 *
 * <p>A scrape keeps what it rendered of each node under this key and renders again only the nodes
 * whose key is new, without comparing the node's records. Keys are made per node on request, so a
 * scrape that asks for a few nodes costs a few keys.
 *
 * @param registry the ledger's version when any node's registration last changed: every key
 *                 changes with it (a card's type or owner may change what other nodes' pods say)
 * @param nodes    per node touched since then, the version of its last change; others are at
 *                 {@code registry}
 * @param podRuns  the view's pods as it lists them, node by node: each node with pods, how many,
 *                 and how many of them are {@link Ghost ghosts}, so that a reader splits the view's
 *                 pods into nodes, and finds the nodes with ghosts, without reading each pod
 */
public record NodeStamps(long registry, Map<String, Long> nodes, List<PodRun> podRuns) {
    public NodeStamps {
        nodes = Map.copyOf(nodes);
        podRuns = List.copyOf(podRuns);
    }

    /**
     * A node's pods in the view: the next {@code pods} of its pod list (at least one), of which
     * {@code ghosts} are ghosts ({@link Ghost#of} present).
     */
    public record PodRun(String node, int pods, int ghosts) {
        public PodRun {
            Objects.requireNonNull(node, "node");
            if (pods < 1 || ghosts < 0 || ghosts > pods) {
                throw new IllegalArgumentException("a run holds at least one pod and at most as many ghosts: "
                        + pods + " pods, " + ghosts + " ghosts");
            }
        }
    }

    /** The key of {@code node}'s part of the view. */
    public Key of(String node) {
        Objects.requireNonNull(node, "node");
        return new Key(node, registry, nodes.getOrDefault(node, registry));
    }

    /** One node's key: its name, the registration's stamp and the node's own. */
    public record Key(String node, long registry, long stamp) {
    }
}
