package io.hamiobserve.adapters.k8s;

import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.OwnerChains;
import io.hamiobserve.ports.SchedulerLedgerSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile owner data in a dump (an API server refuses most of it; a snapshot is checked by none):
 * every pod still gets exactly one owner, and what was cut short or left out is counted.
 */
class HostileOwnersTest {
    @TempDir
    Path dir;

    private final Fixtures.RecordingSkips skips = new Fixtures.RecordingSkips();

    private static String pod(String name, String ownerKind, String ownerName, String ownerUid, String hash) {
        String labels = "\"hami.io/vgpu-node\":\"n1\"" + (hash == null ? "" : ",\"pod-template-hash\":" + quote(hash));
        String owners = ownerKind == null ? "" : ",\"ownerReferences\":[{\"apiVersion\":\"x/v1\",\"kind\":"
                + quote(ownerKind) + ",\"name\":" + quote(ownerName) + ",\"uid\":" + quote(ownerUid)
                + ",\"controller\":true}]";
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":" + quote(name)
                + ",\"namespace\":\"ml\",\"uid\":\"uid-" + name.hashCode() + "\",\"labels\":{" + labels
                + "},\"annotations\":{\"hami.io/vgpu-node\":\"n1\",\"hami.io/vgpu-devices-allocated\":"
                + "\"GPU-1,NVIDIA,100,1:;\"}" + owners + "},\"spec\":{\"containers\":[{\"name\":\"c\"}]},"
                + "\"status\":{\"phase\":\"Running\"}}";
    }

    private static String replicaSet(String name, String uid, String ownerName, String ownerUid) {
        return "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":" + quote(name)
                + ",\"namespace\":\"ml\",\"uid\":" + quote(uid) + ",\"ownerReferences\":[{\"apiVersion\":\"apps/v1\","
                + "\"kind\":\"ReplicaSet\",\"name\":" + quote(ownerName) + ",\"uid\":" + quote(ownerUid)
                + ",\"controller\":true}]}}";
    }

    private static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private Ledger load(List<String> objects) throws IOException {
        Path file = Files.writeString(dir.resolve("hostile.json"), "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
                + String.join(",\n", objects) + "]}");
        Ledger ledger = new Ledger();
        try (SchedulerLedgerSource source = KubernetesSources.snapshot(file)) {
            source.start(ledger, skips);
        }
        assertTrue(ledger.isSynced());
        return ledger;
    }

    @Test
    void cyclesAndDeepChainsEndBoundedAndAreCounted() throws IOException {
        List<String> objects = new java.util.ArrayList<>();
        objects.add(pod("in-cycle", "ReplicaSet", "a", "uid-a", null));
        objects.add(replicaSet("a", "uid-a", "b", "uid-b"));
        objects.add(replicaSet("b", "uid-b", "a", "uid-a"));
        objects.add(pod("deep", "ReplicaSet", "d0", "uid-d0", null));
        for (int i = 0; i < 10_000; i++) {
            objects.add(replicaSet("d" + i, "uid-d" + i, "d" + (i + 1), "uid-d" + (i + 1)));
        }
        Ledger ledger = load(objects);
        Map<String, String> owners = SnapshotLedgerSourceTest.owners(ledger.view());
        assertEquals("ReplicaSet/b", owners.get("in-cycle"));
        assertEquals("ReplicaSet/d" + (OwnerChains.MAX_LOOKUPS - 1), owners.get("deep"));
        assertTrue(skips.reasons().contains("owner_reference/owner_cycle"), skips.reasons()::toString);
        assertTrue(skips.reasons().contains("owner_reference/owner_chain_too_deep"), skips.reasons()::toString);
    }

    @Test
    void oddAndHugeNamesAreKeptEscapedOrLeftOutAndCounted() throws IOException {
        String odd = "quote\" back\\slash\nnew line";
        String huge = "x".repeat(1 << 20);
        Ledger ledger = load(List.of(
                pod("odd", "RayCluster", odd, "uid-odd", null),
                pod("huge-owner", "ReplicaSet", huge, "uid-huge", null),
                pod("huge-kind", huge, "n", "uid-k", null),
                pod("no-name", "Job", "", "uid-empty", null),
                pod("huge-hash", "ReplicaSet", "api-abc", "uid-rs", huge),
                replicaSet(huge, "uid-big", "top", "uid-top")));
        AllocationView view = ledger.view();
        assertEquals(5, view.pods().size());
        assertEquals(Map.of("odd", "RayCluster/" + odd, "huge-owner", "Pod/huge-owner", "huge-kind", "Pod/huge-kind",
                "no-name", "Pod/no-name", "huge-hash", "ReplicaSet/api-abc"), SnapshotLedgerSourceTest.owners(view));
        assertEquals(0, ledger.ownerCount());
        assertEquals(List.of("owner_reference/too_long", "owner_reference/too_long", "owner_reference/missing_identity",
                "owner_reference/too_long", "owner/too_long"), skips.reasons());
    }
}
