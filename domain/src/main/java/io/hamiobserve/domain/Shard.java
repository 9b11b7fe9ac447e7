package io.hamiobserve.domain;

import java.nio.charset.StandardCharsets;

/**
 * One of {@code total} shards of the allocation view, as kube-state-metrics shards its objects: a
 * node belongs to the shard {@code fnv1a64(UTF-8 bytes of its name) mod total} (unsigned), so every
 * node has exactly one owner, any process computes the same owner from the name alone, and adding a
 * node or a pod never moves another node. Series that belong to no node (the cluster's quotas, the
 * allocations on cards that no node registers) belong to shard 0.
 *
 * <p>FNV-1a 64 (offset basis {@code 0xcbf29ce484222325}, prime {@code 0x100000001b3}) over the
 * name's UTF-8 bytes rather than {@code String.hashCode}: it is specified outside Java, so a
 * script or another exporter can compute the same owner, and it spreads short names that differ
 * in one character (gpu-node-0001, gpu-node-0002) evenly.
 *
 * @param index this shard, {@code 0 <= index < total}
 * @param total how many shards there are, at least 1
 */
public record Shard(int index, int total) {
    /** The whole view: one shard that owns everything. */
    public static final Shard ALL = new Shard(0, 1);

    private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    public Shard {
        if (total < 1) {
            throw new IllegalArgumentException("the total number of shards must be at least 1, not " + total);
        }
        if (index < 0 || index >= total) {
            throw new IllegalArgumentException("the shard must be between 0 and " + (total - 1)
                    + " (the total number of shards less one), not " + index);
        }
    }

    /** Whether this shard serves the cards and pods of {@code node}. */
    public boolean ownsNode(String node) {
        return total == 1 || ownerOf(node, total) == index;
    }

    /** Whether this shard serves the series that belong to no node. */
    public boolean ownsClusterSeries() {
        return index == 0;
    }

    /** Whether this is the whole view. */
    public boolean isAll() {
        return total == 1;
    }

    /** The shard, of {@code total}, that owns {@code node}. */
    public static int ownerOf(String node, int total) {
        return (int) Long.remainderUnsigned(fnv1a64(node), total);
    }

    /** FNV-1a 64 of the string's UTF-8 bytes. */
    static long fnv1a64(String text) {
        long hash = FNV_OFFSET_BASIS;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= FNV_PRIME;
        }
        return hash;
    }

    @Override
    public String toString() {
        return index + " of " + total;
    }
}
