package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.adapters.prometheus.PrometheusApi.Sample;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which nodes a read of now asks for again, and what it gives: the kept series of every node whose
 * fingerprints are what they were, the fresh ones of every other; everything when nothing may be
 * kept (no fingerprints, a series of a node without one, too many changes, every tenth read).
 */
class KeptNodeSeriesTest {
    private static Sample mark(String node, double value) {
        return new Sample(Map.of("__name__", "hami_observe_node_allocations_fingerprint", "node", node,
                "instance", "scheduler:9395"), value);
    }

    private static Sample share(String node, String pod, double bytes) {
        return new Sample(Map.of("namespace", "ns", "pod", pod, "container_index", "0", "node", node,
                "device_uuid", "GPU-" + node), bytes);
    }

    /** A read's series of three figures, as the containers' are: the shares' memory given, the others none. */
    private static KeptNodeSeries.Series containers(Sample... shares) {
        return new KeptNodeSeries.Series(List.of(List.of(shares), List.of(), List.of()));
    }

    private static KeptNodeSeries keptAfterFullRead(List<Sample> marks, Sample... shares) {
        KeptNodeSeries.Plan plan = KeptNodeSeries.plan(null, marks, "cluster");
        assertTrue(plan.readsAll());
        KeptNodeSeries kept = plan.outcome(containers(shares)).kept();
        assertNotNull(kept);
        return kept;
    }

    @Test
    void onlyTheNodesWhoseFingerprintsMovedCameOrWentAreReadAgain() {
        KeptNodeSeries kept = keptAfterFullRead(List.of(mark("a", 1), mark("b", 2), mark("c", 3)),
                share("a", "a-0", 1), share("b", "b-0", 2), share("c", "c-0", 3));
        // a moved, c went, d came: b is kept.
        KeptNodeSeries.Plan plan = KeptNodeSeries.plan(kept, List.of(mark("a", 10), mark("b", 2), mark("d", 4)),
                "cluster");
        assertFalse(plan.readsAll());
        assertEquals(List.of(List.of("a", "c", "d")), plan.nodes(any -> true));
        KeptNodeSeries.Outcome outcome = plan.outcome(containers(share("a", "a-1", 5), share("d", "d-0", 4)));
        assertEquals(List.of(share("a", "a-1", 5), share("b", "b-0", 2), share("d", "d-0", 4)),
                outcome.series().figure(0));
        // Nothing changed since: nothing asked, everything kept.
        KeptNodeSeries.Plan still = KeptNodeSeries.plan(outcome.kept(), List.of(mark("a", 10), mark("b", 2),
                mark("d", 4)), "cluster");
        assertEquals(List.of(), still.nodes(any -> true));
        assertEquals(outcome.series(), still.outcome(containers()).series());
    }

    @Test
    void aNodeOfAnotherClusterOfTheSameNameIsLeftAsKept() {
        Sample eastMark = new Sample(Map.of("node", "n", "cluster", "east"), 1);
        Sample westMark = new Sample(Map.of("node", "n", "cluster", "west"), 2);
        Sample east = new Sample(Map.of("node", "n", "cluster", "east", "pod", "e"), 1);
        Sample west = new Sample(Map.of("node", "n", "cluster", "west", "pod", "w"), 2);
        KeptNodeSeries kept = keptAfterFullRead(List.of(eastMark, westMark), east, west);
        KeptNodeSeries.Plan plan = KeptNodeSeries.plan(kept, List.of(eastMark,
                new Sample(Map.of("node", "n", "cluster", "west"), 3)), "cluster");
        assertEquals(List.of(List.of("n")), plan.nodes(any -> true));
        // The query for node "n" answers both clusters' series: east's answer is not taken, its kept one is.
        Sample westNow = new Sample(Map.of("node", "n", "cluster", "west", "pod", "w2"), 2);
        Sample eastNow = new Sample(Map.of("node", "n", "cluster", "east", "pod", "changed-without-its-mark"), 1);
        assertEquals(List.of(east, westNow), plan.outcome(containers(eastNow, westNow)).series().figure(0));
    }

