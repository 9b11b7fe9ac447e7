package io.hamiobserve.role.scheduler;

import io.hamiobserve.exposition.testing.Promtool;
import io.hamiobserve.exposition.AllSegments;
import io.hamiobserve.exposition.SegmentedExposition;
import io.hamiobserve.exposition.testing.CountingSegments;
import io.hamiobserve.exposition.FamilyDecorator;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.exposition.RenderCache;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.QuotaLimit;
import io.hamiobserve.domain.QuotaResource;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.exposition.Families;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The allocation exposition is assembled from per-node segments kept between scrapes. These tests
 * hold it to two references: one library writer call over the same data (same families in the
 * same order, same lines in each), and a rendering with nothing kept (byte for byte), across
 * random ledgers and random event sequences.
 */
class SegmentedAllocationExpositionTest {
    private static final Families NO_TAIL = new Families();

    /** Segments rendered anew, over every exposition written with this test's caches. */
    private final AtomicLong rendered = new AtomicLong();

    private String write(AllocationView view, boolean legacy, RenderCache cache, ExpositionFormat format)
            throws IOException {
        SegmentedExposition exposition = new SegmentedExposition(cache, names(legacy));
        AllocationMetrics.describe(view, new CountingSegments(exposition, rendered));
        exposition.append(NO_TAIL);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        exposition.write(out, format);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String writeInOneCall(AllocationView view, boolean legacy, ExpositionFormat format)
            throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AllSegments all = new AllSegments(names(legacy));
        AllocationMetrics.describe(view, all);
        format.writer().write(out, all.snapshots());
        return out.toString(StandardCharsets.UTF_8);
    }

    private static FamilyDecorator names(boolean legacy) {
        return legacy ? AllocationMetrics.LEGACY_NAMES : FamilyDecorator.NONE;
    }

