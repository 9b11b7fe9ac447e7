package io.hamiobserve.role.scheduler;

import io.hamiobserve.domain.Ghost;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.NodeStamps;
import io.hamiobserve.domain.PodLifecycle;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.exposition.Families;
import io.hamiobserve.exposition.FamilyDecorator;
import io.hamiobserve.exposition.FamilySelection;
import io.hamiobserve.exposition.RenderCache;
import io.hamiobserve.exposition.SegmentedExposition;
import io.hamiobserve.exposition.Segments;
import io.hamiobserve.exposition.testing.CountingSegments;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * The allocation exposition keyed by the ledger's node stamps ({@link Ledger#stampedView}): after
 * any sequence of events, what a scrape writes from the segments it kept equals a rendering from
 * scratch, byte for byte, and an event renders again only the nodes it touched.
 */
class StampedAllocationExpositionTest {
    private static final Families NO_TAIL = new Families();

    private final AtomicLong rendered = new AtomicLong();
    private final AtomicLong podsRendered = new AtomicLong();

    private String write(Ledger.StampedView stamped, NodeStamps stamps, Shard shard, boolean legacy,
                         RenderCache cache, ExpositionFormat format) throws IOException {
        SegmentedExposition exposition = new SegmentedExposition(cache,
                legacy ? AllocationMetrics.LEGACY_NAMES : FamilyDecorator.NONE, FamilySelection.ALL);
        AllocationMetrics.describe(stamped.view(), stamps, shard, ContainerSeries.POD_EFFECTIVE,
                new CountingSegments(exposition, rendered, podsRendered));
        exposition.append(NO_TAIL);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        exposition.write(out, format);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void afterRandomEventsTheKeptSegmentsWriteWhatAFreshRenderingWrites() throws IOException {
        for (long seed = 1; seed <= 16; seed++) {
            RandomCluster cluster = new RandomCluster(seed);
            Ledger ledger = cluster.ledger(40);
            boolean legacy = seed % 2 == 0;
            List<Shard> shards = seed % 3 == 0 ? List.of(new Shard(0, 2), new Shard(1, 2)) : List.of(Shard.ALL);
            List<RenderCache> kept = new ArrayList<>();
            shards.forEach(shard -> kept.add(new RenderCache()));
            for (int step = 0; step < 40; step++) {
                // Single events as well as bursts: pods put, changed, moved and removed, nodes
                // re-registering (cards moving between nodes), owners above pods changing.
                cluster.change(ledger, step % 5 == 0 ? 1 + step % 7 : 1);
                Ledger.StampedView stamped = ledger.stampedView();
                assertEquals(podRuns(stamped.view().pods()), stamped.stamps().podRuns(), "seed " + seed + ", step " + step);
                for (int i = 0; i < shards.size(); i++) {
                    for (ExpositionFormat format : ExpositionFormat.values()) {
                        String fromScratch = write(stamped, null, shards.get(i), legacy, new RenderCache(), format);
                        assertEquals(fromScratch, write(stamped, stamped.stamps(), shards.get(i), legacy, kept.get(i),
                                format), "seed " + seed + ", step " + step + ", " + shards.get(i) + ", " + format);
                    }
                }
            }
        }
    }

    /** A synced ledger of 20 nodes of two cards, each running five pods on its own cards. */
    private static Ledger twentyNodesOfFivePods() {
        Ledger ledger = new Ledger();
        for (int node = 0; node < 20; node++) {
            ledger.putNode(RandomCluster.nodeName(node), List.of(card(node, 0), card(node, 1)));
            for (int pod = 0; pod < 5; pod++) {
                ledger.putPod(placement("job-" + node + "-" + pod, node, node, pod % 2, 1024));
            }
        }
        ledger.markSynced(1_000);
        return ledger;
    }

    @Test
    void aPodEventRendersOnlyItsNodeAndTheNodeOfTheCardItHolds() throws IOException {
        Ledger ledger = twentyNodesOfFivePods();
        RenderCache cache = new RenderCache();
        Ledger.StampedView first = ledger.stampedView();
        String initial = write(first, first.stamps(), Shard.ALL, false, cache, ExpositionFormat.PROMETHEUS_TEXT);
        long start = rendered.get();
        long podsStart = podsRendered.get();
        assertEquals(100, podsStart, "every pod, written once");
        assertEquals(initial, write(ledger.stampedView(), ledger.stampedView().stamps(), Shard.ALL, false, cache,
                ExpositionFormat.PROMETHEUS_TEXT));
        assertEquals(start, rendered.get(), "an unchanged ledger renders nothing");

        // A pod on node 3 holding a share of a card node 9 registers: node 3's pods, node 9's cards,
        // and the namespace's quota use.
        ledger.putPod(placement("borrower", 3, 9, 0, 2048));
        Ledger.StampedView after = ledger.stampedView();
        assertNotEquals(first.stamps().of(RandomCluster.nodeName(9)), after.stamps().of(RandomCluster.nodeName(9)));
        assertEquals(first.stamps().of(RandomCluster.nodeName(5)), after.stamps().of(RandomCluster.nodeName(5)));
        String written = write(after, after.stamps(), Shard.ALL, false, cache, ExpositionFormat.PROMETHEUS_TEXT);
        long renderedAfterEvent = rendered.get() - start;
        assertEquals(write(after, null, Shard.ALL, false, new RenderCache(), ExpositionFormat.PROMETHEUS_TEXT),
                written);
        // One stamp per node covers its cards and its pods: both nodes' two segments, and the quota
        // use (no ghost, no ghost segment).
        assertEquals(2 + 2 + 1, renderedAfterEvent);
        // Of node 3's pods only the new one is written (the fresh rendering above wrote all 101).
        long podsBeforeFresh = podsRendered.get() - 101;
        assertEquals(1, podsBeforeFresh - podsStart, "node 3's five other pods' lines are kept");

        // The pod changes in place (another record): again that pod only, and the same bytes as fresh.
        long beforeChange = podsRendered.get();
        ledger.putPod(placement("borrower", 3, 9, 0, 4096));
        Ledger.StampedView changed = ledger.stampedView();
        String afterChange = write(changed, changed.stamps(), Shard.ALL, false, cache, ExpositionFormat.PROMETHEUS_TEXT);
        assertEquals(1, podsRendered.get() - beforeChange);
        assertEquals(write(changed, null, Shard.ALL, false, new RenderCache(), ExpositionFormat.PROMETHEUS_TEXT),
                afterChange);
        assertTrue(afterChange.contains("pod=\"borrower\",zone=\"vGPU\"} 4.294967296E9"), afterChange);
    }

    @Test
    void aGhostAppearingOrLeavingRendersOnlyItsNodesGhostsAndWritesWhatAFreshRenderingWrites() throws IOException {
        Ledger ledger = twentyNodesOfFivePods();
        Map<String, AtomicLong> bySection = new ConcurrentHashMap<>();
        RenderCache cache = new RenderCache();
        String before = writeCounted(ledger.stampedView(), cache, bySection);
        assertFalse(before.contains("hami_observe_ghost_allocation"), "no ghost, no ghost family: " + before);
        assertEquals(0, ghostsRendered(bySection), "no ghost, no ghost segment");

        // A pod on node 4 starts deleting: node 4's ghosts only, as a fresh rendering writes them.
        bySection.clear();
        ledger.putPod(placement("job-4-1", 4, 4, 1, 1024)
                .withLifecycle(new PodLifecycle(1_000_000L, true, 2_000_000L, true)));
        String appeared = writeCounted(ledger.stampedView(), cache, bySection);
        assertEquals(fresh(ledger), appeared);
        assertTrue(appeared.contains("hami_observe_ghost_allocation_cards{device_uuid=\"GPU-4-1\",namespace=\"team\","
                + "node=\"" + RandomCluster.nodeName(4) + "\",pod=\"job-4-1\",reason=\"deleting\"} 0.1"), appeared);
        assertEquals(1, ghostsRendered(bySection), "node 4's ghosts only");

        // A card node 9 registers shrinks while a ghost on node 3 holds a share of it: the ghost's
        // size changes though node 3's pods did not (a registration changes every stamp).
        ledger.putPod(placement("borrower", 3, 9, 0, 4096)
                .withLifecycle(new PodLifecycle(1_000_000L, false, PodLifecycle.UNKNOWN_TIME, false)));
        String borrowed = writeCounted(ledger.stampedView(), cache, bySection);
        assertEquals(fresh(ledger), borrowed);
        ledger.putNode(RandomCluster.nodeName(9), List.of(new RegisteredCard("GPU-9-0", 0, 10, 8192, 100,
                "NVIDIA A100", 0, CardMode.HAMI_CORE, true), card(9, 1)));
        bySection.clear();
        String shrunk = writeCounted(ledger.stampedView(), cache, bySection);
        assertEquals(fresh(ledger), shrunk);
        assertNotEquals(borrowed, shrunk);
        assertEquals(2, ghostsRendered(bySection), "the ghosts of nodes 3 and 4");

        // The deleting pod and the borrower leave: the families go with the last ghost.
        ledger.removePod("uid-job-4-1");
        ledger.removePod("uid-borrower");
        bySection.clear();
        String left = writeCounted(ledger.stampedView(), cache, bySection);
        assertEquals(fresh(ledger), left);
        assertFalse(left.contains("hami_observe_ghost_allocation"), left);
        assertEquals(0, ghostsRendered(bySection), "no ghost left, no ghost segment");
    }

    private static long ghostsRendered(Map<String, AtomicLong> bySection) {
        AtomicLong ghosts = bySection.get("ghosts");
        return ghosts == null ? 0 : ghosts.get();
    }

    /** The runs of {@code pods} and their ghosts as a reader walking them finds them. */
    private static List<NodeStamps.PodRun> podRuns(List<PodPlacement> pods) {
        List<NodeStamps.PodRun> runs = new ArrayList<>();
        int from = 0;
        for (int i = 1; i <= pods.size(); i++) {
            if (i == pods.size() || !pods.get(i).node().equals(pods.get(from).node())) {
                runs.add(new NodeStamps.PodRun(pods.get(from).node(), i - from,
                        (int) pods.subList(from, i).stream().filter(pod -> Ghost.of(pod).isPresent()).count()));
                from = i;
            }
        }
        return runs;
    }

    /** The ledger's exposition rendered from scratch, keyed by records. */
    private String fresh(Ledger ledger) throws IOException {
        return write(ledger.stampedView(), null, Shard.ALL, false, new RenderCache(), ExpositionFormat.OPENMETRICS_TEXT);
    }

    /** The exposition keyed by the view's stamps, counting per section the segments rendered anew. */
    private static String writeCounted(Ledger.StampedView stamped, RenderCache cache, Map<String, AtomicLong> bySection)
            throws IOException {
        SegmentedExposition exposition = new SegmentedExposition(cache, FamilyDecorator.NONE, FamilySelection.ALL);
        Segments counting = (name, layout) -> {
            AtomicLong inSection = bySection.computeIfAbsent(name, unused -> new AtomicLong());
            return new CountingSegments(exposition, inSection).section(name, layout);
        };
        AllocationMetrics.describe(stamped.view(), stamped.stamps(), Shard.ALL, ContainerSeries.POD_EFFECTIVE,
                counting);
        exposition.append(NO_TAIL);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        exposition.write(out, ExpositionFormat.OPENMETRICS_TEXT);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static RegisteredCard card(int node, int index) {
        return new RegisteredCard("GPU-" + node + "-" + index, index, 10, 16384, 100, "NVIDIA A100", 0,
                CardMode.HAMI_CORE, true);
    }

    private static PodPlacement placement(String name, int node, int cardNode, int card, long memoryMib) {
        return new PodPlacement(new PodRef("team", name, "uid-" + name), RandomCluster.nodeName(node),
                PodPhase.RUNNING, true, List.of(new ContainerShares(0, "main", false,
                List.of(new DeviceShare("GPU-" + cardNode + "-" + card, "NVIDIA", memoryMib, 10)))));
    }
}