    @Test
    void everythingIsReadWhereNothingMayBeKept() {
        List<Sample> marks = List.of(mark("a", 1));
        // No fingerprint in the engine (an exporter from before them), with or without a kept state.
        assertTrue(KeptNodeSeries.plan(null, List.of(), "cluster").readsAll());
        KeptNodeSeries kept = keptAfterFullRead(marks, share("a", "a-0", 1));
        assertTrue(KeptNodeSeries.plan(kept, List.of(), "cluster").readsAll());
        assertNull(KeptNodeSeries.plan(null, List.of(), "cluster").outcome(containers(share("a", "a-0", 1))).kept());
        // A series of a node without a fingerprint: the next read reads everything again.
        assertNull(KeptNodeSeries.plan(null, marks, "cluster")
                .outcome(containers(share("a", "a-0", 1), share("old", "o-0", 1))).kept());
        // Read under another cluster label.
        assertTrue(KeptNodeSeries.plan(kept, marks, "region").readsAll());
        // More nodes changed than are worth naming.
        List<Sample> many = new ArrayList<>();
        for (int i = 0; i <= KeptNodeSeries.MOST_NODES_REREAD; i++) {
            many.add(mark("n-" + i, i));
        }
        assertTrue(KeptNodeSeries.plan(kept, many, "cluster").readsAll());
        // A changed node whose name is longer than Kubernetes allows (a hostile target's label).
        assertTrue(KeptNodeSeries.plan(kept, List.of(mark("x".repeat(KeptNodeSeries.LONGEST_NODE_NAME + 1), 1)),
                "cluster").readsAll());
        // Every tenth read, whatever happened.
        KeptNodeSeries.Plan plan = KeptNodeSeries.plan(kept, marks, "cluster");
        for (int read = 2; read < KeptNodeSeries.FULL_READ_EVERY; read++) {
            assertFalse(plan.readsAll(), "read " + read);
            plan = KeptNodeSeries.plan(plan.outcome(containers()).kept(), marks, "cluster");
        }
        assertFalse(plan.readsAll());
        assertTrue(KeptNodeSeries.plan(plan.outcome(containers()).kept(), marks, "cluster").readsAll());
        assertThrows(IllegalStateException.class, () -> KeptNodeSeries.plan(null, marks, "cluster").nodes(any -> true));
    }

    @Test
    void hostileFingerprintsNeitherFailAReadNorWidenIt() {
        String hostile = "<b onload=x>\n\"} or vector(1) #";
        List<Sample> marks = List.of(mark("nan", Double.NaN), mark("huge", -Double.MAX_VALUE),
                mark("inf", Double.POSITIVE_INFINITY), mark(hostile, 1),
                new Sample(Map.of("instance", "no-node-label"), 7));
        KeptNodeSeries kept = keptAfterFullRead(marks, share("nan", "p", 1), share(hostile, "h", 2));
        // The same values again, NaN included, are no change.
        assertEquals(List.of(), KeptNodeSeries.plan(kept, marks, "cluster").nodes(any -> true));
        // The hostile name changed: asked for as itself, quoted, its newline and quotes escaped.
        List<Sample> moved = new ArrayList<>(marks);
        moved.set(3, mark(hostile, 2));
        KeptNodeSeries.Plan plan = KeptNodeSeries.plan(kept, moved, "cluster");
        assertEquals(List.of(List.of(hostile)), plan.nodes(any -> true));
        assertEquals("hami_x{node=~\"<b onload=x>\\x0a\\\"\\\\} or vector\\\\(1\\\\) #\"}",
                PromQl.narrowedToAny("hami_x", "node", plan.nodes(any -> true).get(0)));
        assertEquals(List.of(share(hostile, "h", 3), share("nan", "p", 1)),
                plan.outcome(containers(share(hostile, "h", 3))).series().figure(0));
    }

    @Test
    void aNodeWhoseSeriesOutliveItsFingerprintIsNotKept() {
        KeptNodeSeries kept = keptAfterFullRead(List.of(mark("a", 1), mark("b", 2)), share("a", "a-0", 1),
                share("b", "b-0", 2));
        // b's fingerprint is gone but its series are there: an exporter without fingerprints took it over.
        KeptNodeSeries.Plan plan = KeptNodeSeries.plan(kept, List.of(mark("a", 1)), "cluster");
        assertEquals(List.of(List.of("b")), plan.nodes(any -> true));
        KeptNodeSeries.Outcome outcome = plan.outcome(containers(share("b", "b-0", 2)));
        assertEquals(List.of(share("a", "a-0", 1), share("b", "b-0", 2)), outcome.series().figure(0));
        assertNull(outcome.kept());
    }