    /** Family name (from its TYPE line) to the family's lines, sample lines sorted; in exposition order. */
    private static Map<String, List<String>> byFamily(String exposition) {
        Map<String, List<String>> families = new LinkedHashMap<>();
        List<String> current = null;
        for (String line : exposition.split("\n")) {
            if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
                String name = line.split(" ")[2];
                current = families.computeIfAbsent(name, key -> new ArrayList<>());
                continue;
            }
            if (line.equals("# EOF")) {
                families.computeIfAbsent("# EOF", key -> new ArrayList<>());
                continue;
            }
            current.add(line);
        }
        families.values().forEach(lines -> lines.sort(null));
        return families;
    }

    @Test
    void segmentsHoldExactlyTheSeriesOfOneWriterCallInTheSameFamilyOrder() throws Exception {
        int withSameNamedPods = 0;
        for (long seed = 1; seed <= 12; seed++) {
            RandomCluster cluster = new RandomCluster(seed);
            Ledger ledger = cluster.ledger(60);
            AllocationView view = ledger.view();
            withSameNamedPods += cluster.sameNamedPodsOnOneCard(view) ? 1 : 0;
            for (boolean legacy : new boolean[] {false, true}) {
                for (ExpositionFormat format : ExpositionFormat.values()) {
                    String segmented = write(view, legacy, new RenderCache(), format);
                    String reference = writeInOneCall(view, legacy, format);
                    assertEquals(byFamily(reference), byFamily(segmented), "seed " + seed + ", legacy " + legacy
                            + ", " + format);
                    assertEquals(reference.length(), segmented.length());
                }
            }
            if (seed % 4 == 0) {
                Promtool.assertClean(write(view, true, new RenderCache(), ExpositionFormat.PROMETHEUS_TEXT));
            }
        }
        assertTrue(withSameNamedPods > 0, "some random cluster has two pods of one name on one card");
    }

    @Test
    void aKeptRenderingWritesByteForByteWhatAFreshOneWrites() throws Exception {
        for (long seed = 1; seed <= 8; seed++) {
            RandomCluster cluster = new RandomCluster(seed);
            Ledger ledger = cluster.ledger(40);
            RenderCache kept = new RenderCache();
            boolean legacy = seed % 2 == 0;
            for (int step = 0; step < 30; step++) {
                cluster.change(ledger, 1 + step % 4);
                AllocationView view = ledger.view();
                for (ExpositionFormat format : ExpositionFormat.values()) {
                    assertEquals(write(view, legacy, new RenderCache(), format), write(view, legacy, kept, format),
                            "seed " + seed + ", step " + step + ", " + format);
                }
            }
        }
    }

    @Test
    void renderingsKeptForAnotherSetOfFamiliesAreNotReused() throws IOException {
        AllocationView view = new RandomCluster(5).ledger(30).view();
        RenderCache cache = new RenderCache();
        String modern = write(view, false, cache, ExpositionFormat.PROMETHEUS_TEXT);

        String withLegacy = write(view, true, cache, ExpositionFormat.PROMETHEUS_TEXT);
        assertEquals(write(view, true, new RenderCache(), ExpositionFormat.PROMETHEUS_TEXT), withLegacy);
        assertTrue(withLegacy.contains("vGPUMemoryAllocated{"), withLegacy);
        assertEquals(modern, write(view, false, cache, ExpositionFormat.PROMETHEUS_TEXT));
    }

    @Test
    void aPodEventRendersOnlyTheNodeItTouchesAndTheQuotaUseItChanges() throws IOException {
        // Per node two card segments (what it registers; what its pods hold of it) and one of pods.
        Ledger ledger = new Ledger();
        for (int node = 0; node < 20; node++) {
            ledger.putNode(nodeName(node), List.of(card(node, 0), card(node, 1)));
            for (int pod = 0; pod < 5; pod++) {
                ledger.putPod(placement("team", "job-" + node + "-" + pod, node, pod % 2, 1024));
            }
        }
        ledger.markSynced(1_000);
        RenderCache cache = new RenderCache();
        long start = rendered.get();
        String first = write(ledger.view(), false, cache, ExpositionFormat.PROMETHEUS_TEXT);
        // Registrations, card totals and pods of 20 nodes, plus the unregistered, quota, MIG and ledger sections.
        assertEquals(20 + 20 + 20 + 4, rendered.get() - start);

        assertEquals(first, write(ledger.view(), false, cache, ExpositionFormat.PROMETHEUS_TEXT));
        assertEquals(64, rendered.get() - start, "an unchanged view renders nothing");

        ledger.putPod(placement("team", "job-7-3", 7, 1, 2048));
        String after = write(ledger.view(), false, cache, ExpositionFormat.PROMETHEUS_TEXT);
        // Node 7's card totals (allocated memory) and pods, and the namespace's quota use; not what
        // node 7 registers.
        assertEquals(64 + 3, rendered.get() - start);
        assertTrue(after.contains("hami_vgpu_memory_allocated_bytes{container_index=\"0\",device_uuid=\"GPU-7-1\","
                + "namespace=\"team\",node=\"node-07\",pod=\"job-7-3\",zone=\"vGPU\"} 2.147483648E9"), after);

        long beforeOpenMetrics = rendered.get();
        String openMetrics = write(ledger.view(), false, cache, ExpositionFormat.OPENMETRICS_TEXT);
        assertEquals(64, rendered.get() - beforeOpenMetrics, "each format renders for itself");
        assertEquals(after, write(ledger.view(), false, new RenderCache(), ExpositionFormat.PROMETHEUS_TEXT));
        assertEquals(openMetrics, write(ledger.view(), false, new RenderCache(), ExpositionFormat.OPENMETRICS_TEXT));
        long beforeKept = rendered.get();
        assertEquals(after, write(ledger.view(), false, cache, ExpositionFormat.PROMETHEUS_TEXT));
        assertEquals(beforeKept, rendered.get(), "both formats are kept");

        // Node 3 registers a card of twice the memory: its registration and its totals (the ratio
        // of allocated memory) are rendered again, its pods are not.
        RegisteredCard larger = new RegisteredCard("GPU-3-1", 1, 10, 81920, 100, "NVIDIA A100", 0,
                CardMode.HAMI_CORE, true);
        ledger.putNode(nodeName(3), List.of(card(3, 0), larger));
        long beforeRegistration = rendered.get();
        String registered = write(ledger.view(), false, cache, ExpositionFormat.PROMETHEUS_TEXT);
        assertEquals(2, rendered.get() - beforeRegistration);
        assertTrue(registered.contains("hami_gpu_memory_limit_bytes{device_index=\"1\",device_type=\"NVIDIA A100\","
                + "device_uuid=\"GPU-3-1\",node=\"node-03\",zone=\"vGPU\"} 8.589934592E10"), registered);
        assertEquals(write(ledger.view(), false, new RenderCache(), ExpositionFormat.PROMETHEUS_TEXT), registered);
    }

    @Test
    void twoPodsOfOneNameOnOneCardYieldOneSeries() throws Exception {
        Ledger ledger = new Ledger();
        ledger.putNode(nodeName(0), List.of(card(0, 0)));
        // A replaced pod whose deletion has not arrived: same name, new UID, same card.
        ledger.putPod(placement(new PodRef("team", "trainer", "uid-old"), 0, 0, 1024));
        ledger.putPod(placement(new PodRef("team", "trainer", "uid-new"), 0, 0, 2048));
        String exposition = write(ledger.view(), false, new RenderCache(), ExpositionFormat.PROMETHEUS_TEXT);

        List<String> series = exposition.lines().filter(line -> line.startsWith("hami_vgpu_memory_allocated_bytes{"))
                .toList();
        assertEquals(1, series.size(), exposition);
        assertEquals(byFamily(writeInOneCall(ledger.view(), false, ExpositionFormat.PROMETHEUS_TEXT)),
                byFamily(exposition));
        Promtool.assertClean(exposition);

        // One of them changes alone (the first in the ledger's order, by UID): still one series, the
        // first pod's, as a rendering with nothing kept writes it (the two are one part of their
        // node, never kept).
        RenderCache cache = new RenderCache();
        write(ledger.view(), false, cache, ExpositionFormat.PROMETHEUS_TEXT);
        ledger.putPod(placement(new PodRef("team", "trainer", "uid-new"), 0, 0, 4096));
        String kept = write(ledger.view(), false, cache, ExpositionFormat.PROMETHEUS_TEXT);
        assertEquals(write(ledger.view(), false, new RenderCache(), ExpositionFormat.PROMETHEUS_TEXT), kept);
        List<String> changed = kept.lines().filter(line -> line.startsWith("hami_vgpu_memory_allocated_bytes{"))
                .toList();
        assertEquals(1, changed.size(), kept);
        assertTrue(changed.getFirst().endsWith("pod=\"trainer\",zone=\"vGPU\"} 4.294967296E9"), kept);
    }

    @Test
    void aViewWhosePodsAreNotInNameOrderStillYieldsOneSeriesPerPodName() throws Exception {
        // Not the ledger's order: two pods of one name apart, another between them.
        PodPlacement first = placement(new PodRef("team", "trainer", "uid-a"), 0, 0, 1024);
        PodPlacement between = placement(new PodRef("team", "analyst", "uid-b"), 0, 0, 512);
        PodPlacement again = placement(new PodRef("team", "trainer", "uid-c"), 0, 0, 2048);
        Ledger ledger = new Ledger();
        ledger.putNode(nodeName(0), List.of(card(0, 0)));
        List.of(first, between, again).forEach(ledger::putPod);
        AllocationView ordered = ledger.view();
        AllocationView view = new AllocationView(ordered.cards(), List.of(first, between, again), ordered.quotas(),
                ordered.migInstances(), ordered.unregisteredCardShares(), ordered.freshness());

        String exposition = write(view, false, new RenderCache(), ExpositionFormat.PROMETHEUS_TEXT);
        List<String> memory = exposition.lines().filter(line -> line.startsWith("hami_vgpu_memory_allocated_bytes{"))
                .toList();
        assertEquals(2, memory.size(), exposition);
        assertTrue(memory.stream().anyMatch(line -> line.contains("pod=\"trainer\"") && line.endsWith(
                " 1.073741824E9")), "the first of the two: " + memory);
        assertEquals(byFamily(writeInOneCall(view, false, ExpositionFormat.PROMETHEUS_TEXT)), byFamily(exposition));
        Promtool.assertClean(exposition);
    }

    private static String nodeName(int node) {
        return RandomCluster.nodeName(node);
    }

    private static RegisteredCard card(int node, int index) {
        return new RegisteredCard("GPU-" + node + "-" + index, index, 10, 40960, 100, "NVIDIA A100", 0,
                CardMode.HAMI_CORE, true);
    }

    private static PodPlacement placement(String namespace, String name, int node, int card, long memoryMib) {
        return placement(new PodRef(namespace, name, namespace + "/" + name), node, card, memoryMib);
    }

    private static PodPlacement placement(PodRef pod, int node, int card, long memoryMib) {
        return new PodPlacement(pod, nodeName(node), PodPhase.RUNNING, true, List.of(new ContainerShares(0, "main",
                false, List.of(new DeviceShare("GPU-" + node + "-" + card, "NVIDIA", memoryMib, 10)))));
    }
}
