package io.hamiobserve.role.scheduler;

import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.OwnerRef;
import io.hamiobserve.domain.PodController;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.domain.RegisteredCard;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the console relies on in {@code hami_observe_node_allocations_fingerprint}: a node's number
 * moves whenever any of its container series (HAMi's share series, the detail, the containers'
 * names, the pods' owners) changes, and stays where the ledger is the same. The fingerprint is
 * made of what the series are written from, not of the series themselves, so this compares the
 * series a node has before and after random pod, owner and registration events.
 */
class NodeFingerprintTest {
    private static final String FINGERPRINT = AllocationMetrics.NODE_ALLOCATIONS_FINGERPRINT.name();
    /** The series of a node's containers, as the fingerprint's help text lists them. */
    private static final Set<String> CONTAINER_SERIES = Set.of(AllocationMetrics.VGPU_MEMORY_ALLOCATED.name(),
            AllocationMetrics.VGPU_CORE_ALLOCATED.name(), AllocationMetrics.VGPU_CONTAINER_MEMORY.name(),
            AllocationMetrics.VGPU_CONTAINER_CORES.name(), AllocationMetrics.CONTAINER_INFO.name(),
            AllocationMetrics.POD_OWNER.name());

    private static final String CARDS_FINGERPRINT = AllocationMetrics.NODE_CARDS_FINGERPRINT.name();
    /** The series of a node's cards, as the cards' fingerprint's help text lists them. */
    private static final Set<String> CARD_SERIES = Set.of(AllocationMetrics.GPU_MEMORY_LIMIT.name(),
            AllocationMetrics.GPU_CORE_LIMIT.name(), AllocationMetrics.GPU_SHARE_LIMIT.name(),
            AllocationMetrics.GPU_HEALTHY.name(), AllocationMetrics.GPU_DEVICE_INFO.name(),
            AllocationMetrics.GPU_MEMORY_ALLOCATED.name(), AllocationMetrics.GPU_CORE_ALLOCATED.name(),
            AllocationMetrics.GPU_SHARED_COUNT.name(), AllocationMetrics.NODE_GPU_OVERVIEW.name(),
            AllocationMetrics.NODE_GPU_MEMORY_ALLOCATED_RATIO.name(), AllocationMetrics.GPU_CORE_ALLOCATED_PERCENT.name());

    @Test
    void aNodesCardsFingerprintMovesWheneverItsCardSeriesChange() {
        Tally tally = new Tally();
        for (long seed = 0; seed < 300; seed++) {
            RandomCluster cluster = new RandomCluster(seed);
            Ledger ledger = cluster.ledger(40);
            Nodes before = cards(ledger.view());
            cluster.change(ledger, 1 + (int) (seed % 6));
            Nodes after = cards(ledger.view());
            // Every node with cards has one, whether or not pods run on it.
            assertEquals(after.series().keySet(), after.fingerprints().keySet(), "seed " + seed);
            tally.compare(before, after, "cards' series, seed " + seed);
        }
        tally.assertBothMetOften();
    }

    /**
     * How often a node's series changed (its fingerprint asserted to have moved) and how often
     * both stayed, over nodes seen before and after events.
     */
    private static final class Tally {
        private int changed;
        private int kept;

        void compare(Nodes before, Nodes after, String where) {
            for (String node : before.fingerprints().keySet()) {
                if (!after.fingerprints().containsKey(node)) {
                    continue;
                }
                Set<List<Object>> was = before.series().getOrDefault(node, Set.of());
                Set<List<Object>> is = after.series().getOrDefault(node, Set.of());
                if (!was.equals(is)) {
                    changed++;
                    assertNotEquals(before.fingerprints().get(node), after.fingerprints().get(node),
                            where + ", " + node + ": its series changed and its fingerprint did not");
                } else if (before.fingerprints().get(node).equals(after.fingerprints().get(node))) {
                    kept++;
                }
            }
        }

        /** Both cases were met many times: events that changed a node's series, and nodes they left alone. */
        void assertBothMetOften() {
            assertTrue(changed > 100, "nodes whose series changed: " + changed);
            assertTrue(kept > 100, "nodes whose series and fingerprint stayed: " + kept);
        }
    }

    @Test
    void eachPartOfACardsRegistrationMovesItsNodesCardsFingerprint() {
        RegisteredCard card = nvidiaCard(0);
        Map<String, RegisteredCard> changes = new LinkedHashMap<>();
        // nvidiaCard(0) but for one part each: GPU-a-0, index 0, 10 shares, 81,559 MiB, HAMi-Core, healthy.
        changes.put("health", cardA0(0, 10, 81_559, "NVIDIA H100 80GB HBM3", CardMode.HAMI_CORE, false));
        changes.put("mode", cardA0(0, 10, 81_559, "NVIDIA H100 80GB HBM3", CardMode.MIG, true));
        changes.put("share limit", cardA0(0, 11, 81_559, "NVIDIA H100 80GB HBM3", CardMode.HAMI_CORE, true));
        changes.put("memory", cardA0(0, 10, 81_560, "NVIDIA H100 80GB HBM3", CardMode.HAMI_CORE, true));
        changes.put("type", cardA0(0, 10, 81_559, "NVIDIA H100", CardMode.HAMI_CORE, true));
        changes.put("index", cardA0(1, 10, 81_559, "NVIDIA H100 80GB HBM3", CardMode.HAMI_CORE, true));
        Ledger ledger = new Ledger();
        ledger.putNode("node-a", List.of(card));
        Nodes before = cards(ledger.view());
        for (Map.Entry<String, RegisteredCard> change : changes.entrySet()) {
            Ledger changedLedger = new Ledger();
            changedLedger.putNode("node-a", List.of(change.getValue()));
            Nodes after = cards(changedLedger.view());
            assertNotEquals(before.series().get("node-a"), after.series().get("node-a"), change.getKey());
            assertNotEquals(before.fingerprints().get("node-a"), after.fingerprints().get("node-a"), change.getKey());
        }
        // A pod placed on the card moves it: its totals changed.
        ledger.putPod(new PodPlacement(new PodRef("ml", "serve-0", "uid-serve-0"), "node-a", PodPhase.RUNNING, true,
                List.of(new ContainerShares(0, "server", false, List.of(new DeviceShare("GPU-a-0", "NVIDIA", 2048,
                        50))))));
        assertNotEquals(before.fingerprints().get("node-a"), cards(ledger.view()).fingerprints().get("node-a"));
    }

    @Test
    void aNodesFingerprintMovesWheneverItsContainerSeriesChange() {
        Tally tally = new Tally();
        for (ContainerSeries form : ContainerSeries.values()) {
            for (long seed = 0; seed < 150; seed++) {
                RandomCluster cluster = new RandomCluster(seed);
                Ledger ledger = cluster.ledger(40);
                Nodes before = nodes(ledger.view(), form);
                cluster.change(ledger, 1 + (int) (seed % 6));
                tally.compare(before, nodes(ledger.view(), form), form + ", seed " + seed);
            }
        }
        tally.assertBothMetOften();
    }

    /** A pod as the tests below vary it: every part of it that one of its series writes. */
    private record Pod(String namespace, String name, String ownerKind, String ownerName, boolean initFinished,
                       boolean firstIsInit, int workerIndex, String workerName, String workerCard, long workerMib,
                       long workerCores) {
        PodPlacement placement() {
            List<ContainerShares> containers = List.of(
                    new ContainerShares(0, "setup", firstIsInit,
                            List.of(new DeviceShare("GPU-a-0", "NVIDIA", 8192, 20))),
                    new ContainerShares(workerIndex, workerName, false, List.of(
                            new DeviceShare(workerCard, "NVIDIA", workerMib, workerCores),
                            new DeviceShare("GPU-a-0", "NVIDIA", 2048, 20))));
            return new PodPlacement(new PodRef(namespace, name, "uid-" + name), "node-a", PodPhase.RUNNING,
                    initFinished, containers, List.of(), PodController.of(new OwnerRef(ownerKind, ownerName,
                    "owner-uid")));
        }
    }

    @Test
    void eachPartOfAPodThatItsSeriesWriteMovesItsNodesFingerprint() {
        Pod pod =
                new Pod("ml", "train-0", "StatefulSet", "db", false, true, 1, "worker", "GPU-a-1", 4096, 30);
        Map<String, Pod> changes = new LinkedHashMap<>();
        changes.put("namespace",
                new Pod("ml2", "train-0", "StatefulSet", "db", false, true, 1, "worker", "GPU-a-1", 4096, 30));
        changes.put("name",
                new Pod("ml", "train-1", "StatefulSet", "db", false, true, 1, "worker", "GPU-a-1", 4096, 30));
        changes.put("owner kind",
                new Pod("ml", "train-0", "DaemonSet", "db", false, true, 1, "worker", "GPU-a-1", 4096, 30));
        changes.put("owner name",
                new Pod("ml", "train-0", "StatefulSet", "db2", false, true, 1, "worker", "GPU-a-1", 4096, 30));
        changes.put("init containers finished",
                new Pod("ml", "train-0", "StatefulSet", "db", true, true, 1, "worker", "GPU-a-1", 4096, 30));
        changes.put("init container or not",
                new Pod("ml", "train-0", "StatefulSet", "db", false, false, 1, "worker", "GPU-a-1", 4096, 30));
        changes.put("container index",
                new Pod("ml", "train-0", "StatefulSet", "db", false, true, 2, "worker", "GPU-a-1", 4096, 30));
        changes.put("container name",
                new Pod("ml", "train-0", "StatefulSet", "db", false, true, 1, "trainer", "GPU-a-1", 4096, 30));
        changes.put("card",
                new Pod("ml", "train-0", "StatefulSet", "db", false, true, 1, "worker", "GPU-a-2", 4096, 30));
        changes.put("memory",
                new Pod("ml", "train-0", "StatefulSet", "db", false, true, 1, "worker", "GPU-a-1", 4097, 30));
        changes.put("cores",
                new Pod("ml", "train-0", "StatefulSet", "db", false, true, 1, "worker", "GPU-a-1", 4096, 31));
        Set<String> shown = new HashSet<>();
        for (ContainerSeries form : ContainerSeries.values()) {
            Nodes before = nodes(ledgerWith(pod).view(), form);
            changes.forEach((part, changed) -> {
                Nodes after = nodes(ledgerWith(changed).view(), form);
                if (!before.series().get("node-a").equals(after.series().get("node-a"))) {
                    shown.add(part);
                    assertNotEquals(before.fingerprints().get("node-a"), after.fingerprints().get("node-a"),
                            form + ", the " + part + " changed");
                }
            });
            assertEquals(before.fingerprints(), nodes(ledgerWith(pod).view(), form).fingerprints(), form.name());
        }
        // Each change is one that the node's series show in one form at least (finished init
        // containers only in HAMi's effective share): else this would test nothing.
        assertEquals(changes.keySet(), shown);
    }

    /** Three registered cards on node-a, the pod {@code pod} and a neighbour that stays as it is. */
    private static Ledger ledgerWith(Pod pod) {
        Ledger ledger = new Ledger();
        ledger.putNode("node-a", List.of(nvidiaCard(0), nvidiaCard(1), nvidiaCard(2)));
        ledger.putPod(pod.placement());
        ledger.putPod(new PodPlacement(new PodRef("ml", "serve-0", "uid-serve-0"), "node-a", PodPhase.RUNNING, true,
                List.of(new ContainerShares(0, "server", false, List.of(new DeviceShare("GPU-a-1", "NVIDIA", 2048,
                        50))))));
        return ledger;
    }

    private static RegisteredCard cardA0(int index, int shares, long mib, String type, CardMode mode,
                                         boolean healthy) {
        return new RegisteredCard("GPU-a-0", index, shares, mib, 100, type, 0, mode, healthy);
    }

    private static RegisteredCard nvidiaCard(int index) {
        return new RegisteredCard("GPU-a-" + index, index, 10, 81_559, 100, "NVIDIA H100 80GB HBM3", 0,
                CardMode.HAMI_CORE, true);
    }

    @Test
    void hostileValuesGiveWholeFingerprintsThatStillMoveWithEachCharacter() {
        // What a crafted pod annotation can carry: quotes, backslashes, newlines, HTML, NUL, a lone
        // surrogate, U+FFFF, 100,000 characters, the largest memory and cores the ledger keeps.
        String huge = "p".repeat(100_000);
        List<String> names = List.of("q\"uote\\back\nline", "<script>alert(1)</script>", "nul\u0000x",
                "lone\ud800surrogate", "max\uffff", huge, huge.substring(1) + "q");
        Set<Double> seen = new HashSet<>();
        for (String name : names) {
            Ledger ledger = new Ledger();
            ledger.putNode("node-a", List.of(nvidiaCard(0)));
            ledger.putPod(new PodPlacement(new PodRef(name, name, "uid-" + name.length()), "node-a",
                    PodPhase.RUNNING, true, List.of(new ContainerShares(0, name, false, List.of(new DeviceShare(
                            "GPU-a-0", "NVIDIA", Quantities.MAX_MEMORY_MIB, Quantities.MAX_PERCENT))))));
            for (ContainerSeries form : ContainerSeries.values()) {
                double fingerprint = nodes(ledger.view(), form).fingerprints().get("node-a");
                assertEquals(Math.floor(fingerprint), fingerprint, name.length() + " characters");
                assertTrue(fingerprint >= 0 && fingerprint < 0x1p52, String.valueOf(fingerprint));
                assertTrue(seen.add(fingerprint), "a hostile name of " + name.length()
                        + " characters gave a fingerprint seen before, " + form);
            }
        }
    }

    @Test
    void hostileRegistrationsGiveWholeCardsFingerprintsEachItsOwn() {
        // What a crafted register annotation can carry into a card: quotes, backslashes, newlines,
        // HTML, NUL, a lone surrogate, 100,000 characters, the largest memory, cores and index the
        // ledger keeps (it refuses negative ones before they reach a card).
        String huge = "t".repeat(100_000);
        List<String> texts = List.of("q\"uote\\back\nline", "<script>alert(1)</script>", "nul\u0000x",
                "lone\ud800surrogate", huge, huge.substring(1) + "u");
        Set<Double> seen = new HashSet<>();
        for (String text : texts) {
            for (RegisteredCard card : List.of(
                    new RegisteredCard(text, 0, 10, 81_559, 100, "NVIDIA H100", 0, CardMode.HAMI_CORE, true),
                    new RegisteredCard("GPU-a-0", Integer.MAX_VALUE, Integer.MAX_VALUE, Quantities.MAX_MEMORY_MIB,
                            Quantities.MAX_PERCENT, text, 0, CardMode.MIG, false))) {
                Ledger ledger = new Ledger();
                ledger.putNode("node-a", List.of(card));
                double fingerprint = cards(ledger.view()).fingerprints().get("node-a");
                assertEquals(Math.floor(fingerprint), fingerprint, text.length() + " characters");
                assertTrue(fingerprint >= 0 && fingerprint < 0x1p52, String.valueOf(fingerprint));
                assertTrue(seen.add(fingerprint), "a hostile card of " + text.length()
                        + " characters gave a fingerprint seen before");
            }
        }
    }

    @Test
    void theSameLedgerBuiltAgainGivesTheSameFingerprints() {
        for (long seed = 0; seed < 50; seed++) {
            // Built twice from one seed: equal records in other objects, strings made anew.
            Map<String, Double> first = nodes(new RandomCluster(seed).ledger(40).view(), ContainerSeries.POD_EFFECTIVE)
                    .fingerprints();
            Map<String, Double> again = nodes(new RandomCluster(seed).ledger(40).view(), ContainerSeries.POD_EFFECTIVE)
                    .fingerprints();
            assertEquals(first, again, "seed " + seed);
            assertTrue(new HashSet<>(first.values()).size() > 1 || first.size() <= 1,
                    "nodes of other pods have other fingerprints, seed " + seed);
        }
    }

    @Test
    void whatOnlyThePodsShareShowsMovesTheFingerprintToo() {
        // HAMi writes a share of an AMD card in percent of the card's compute units: a registration
        // that changes the units changes the pods' core series, not the pods' records.
        Ledger ledger = new Ledger();
        ledger.putNode("node-amd", List.of(amdCard(304)));
        ledger.putPod(new PodPlacement(new PodRef("ml", "train-0", "uid-0"), "node-amd", PodPhase.RUNNING, true,
                List.of(new ContainerShares(0, "worker", false, List.of(new DeviceShare("GPU-amd-0", "AMD",
                        4096, 76))))));
        Nodes at304 = nodes(ledger.view(), ContainerSeries.POD_EFFECTIVE);
        ledger.putNode("node-amd", List.of(amdCard(152)));
        Nodes at152 = nodes(ledger.view(), ContainerSeries.POD_EFFECTIVE);
        assertNotEquals(at304.series().get("node-amd"), at152.series().get("node-amd"), "25% of 304, 50% of 152");
        assertNotEquals(at304.fingerprints().get("node-amd"), at152.fingerprints().get("node-amd"));

        // Rounded up a share at a time: two containers of 1 and 1 unit, or of 1 and 3, are each
        // written as 1% of the card, and only the pod's share (2 or 4 units: 1% or 2%) tells them apart.
        Map<String, Double> fingerprints = new HashMap<>();
        Set<Set<List<Object>>> series = new HashSet<>();
        for (long second : new long[] {1, 3}) {
            Ledger amd = new Ledger();
            amd.putNode("node-amd", List.of(amdCard(304)));
            amd.putPod(new PodPlacement(new PodRef("ml", "train-0", "uid-0"), "node-amd", PodPhase.RUNNING, true,
                    List.of(new ContainerShares(0, "a", false, List.of(new DeviceShare("GPU-amd-0", "AMD", 1024, 1))),
                            new ContainerShares(1, "b", false, List.of(new DeviceShare("GPU-amd-0", "AMD", 1024,
                                    second))))));
            Nodes nodes = nodes(amd.view(), ContainerSeries.POD_EFFECTIVE);
            series.add(nodes.series().get("node-amd"));
            fingerprints.put("1 and " + second, nodes.fingerprints().get("node-amd"));
        }
        assertEquals(2, series.size(), "the pod's share differs");
        assertNotEquals(fingerprints.get("1 and 1"), fingerprints.get("1 and 3"));

        // An init container that finished leaves the pod's share of the card it shares with the
        // app: 8 GiB while it runs, 2 GiB after, the containers' own shares the same.
        for (boolean finished : new boolean[] {false, true}) {
            Ledger withInit = new Ledger();
            withInit.putNode("node-a", List.of(nvidiaCard(0)));
            withInit.putPod(new PodPlacement(new PodRef("ml", "train-0", "uid-0"), "node-a", PodPhase.RUNNING, finished,
                    List.of(new ContainerShares(0, "setup", true,
                                    List.of(new DeviceShare("GPU-a-0", "NVIDIA", 8192, 20))),
                            new ContainerShares(1, "worker", false, List.of(new DeviceShare("GPU-a-0", "NVIDIA", 2048,
                                    20))))));
            Nodes nodes = nodes(withInit.view(), ContainerSeries.POD_EFFECTIVE);
            series.add(nodes.series().get("node-a"));
            fingerprints.put("init finished " + finished, nodes.fingerprints().get("node-a"));
        }
        assertEquals(4, series.size(), "the pod's share differs");
        assertNotEquals(fingerprints.get("init finished false"), fingerprints.get("init finished true"));
    }

    private static RegisteredCard amdCard(long computeUnits) {
        return new RegisteredCard("GPU-amd-0", 0, 4, 196_608, computeUnits, "AMD Instinct MI300X VF", 0,
                CardMode.HAMI_CORE, true);
    }

    /** Per node, its fingerprint and every point of its containers' series. */
    private record Nodes(Map<String, Double> fingerprints, Map<String, Set<List<Object>>> series) {
    }

    private static Nodes nodes(AllocationView view, ContainerSeries form) {
        return nodes(view, form, FINGERPRINT, CONTAINER_SERIES);
    }

    /** Per node, its cards' fingerprint and every point of its cards' series. */
    private static Nodes cards(AllocationView view) {
        return nodes(view, ContainerSeries.POD_EFFECTIVE, CARDS_FINGERPRINT, CARD_SERIES);
    }

    private static Nodes nodes(AllocationView view, ContainerSeries form, String fingerprintFamily,
                               Set<String> seriesFamilies) {
        Map<String, Double> fingerprints = new HashMap<>();
        Map<String, Set<List<Object>>> series = new HashMap<>();
        GaugeSeries.of(view, form).forEach((family, points) -> points.forEach((labels, value) -> {
            if (family.equals(fingerprintFamily)) {
                fingerprints.put(labels.get("node"), value);
            } else if (seriesFamilies.contains(family)) {
                series.computeIfAbsent(labels.get("node"), node -> new HashSet<>())
                        .add(List.of(family, labels.toString(), value));
            }
        }));
        return new Nodes(fingerprints, series);
    }
}