    @Test
    void manyChangedNodesAreAskedInGroupsOfAtMostFifty() {
        List<Sample> before = new ArrayList<>();
        List<Sample> after = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            before.add(mark(String.format("n-%03d", i), 1));
            after.add(mark(String.format("n-%03d", i), i < 99 ? 2 : 1));
        }
        KeptNodeSeries.Plan plan = KeptNodeSeries.plan(keptAfterFullRead(before), after, "cluster");
        assertEquals(List.of(50, 49), plan.nodes(any -> true).stream().map(List::size).toList());
        // Fewer a group where the query would grow too long: here, more than ten names.
        assertEquals(List.of(10, 10, 10, 10, 10, 10, 10, 10, 10, 9),
                plan.nodes(group -> group.size() <= 10).stream().map(List::size).toList());
        // One name is asked alone whatever its length (the templates' own bound is QuerySizeTest's).
        assertEquals(99, plan.nodes(group -> false).size());
    }

    /**
     * Random histories of two clusters sharing node names: nodes come, go and change (their series
     * and fingerprint together), and at each read the engine answers what the plan asks (a name's
     * query answering every cluster's node of that name). Every read gives exactly the series the
     * engine holds, as a read of every node would.
     */
    @Test
    void everyReadGivesWhatTheEngineHoldsWhateverChanges() {
        for (long seed = 1; seed <= 40; seed++) {
            java.util.Random random = new java.util.Random(seed);
            Map<KeptNodeSeries.Node, Double> fingerprints = new java.util.TreeMap<>();
            Map<KeptNodeSeries.Node, List<Sample>> series = new java.util.TreeMap<>();
            KeptNodeSeries kept = null;
            int partialReads = 0;
            for (int read = 0; read < 60; read++) {
                int changes = random.nextInt(read % 7 == 0 ? 40 : 4);
                for (int change = 0; change < changes; change++) {
                    KeptNodeSeries.Node node = new KeptNodeSeries.Node(random.nextBoolean() ? "east" : "west",
                            "n-" + random.nextInt(30));
                    if (random.nextInt(5) == 0) {
                        fingerprints.remove(node);
                        series.remove(node);
                    } else {
                        List<Sample> pods = new ArrayList<>();
                        for (int pod = random.nextInt(4); pod > 0; pod--) {
                            pods.add(new Sample(Map.of("cluster", node.cluster(), "node", node.node(),
                                    "pod", "p-" + random.nextInt(1000)), random.nextInt(16)));
                        }
                        fingerprints.put(node, random.nextDouble());
                        series.put(node, pods);
                    }
                }
                List<Sample> marks = new ArrayList<>();
                fingerprints.forEach((node, value) -> marks.add(new Sample(Map.of("cluster", node.cluster(),
                        "node", node.node()), value)));
                KeptNodeSeries.Plan plan = KeptNodeSeries.plan(kept, marks, "cluster");
                Set<String> asked = new java.util.HashSet<>();
                if (plan.readsAll()) {
                    series.keySet().forEach(node -> asked.add(node.node()));
                } else {
                    plan.nodes(group -> group.size() <= 7).forEach(asked::addAll);
                    partialReads++;
                }
                List<Sample> answered = new ArrayList<>();
                series.forEach((node, pods) -> {
                    if (asked.contains(node.node())) {
                        answered.addAll(pods);
                    }
                });
                KeptNodeSeries.Outcome outcome = plan.outcome(containers(answered.toArray(Sample[]::new)));
                List<Sample> truth = new ArrayList<>();
                series.values().forEach(truth::addAll);
                assertEquals(sorted(truth), sorted(outcome.series().figure(0)), "seed " + seed + ", read " + read);
                kept = outcome.kept();
            }
            assertTrue(partialReads > 30, "seed " + seed + ": most reads keep (" + partialReads + ")");
        }
    }

    private static List<String> sorted(List<Sample> samples) {
        return samples.stream().map(sample -> new java.util.TreeMap<>(sample.labels()) + "=" + sample.value())
                .sorted().toList();
    }
}
