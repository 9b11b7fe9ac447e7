package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.adapters.prometheus.PrometheusApi.Sample;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Series of the whole fleet that one node's allocations write (each share's memory and cores and
 * each container's name; each card's registration and totals), as the last read of now found them,
 * node by node, with what the nodes' fingerprints of those series said then
 * ({@code hami_observe_node_allocations_fingerprint} for the containers',
 * {@code hami_observe_node_cards_fingerprint} for the cards'). A read of now asks the fingerprints
 * first ({@link #plan}): where a node's are what they were, its series are too, and are taken from
 * here instead of being selected again; only the nodes whose fingerprints moved, came or went are
 * read ({@link Plan#nodes}). At 10,000 containers the three queries over every container were about
 * half of what a read of now cost the engine, and the cards' eight allocation figures most of the
 * rest of the cards' (docs/benchmarks.md); an allocation changes far less often than a use. The
 * price is one more copy of those series in the console's memory.
 *
 * <p>Everything is read again, and nothing kept where that would be wrong: where the engine holds
 * no fingerprint (an exporter from before them), where a series read has no fingerprint of its
 * node (a scheduler of another version beside one with them), when more nodes changed than
 * {@link #MOST_NODES_REREAD} or a changed node's name is longer than Kubernetes allows (its query
 * could pass the engine's length limit), and every {@link #FULL_READ_EVERY}th read whatever happened, which
 * also bounds how long a crafted fingerprint collision (the hash is fast, not cryptographic) could
 * hide a change. Immutable: a read plans on the kept state it saw and leaves a new one.
 */
final class KeptNodeSeries {
    /** Every how many reads of now everything is read again. */
    static final int FULL_READ_EVERY = 10;
    /** Above this many changed nodes a read asks for every node, in one query a figure. */
    static final int MOST_NODES_REREAD = 100;
    /** At most this many nodes in one query's {@code node=~"…"} (fewer where their names are long). */
    static final int NODES_PER_QUERY = 50;

    /** The longest node name Kubernetes allows (a DNS subdomain). */
    static final int LONGEST_NODE_NAME = 253;

    /** A node of a cluster (the cluster label's value; empty with one cluster). */
    record Node(String cluster, String node) implements Comparable<Node> {
        /** The node a series is of, by its cluster and node labels. */
        static Node of(Sample series, String clusterLabel) {
            return new Node(series.label(clusterLabel), series.label("node"));
        }

        @Override
        public int compareTo(Node other) {
            int byCluster = cluster.compareTo(other.cluster);
            return byCluster != 0 ? byCluster : node.compareTo(other.node);
        }
    }

    /** A read's series: each figure's (one query's answer), in the order the reader asks them. */
    record Series(List<List<Sample>> figures) {
        Series {
            figures = figures.stream().map(List::copyOf).toList();
        }

        /** The series of the {@code index}th figure. */
        List<Sample> figure(int index) {
            return figures.get(index);
        }

        /** These series, node by node of each cluster (a node with none of a figure has an empty list of it). */
        Map<Node, Series> byNode(String clusterLabel) {
            List<Map<Node, List<Sample>>> grouped = figures.stream().map(series -> grouped(series, clusterLabel))
                    .toList();
            Set<Node> nodes = new TreeSet<>();
            grouped.forEach(figure -> nodes.addAll(figure.keySet()));
            Map<Node, Series> byNode = new TreeMap<>();
            for (Node node : nodes) {
                byNode.put(node, new Series(grouped.stream().map(figure -> figure.getOrDefault(node, List.of()))
                        .toList()));
            }
            return byNode;
        }

        /** The series of every one of {@code parts} (each of {@code figures} figures), in their order. */
        static Series joined(java.util.Collection<Series> parts, int figures) {
            List<List<Sample>> joined = new ArrayList<>();
            for (int figure = 0; figure < figures; figure++) {
                List<Sample> series = new ArrayList<>();
                for (Series part : parts) {
                    series.addAll(part.figure(figure));
                }
                joined.add(series);
            }
            return new Series(joined);
        }

        private static Map<Node, List<Sample>> grouped(List<Sample> series, String clusterLabel) {
            Map<Node, List<Sample>> byNode = new HashMap<>();
            series.forEach(one -> byNode.computeIfAbsent(Node.of(one, clusterLabel), node -> new ArrayList<>()).add(one));
            return byNode;
        }
    }

    private final String clusterLabel;
    private final Map<Node, Set<List<Object>>> fingerprints;
    private final Map<Node, Series> nodes;
    private final int readsBeforeFull;

    private KeptNodeSeries(String clusterLabel, Map<Node, Set<List<Object>>> fingerprints, Map<Node, Series> nodes,
                           int readsBeforeFull) {
        this.clusterLabel = clusterLabel;
        this.fingerprints = fingerprints;
        this.nodes = nodes;
        this.readsBeforeFull = readsBeforeFull;
    }

    /**
     * What to read, given the fingerprints the engine holds now ({@code marks}, every series of
     * the family with all its labels) and what was kept ({@code kept}, null for nothing).
     */
    static Plan plan(KeptNodeSeries kept, List<Sample> marks, String clusterLabel) {
        Map<Node, Set<List<Object>>> now = new HashMap<>();
        for (Sample mark : marks) {
            // Every label (the scheduler's instance among them: shards, replicas) and the value.
            now.computeIfAbsent(Node.of(mark, clusterLabel), node -> new HashSet<>())
                    .add(List.of(new TreeMap<>(mark.labels()), mark.value()));
        }
        if (now.isEmpty() || kept == null || !kept.clusterLabel.equals(clusterLabel) || kept.readsBeforeFull <= 0) {
            return new Plan(clusterLabel, now, null, null);
        }
        Set<Node> changed = new TreeSet<>();
        for (Map.Entry<Node, Set<List<Object>>> node : now.entrySet()) {
            if (!node.getValue().equals(kept.fingerprints.get(node.getKey()))) {
                changed.add(node.getKey());
            }
        }
        for (Node node : kept.fingerprints.keySet()) {
            if (!now.containsKey(node)) {
                changed.add(node);
            }
        }
        // A name longer than Kubernetes allows is not narrowed to (its query could pass the
        // engine's length limit, QuerySizeTest): everything is read.
        boolean named = changed.stream().allMatch(node -> node.node().length() <= LONGEST_NODE_NAME);
        return changed.size() > MOST_NODES_REREAD || !named ? new Plan(clusterLabel, now, null, null)
                : new Plan(clusterLabel, now, kept, changed);
    }

    /**
     * One read's plan: every node ({@link #readsAll}), or the changed ones, the rest taken from
     * what was kept.
     */
    static final class Plan {
        private final String clusterLabel;
        private final Map<Node, Set<List<Object>>> now;
        private final KeptNodeSeries before;
        private final Set<Node> changed;

        private Plan(String clusterLabel, Map<Node, Set<List<Object>>> now, KeptNodeSeries before, Set<Node> changed) {
            this.clusterLabel = clusterLabel;
            this.now = now;
            this.before = before;
            this.changed = changed;
        }

        boolean readsAll() {
            return changed == null;
        }

        /**
         * The names of the nodes to read (sorted, each once: a name shared by clusters reads each
         * cluster's node of that name, and the others' series are left out of the merge), at most
         * {@link #NODES_PER_QUERY} a group and each group's query within {@code fits}: one query a
         * figure and group.
         */
        List<List<String>> nodes(java.util.function.Predicate<List<String>> fits) {
            if (changed == null) {
                throw new IllegalStateException("this read asks for every node");
            }
            List<List<String>> groups = new ArrayList<>();
            List<String> group = new ArrayList<>();
            for (String name : changed.stream().map(Node::node).distinct().sorted().toList()) {
                group.add(name);
                if (group.size() > NODES_PER_QUERY || (group.size() > 1 && !fits.test(group))) {
                    group.remove(group.size() - 1);
                    groups.add(List.copyOf(group));
                    group = new ArrayList<>(List.of(name));
                }
            }
            if (!group.isEmpty()) {
                groups.add(List.copyOf(group));
            }
            return groups;
        }

        /**
         * What the read gives, {@code read} being its answers (every node's, or the changed
         * nodes'), and what to keep for the next read: null where nothing may be kept.
         */
        Outcome outcome(Series read) {
            Map<Node, Series> fresh = read.byNode(clusterLabel);
            if (changed == null) {
                boolean everyNodeFingerprinted = now.keySet().containsAll(fresh.keySet());
                KeptNodeSeries next = now.isEmpty() || !everyNodeFingerprinted ? null
                        : new KeptNodeSeries(clusterLabel, now, fresh, FULL_READ_EVERY - 1);
                return new Outcome(read, next);
            }
            Map<Node, Series> merged = new TreeMap<>(before.nodes);
            changed.forEach(merged::remove);
            boolean everyNodeFingerprinted = true;
            for (Map.Entry<Node, Series> node : fresh.entrySet()) {
                if (changed.contains(node.getKey())) {
                    merged.put(node.getKey(), node.getValue());
                    everyNodeFingerprinted &= now.containsKey(node.getKey());
                }
            }
            // A node whose series outlived its fingerprint (an exporter from before them took over)
            // would never be read again: nothing is kept, and the next read reads everything.
            return new Outcome(Series.joined(merged.values(), read.figures().size()), everyNodeFingerprinted
                    ? new KeptNodeSeries(clusterLabel, now, merged, before.readsBeforeFull - 1) : null);
        }
    }

    /** A read's series, and what the next read may reuse (null: nothing). */
    record Outcome(Series series, KeptNodeSeries kept) {
    }
}
