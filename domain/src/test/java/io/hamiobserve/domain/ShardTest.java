package io.hamiobserve.domain;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShardTest {
    @Test
    void theHashIsFnv1a64OfTheUtf8Bytes() {
        // The published FNV-1a 64 test vectors (the empty string is the offset basis).
        assertEquals(0xcbf29ce484222325L, Shard.fnv1a64(""));
        assertEquals(0xaf63dc4c8601ec8cL, Shard.fnv1a64("a"));
        assertEquals(0x85944171f73967e8L, Shard.fnv1a64("foobar"));
        // Non-ASCII names hash their UTF-8 bytes (c3 a9 for é), not the Latin-1 byte e9 nor UTF-16 chars.
        assertEquals(0x0ac21707b7181e01L, Shard.fnv1a64("\u00e9"));
    }

    @Test
    void ownersAreTheUnsignedHashModuloTheTotal() {
        // Computed outside Java (Python: fnv1a64(name) % total); the demo's nodes fall on shards 2 and 1 of 3.
        assertEquals(2, Shard.ownerOf("gpu-node-a", 3));
        assertEquals(1, Shard.ownerOf("gpu-node-b", 3));
        assertEquals(3, Shard.ownerOf("gpu-node-b", 4));
        // A hash with its top bit set (negative as a long) still lands in range.
        assertTrue(Shard.fnv1a64("gpu-node-a") < 0);
        for (int total = 1; total <= 8; total++) {
            for (int n = 0; n < 500; n++) {
                String node = "node-" + n;
                int owners = 0;
                for (int index = 0; index < total; index++) {
                    owners += new Shard(index, total).ownsNode(node) ? 1 : 0;
                }
                assertEquals(1, owners, node + " of " + total);
            }
        }
    }

    @Test
    void nodesSpreadEvenly() {
        int[] counts = new int[4];
        for (int n = 0; n < 4000; n++) {
            counts[Shard.ownerOf(String.format("gpu-node-%04d", n), 4)]++;
        }
        for (int count : counts) {
            assertTrue(count > 850 && count < 1150, java.util.Arrays.toString(counts));
        }
    }

    @Test
    void outOfRangeShardsAreRefusedWithTheReason() {
        assertEquals("the total number of shards must be at least 1, not 0",
                assertThrows(IllegalArgumentException.class, () -> new Shard(0, 0)).getMessage());
        assertEquals("the shard must be between 0 and 2 (the total number of shards less one), not 3",
                assertThrows(IllegalArgumentException.class, () -> new Shard(3, 3)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Shard(-1, 3));
    }

    @Test
    void aViewKeepsTheNodesItOwnsAndTheClusterSeriesOnShardZero() {
        Ledger ledger = new Ledger();
        for (String node : List.of("gpu-node-a", "gpu-node-b")) {
            ledger.putNode(node, List.of(new RegisteredCard("GPU-" + node, 0, 10, 40960, 100, "NVIDIA A100", 0,
                    CardMode.HAMI_CORE, true)));
            ledger.putPod(new PodPlacement(new PodRef("team", "job-" + node, "uid-" + node), node, PodPhase.RUNNING,
                    true, List.of(new ContainerShares(0, "main", false,
                    List.of(new DeviceShare("GPU-" + node, "NVIDIA", 1024, 10))))));
        }
        // A share on a card no node registers, and a quota: series of no node.
        ledger.putPod(new PodPlacement(new PodRef("team", "stray", "uid-stray"), "gpu-node-a", PodPhase.RUNNING, true,
                List.of(new ContainerShares(0, "main", false, List.of(new DeviceShare("GPU-gone", "NVIDIA", 512, 0))))));
        ledger.putQuota("team", "gpu", List.of(new QuotaLimit("team", "gpu", QuotaResource.GPU_MEMORY_MIB, 4096)));
        ledger.markSynced(1_000);
        AllocationView all = ledger.view();
        assertSame(all, all.ownedBy(Shard.ALL));

        AllocationView zero = all.ownedBy(new Shard(0, 3));
        AllocationView one = all.ownedBy(new Shard(1, 3));
        AllocationView two = all.ownedBy(new Shard(2, 3));
        assertEquals(List.of(), zero.cards());
        assertEquals(List.of(), zero.pods());
        assertEquals(all.quotas(), zero.quotas());
        assertEquals(all.unregisteredCardShares(), zero.unregisteredCardShares());
        assertFalse(all.unregisteredCardShares().isEmpty());
        assertEquals(List.of("gpu-node-b"), one.cards().stream().map(AllocationView.CardAllocation::node).toList());
        assertEquals(List.of("gpu-node-a"), two.cards().stream().map(AllocationView.CardAllocation::node).toList());
        assertEquals(2, two.pods().size(), "the node's pods, the stray share's pod among them");
        assertEquals(List.of(), one.quotas());
        assertEquals(List.of(), two.unregisteredCardShares());
        for (AllocationView shard : List.of(zero, one, two)) {
            assertEquals(all.freshness(), shard.freshness());
        }
    }
}
