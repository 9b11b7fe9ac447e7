package io.hamiobserve.role.scheduler;

import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.PodLifecycle;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.exposition.Families;
import io.hamiobserve.exposition.FamilyDecorator;
import io.hamiobserve.exposition.RenderCache;
import io.hamiobserve.exposition.testing.Promtool;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ghost allocations on the allocation endpoint: per share held by a pod being deleted or never started. */
class GhostExpositionTest {
    private static final long PLACED = 1_800_000_000_000L;
    private static final long DELETION = PLACED + 3_600_000L;

    private static String write(AllocationView view, Shard shard, RenderCache cache) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AllocationMetrics.exposition(view, shard, FamilyDecorator.NONE, ContainerSeries.POD_EFFECTIVE,
                cache, new Families(), PLACED).write(out, ExpositionFormat.PROMETHEUS_TEXT);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static PodPlacement pod(String name, String node, String uuid, long memoryMib, long cores,
                                    PodPhase phase, PodLifecycle life) {
        return new PodPlacement(new PodRef("ml", name, name + "-uid"), node, phase, true,
                List.of(new ContainerShares(0, "main", false, List.of(new DeviceShare(uuid, "NVIDIA", memoryMib, cores)))))
                .withLifecycle(life);
    }

    private static Ledger ledger() {
        Ledger ledger = new Ledger();
        ledger.putNode("node-a", List.of(card("GPU-a", 0)));
        ledger.putNode("node-b", List.of(card("GPU-b", 0)));
        ledger.putPod(pod("live", "node-a", "GPU-a", 8192, 10, PodPhase.RUNNING,
                new PodLifecycle(PLACED, false, PodLifecycle.UNKNOWN_TIME, true)));
        // A quarter of the memory and half the cores: half a card.
        ledger.putPod(pod("stuck-deleting", "node-a", "GPU-a", 20480, 50, PodPhase.RUNNING,
                new PodLifecycle(PLACED, true, DELETION, true)));
        ledger.putPod(pod("never-ran", "node-b", "GPU-b", 61440, 10, PodPhase.PENDING,
                new PodLifecycle(PLACED, false, PodLifecycle.UNKNOWN_TIME, false)));
        // Held on a card no node registers: a ghost without a size.
        ledger.putPod(pod("orphan", "node-b", "GPU-gone", 1024, 10, PodPhase.PENDING,
                new PodLifecycle(PLACED, false, PodLifecycle.UNKNOWN_TIME, false)));
        return ledger;
    }

    private static RegisteredCard card(String uuid, int index) {
        return new RegisteredCard(uuid, index, 10, 81920, 100, "NVIDIA H100 80GB HBM3", 0, CardMode.HAMI_CORE, true);
    }

    private static List<String> lines(String text, String prefix) {
        return text.lines().filter(line -> line.startsWith(prefix)).toList();
    }

    @Test
    void eachGhostShareHasItsMomentAndSize() throws Exception {
        String text = write(ledger().view(), Shard.ALL, new RenderCache());
        assertEquals(List.of(
                "hami_observe_ghost_allocation_since_timestamp_seconds{device_uuid=\"GPU-a\",namespace=\"ml\",node=\"node-a\",pod=\"stuck-deleting\",reason=\"deleting\"} 1.8000036E9",
                "hami_observe_ghost_allocation_since_timestamp_seconds{device_uuid=\"GPU-b\",namespace=\"ml\",node=\"node-b\",pod=\"never-ran\",reason=\"never_started\"} 1.8E9",
                "hami_observe_ghost_allocation_since_timestamp_seconds{device_uuid=\"GPU-gone\",namespace=\"ml\",node=\"node-b\",pod=\"orphan\",reason=\"never_started\"} 1.8E9"),
                lines(text, "hami_observe_ghost_allocation_since_timestamp_seconds{"));
        assertEquals(List.of(
                "hami_observe_ghost_allocation_cards{device_uuid=\"GPU-a\",namespace=\"ml\",node=\"node-a\",pod=\"stuck-deleting\",reason=\"deleting\"} 0.5",
                "hami_observe_ghost_allocation_cards{device_uuid=\"GPU-b\",namespace=\"ml\",node=\"node-b\",pod=\"never-ran\",reason=\"never_started\"} 0.75"),
                lines(text, "hami_observe_ghost_allocation_cards{"));
        Promtool.assertClean(text);
    }

    @Test
    void eachShardWritesTheGhostsOfItsOwnNodesOnce() throws Exception {
        AllocationView view = ledger().view();
        int total = 0;
        for (int index = 0; index < 2; index++) {
            total += lines(write(view, new Shard(index, 2), new RenderCache()),
                    "hami_observe_ghost_allocation_since_timestamp_seconds{").size();
        }
        assertEquals(3, total);
    }

    @Test
    void aGhostThatStartsOrGoesIsRenderedAgainAndNoGhostsNoSeries() throws Exception {
        RenderCache cache = new RenderCache();
        Ledger ledger = ledger();
        String before = write(ledger.view(), Shard.ALL, cache);
        ledger.putPod(pod("never-ran", "node-b", "GPU-b", 61440, 10, PodPhase.RUNNING,
                new PodLifecycle(PLACED, false, PodLifecycle.UNKNOWN_TIME, true)));
        String after = write(ledger.view(), Shard.ALL, cache);
        assertNotEquals(before, after);
        assertTrue(lines(after, "hami_observe_ghost_allocation_cards{").stream().noneMatch(l -> l.contains("never-ran")),
                after);
        String none = write(new Ledger().view(), Shard.ALL, new RenderCache());
        assertEquals(List.of(), lines(none, "hami_observe_ghost_allocation"));
    }
}
