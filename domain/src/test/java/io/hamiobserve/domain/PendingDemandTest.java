package io.hamiobserve.domain;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PendingDemandTest {
    private static final long NOW = 1_800_000_000_000L;

    private static PendingPod pending(String namespace, String name, long waitedSeconds, PendingReason reason) {
        return new PendingPod(new PodRef(namespace, name, namespace + "-" + name), NOW - waitedSeconds * 1000, reason);
    }

    @Test
    void groupsCountPerNamespaceAndReasonWithTheOldestWait() {
        PendingDemand demand = PendingDemand.of(List.of(
                pending("ml", "a", 40, PendingReason.INSUFFICIENT_MEMORY),
                pending("ml", "b", 4000, PendingReason.INSUFFICIENT_MEMORY),
                pending("ml", "c", 5, PendingReason.QUOTA),
                pending("cv", "d", 90_000, PendingReason.INSUFFICIENT_MEMORY)), NOW);
        assertEquals(List.of(
                new PendingDemand.Group("cv", PendingReason.INSUFFICIENT_MEMORY, 1, 90_000),
                new PendingDemand.Group("ml", PendingReason.QUOTA, 1, 5),
                new PendingDemand.Group("ml", PendingReason.INSUFFICIENT_MEMORY, 2, 4000)), demand.groups());
        PendingDemand.WaitHistogram histogram = demand.histogram();
        assertEquals(4, histogram.count());
        assertEquals(40 + 4000 + 5 + 90_000, histogram.sumSeconds());
        // Buckets 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 43200, 86400, 172800, 604800.
        assertArrayEquals(new long[] {1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4}, histogram.cumulativeCounts());
    }

    @Test
    void aCreationTimeInTheFutureOrAtTheEdgesOfTimeNeverGoesNegativeOrOverflows() {
        PendingDemand demand = PendingDemand.of(List.of(
                new PendingPod(new PodRef("ns", "future", "u1"), NOW + 3_600_000, PendingReason.OTHER),
                new PendingPod(new PodRef("ns", "max", "u2"), Long.MAX_VALUE, PendingReason.OTHER),
                new PendingPod(new PodRef("ns", "min", "u3"), Long.MIN_VALUE, PendingReason.OTHER)), NOW);
        PendingDemand.Group group = demand.groups().getFirst();
        assertEquals(3, group.pods());
        assertTrue(group.oldestWaitSeconds() > 0 && Double.isFinite(group.oldestWaitSeconds()));
        assertEquals(2, demand.histogram().cumulativeCounts()[0]);
    }

    @Test
    void theLedgerKeepsPendingPodsApartFromPlacementsAndBounded() {
        Ledger ledger = new Ledger();
        PendingPod first = pending("ml", "a", 10, PendingReason.NOT_YET_TRIED);
        assertTrue(ledger.putPending(first));
        long version = ledger.freshness().version();
        assertTrue(ledger.putPending(first));
        assertEquals(version, ledger.freshness().version(), "an unchanged pod changes nothing");
        PendingPod tried = new PendingPod(first.pod(), first.waitingSinceEpochMillis(), PendingReason.INSUFFICIENT_MEMORY);
        ledger.putPending(tried);
        assertEquals(List.of(tried), ledger.view().pending());
        assertTrue(ledger.view().pods().isEmpty());
        assertEquals(List.of(), ledger.view().ownedBy(new Shard(1, 2)).pending(), "shard 0 owns pending pods");
        assertEquals(List.of(tried), ledger.view().ownedBy(new Shard(0, 2)).pending());
        ledger.removePending(first.pod().uid());
        assertTrue(ledger.view().pending().isEmpty());

        for (int i = 0; i < Ledger.MAX_PENDING_PODS; i++) {
            assertTrue(ledger.putPending(pending("flood", "p" + i, 1, PendingReason.OTHER)));
        }
        assertFalse(ledger.putPending(pending("flood", "one-more", 1, PendingReason.OTHER)));
        assertTrue(ledger.putPending(pending("flood", "p7", 2, PendingReason.OTHER)), "a known pod still updates");
        assertEquals(Ledger.MAX_PENDING_PODS, ledger.pendingCount());
    }
}
