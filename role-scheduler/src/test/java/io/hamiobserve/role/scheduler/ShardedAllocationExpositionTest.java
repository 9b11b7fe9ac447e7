package io.hamiobserve.role.scheduler;

import io.hamiobserve.exposition.FamilyDecorator;
import io.hamiobserve.exposition.RenderCache;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.exposition.testing.Promtool;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.exposition.Families;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sharding splits the allocation exposition without losing or repeating a series: for random
 * ledgers and every total from 1 to 8, the shards' expositions together hold exactly the sample
 * lines of the unsharded one (as multisets), every family of it and no other, each family's HELP
 * and TYPE lines as the unsharded one writes them; the ledger's health, which every shard reports
 * for itself, is on every shard as it is unsharded. In both formats, with and without HAMi's
 * legacy names, and after random events rendered from kept segments.
 */
class ShardedAllocationExpositionTest {
    /** Families every shard writes about itself: the health of the ledger it reads. */
    private static final Set<String> PER_SHARD = Set.of("hami_observe_ledger_synced",
            "hami_observe_ledger_last_sync_timestamp_seconds");

    private static String write(AllocationView view, Shard shard, boolean legacy, RenderCache cache,
                                ExpositionFormat format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AllocationMetrics.exposition(view, shard, legacy ? AllocationMetrics.LEGACY_NAMES : FamilyDecorator.NONE,
                ContainerSeries.POD_EFFECTIVE, cache, new Families()).write(out, format);
        return out.toString(StandardCharsets.UTF_8);
    }

    /** An exposition cut into families: each family's comment lines and its sample lines. */
    private record Family(List<String> comments, List<String> samples) {
    }

    private static Map<String, Family> families(String exposition) {
        Map<String, Family> families = new LinkedHashMap<>();
        Family current = null;
        for (String line : exposition.split("\n")) {
            if (line.isEmpty() || line.equals("# EOF")) {
                continue;
            }
            if (line.startsWith("# ")) {
                String name = line.split(" ")[2];
                current = families.computeIfAbsent(name, key -> new Family(new ArrayList<>(), new ArrayList<>()));
                current.comments().add(line);
            } else {
                current.samples().add(line);
            }
        }
        return families;
    }

    private static <T> Map<T, Integer> multiset(List<T> items) {
        Map<T, Integer> counts = new HashMap<>();
        items.forEach(item -> counts.merge(item, 1, Integer::sum));
        return counts;
    }

    private static void assertShardsMakeTheWhole(AllocationView view, int total, boolean legacy,
                                                 ExpositionFormat format, List<RenderCache> caches, String context)
            throws IOException {
        Map<String, Family> whole = families(write(view, Shard.ALL, legacy, new RenderCache(), format));
        Map<String, List<String>> union = new TreeMap<>();
        for (int index = 0; index < total; index++) {
            String exposition = write(view, new Shard(index, total), legacy, caches.get(index), format);
            assertEquals(exposition.endsWith("# EOF\n"), format == ExpositionFormat.OPENMETRICS_TEXT, context);
            for (Map.Entry<String, Family> family : families(exposition).entrySet()) {
                String name = family.getKey();
                Family unsharded = whole.get(name);
                assertTrue(unsharded != null, context + ": shard " + index + " writes " + name
                        + ", which the unsharded exposition does not");
                assertEquals(unsharded.comments(), family.getValue().comments(), context + ", " + name);
                assertTrue(!family.getValue().samples().isEmpty(), context + ": " + name + " without samples");
                if (PER_SHARD.contains(name)) {
                    assertEquals(unsharded.samples(), family.getValue().samples(), context + ", " + name);
                } else {
                    union.computeIfAbsent(name, key -> new ArrayList<>()).addAll(family.getValue().samples());
                }
            }
        }
        Map<String, List<String>> expected = new TreeMap<>();
        whole.forEach((name, family) -> {
            if (!PER_SHARD.contains(name)) {
                expected.put(name, family.samples());
            }
        });
        assertEquals(expected.keySet(), union.keySet(), context + ": families");
        for (String name : expected.keySet()) {
            assertEquals(multiset(expected.get(name)), multiset(union.get(name)), context + ", " + name);
        }
    }

    @Test
    void theShardsTogetherServeEverySeriesOfTheWholeExactlyOnce() throws Exception {
        int sharded = 0;
        for (long seed = 1; seed <= 16; seed++) {
            RandomCluster cluster = new RandomCluster(seed);
            AllocationView view = cluster.ledger(60).view();
            for (int shards = 1; shards <= 8; shards++) {
                int total = shards;
                boolean legacy = (seed + total) % 2 == 0;
                for (ExpositionFormat format : ExpositionFormat.values()) {
                    assertShardsMakeTheWhole(view, total, legacy, format, caches(total),
                            "seed " + seed + ", " + total + " shards, legacy " + legacy + ", " + format);
                }
                // Shards that differ: not every node on one shard.
                sharded += view.cards().stream().map(card -> Shard.ownerOf(card.node(), total)).distinct().count() > 1
                        ? 1 : 0;
            }
        }
        assertTrue(sharded > 60, "most random ledgers spread their nodes over several shards: " + sharded);
    }

    @Test
    void keptSegmentsStillSplitExactlyAfterEvents() throws Exception {
        for (long seed = 21; seed <= 24; seed++) {
            RandomCluster cluster = new RandomCluster(seed);
            Ledger ledger = cluster.ledger(40);
            int total = 2 + (int) (seed % 4);
            List<RenderCache> caches = caches(total);
            for (int step = 0; step < 15; step++) {
                cluster.change(ledger, 1 + step % 3);
                assertShardsMakeTheWhole(ledger.view(), total, false, ExpositionFormat.PROMETHEUS_TEXT, caches,
                        "seed " + seed + ", step " + step);
            }
        }
    }

    @Test
    void everyShardIsAValidExposition() throws Exception {
        AllocationView view = new RandomCluster(7).ledger(60).view();
        for (int index = 0; index < 3; index++) {
            Promtool.assertClean(write(view, new Shard(index, 3), true, new RenderCache(),
                    ExpositionFormat.PROMETHEUS_TEXT));
        }
    }

    private static List<RenderCache> caches(int total) {
        List<RenderCache> caches = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            caches.add(new RenderCache());
        }
        return caches;
    }
}
