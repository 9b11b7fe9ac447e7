package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Recommendation;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.Workload;
import io.hamiobserve.domain.fleet.WorkloadRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The adapter against a real Prometheus (Debian's {@code prometheus}, which {@code bin/test}
 * installs) whose storage holds six hours of a small fleet's series, loaded with promtool.
 */
class PrometheusFleetHistoryTest {
    private static final double MIB = 1024 * 1024;
    private static final double GIB = 1024 * MIB;
    private static final String HOSTILE_NAMESPACE = "<script>alert(\"ns\")</script>";
    private static final String HOSTILE_POD = "eval\"job\\x";
    private static final String HOSTILE_TYPE = "<img src=x onerror=alert(1)>";
    private static final String HOSTILE_UUID = "GPU-b0\"}or vector(1)#";
    private static final List<String> FUZZ = new ArrayList<>();

    private static long end;
    private static LocalPrometheus prometheus;
    private static PrometheusFleetHistory history;
    private static PrometheusApi api;

    @BeforeAll
    static void startPrometheusWithHistory() throws Exception {
        // Six hours at one sample a minute, ending on a minute that is a multiple of three.
        end = (Instant.now().getEpochSecond() / 180) * 180 - 180;
        long start = end - 6 * 3600;
        // (An empty value is not a value in Prometheus: it matches series without the label.)
        FUZZ.addAll(List.of("\"", "\\", "\\\"", "\n", "a\"} or up{b=\"", "${node}", "$1", "`'", "{}[]()",
                "Ünïcødé 🚀", "\u2028", "<b>&amp;</b>"));
        Random random = new Random(11);
        String alphabet = "ab\"\\\n{}=,$`'<>&🚀é ";
        for (int i = 0; i < 40; i++) {
            StringBuilder value = new StringBuilder();
            int length = 1 + random.nextInt(12);
            for (int c = 0; c < length; c++) {
                value.appendCodePoint(alphabet.codePointAt(alphabet.offsetByCodePoints(0,
                        random.nextInt(alphabet.codePointCount(0, alphabet.length())))));
            }
            if (!FUZZ.contains(value.toString())) {
                FUZZ.add(value.toString());
            }
        }
        prometheus = History.loaded("hami-observe-history", start, end, 60, series -> {
            Map<String, String> a0 = card("node-a", "GPU-A0", "0", "NVIDIA A100");
            Map<String, String> b0 = card("node-b", HOSTILE_UUID, "0", HOSTILE_TYPE);
            series.series("hami_gpu_memory_limit_bytes", a0, t -> 40 * GIB)
                    .series("hami_gpu_memory_limit_bytes", b0, t -> 80 * GIB)
                    .series("hami_gpu_memory_allocated_bytes", a0, t -> 12 * GIB)
                    .series("hami_gpu_memory_allocated_bytes", b0, t -> 20 * GIB)
                    .series("hami_gpu_core_limit_ratio", a0, t -> 100)
                    .series("hami_gpu_core_limit_ratio", b0, t -> 100)
                    .series("hami_gpu_core_allocated_ratio", a0, t -> 50)
                    .series("hami_gpu_core_allocated_ratio", b0, t -> 50)
                    .series("hami_gpu_shared_count", a0, t -> 2)
                    .series("hami_gpu_shared_count", b0, t -> 1)
                    .series("hami_observe_gpu_share_limit", a0, t -> 10)
                    .series("hami_observe_gpu_share_limit", b0, t -> 10)
                    .series("hami_observe_gpu_healthy", with(a0, "mode", "hami-core"), t -> 1)
                    .series("hami_observe_gpu_healthy", with(b0, "mode", "hami-core"), t -> 1)
                    .series("hami_host_gpu_memory_used_bytes", a0, t -> 5.5 * GIB)
                    .series("hami_host_gpu_memory_used_bytes", b0, t -> 0.4 * GIB)
                    .series("hami_host_gpu_utilization_ratio", a0, t -> 30)
                    .series("hami_observe_host_gpu_temperature_celsius", a0, t -> 48)
                    .series("hami_observe_host_gpu_power_watts", a0, t -> 152);
            allocation(series, "ml-team", "llm-inference", "server", "node-a", "GPU-A0", 8192, 30);
            allocation(series, "ml-team", "notebook-alice", "jupyter", "node-a", "GPU-A0", 4096, 20);
            allocation(series, HOSTILE_NAMESPACE, HOSTILE_POD, "eval", "node-b", HOSTILE_UUID, 20480, 50);
            // The brief's pod: 2100 MiB, peaking at 2226 MiB every third minute; utilisation 20..29 %.
            Map<String, String> llm = use("ml-team", "llm-inference", "server", "node-a", "GPU-A0");
            series.series("hami_vgpu_memory_used_bytes", llm, t -> (2100 + ((t / 60) % 3 == 0 ? 126 : 0)) * MIB)
                    .series("hami_container_device_utilization_ratio", llm, t -> 20 + (t / 60) % 10)
                    .series("hami_container_last_kernel_elapsed_seconds", llm, t -> 3);
            Map<String, String> alice = use("ml-team", "notebook-alice", "jupyter", "node-a", "GPU-A0");
            series.series("hami_vgpu_memory_used_bytes", alice, t -> 3000 * MIB)
                    .series("hami_container_device_utilization_ratio", alice, t -> 0);
            // A container two hours old: enough samples, not enough history.
            Map<String, String> young = use("ml-team", "new-pod", "main", "node-a", "GPU-A0");
            series.series("hami_vgpu_memory_used_bytes", young, end - 2 * 3600, t -> 700 * MIB)
                    .series("hami_container_device_utilization_ratio", young, end - 2 * 3600, t -> 10);
            series.series("hami_resource_quota_limit", Map.of("namespace", "ml-team", "quota_name",
                            "nvidia.com/gpumem", "zone", "vGPU"), t -> 40960)
                    .series("hami_resource_quota_used", Map.of("namespace", "ml-team", "quota_name",
                            "nvidia.com/gpumem", "limit", "40960", "zone", "vGPU"), t -> 12288)
                    .series("hami_observe_ledger_last_sync_timestamp_seconds", Map.of("instance", "sched:9395"),
                            t -> t - 10)
                    .series("hami_observe_scrape_source_success", Map.of("instance", "b:9394", "node", "node-b",
                            "source", "cachefile"), t -> 0)
                    .series("hami_observe_scrape_source_success", Map.of("instance", "a:9394", "node", "node-a",
                            "source", "cachefile"), t -> 1)
                    .series("hami_observe_skipped_inputs_total", Map.of("source", "cachefile", "kind", "file",
                            "reason", "truncated"), t -> (t - start) / 3600.0);
            for (int i = 0; i < FUZZ.size(); i++) {
                series.series("fuzz_marker", Map.of("v", FUZZ.get(i), "i", Integer.toString(i)), end - 600, t -> 1);
            }
        });
        history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
        api = new PrometheusApi(prometheus.url(), Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    private static Map<String, String> card(String node, String uuid, String index, String type) {
        return Map.of("node", node, "device_uuid", uuid, "device_index", index, "device_type", type, "zone", "vGPU");
    }

    private static Map<String, String> with(Map<String, String> labels, String key, String value) {
        Map<String, String> copy = new HashMap<>(labels);
        copy.put(key, value);
        return copy;
    }

    private static Map<String, String> use(String namespace, String pod, String container, String node, String uuid) {
        return Map.of("namespace", namespace, "pod", pod, "container", container, "node", node, "device_uuid", uuid,
                "vdevice_index", "0", "zone", "vGPU");
    }

    private static void allocation(History series, String namespace, String pod, String container, String node,
                                   String uuid, double memoryMib, double cores) throws Exception {
        Map<String, String> labels = Map.of("namespace", namespace, "pod", pod, "container_index", "0", "node", node,
                "device_uuid", uuid, "zone", "vGPU");
        Map<String, String> detail = Map.of("namespace", namespace, "pod", pod, "container_index", "0",
                "container", container, "node", node, "device_uuid", uuid);
        series.series("hami_vgpu_memory_allocated_bytes", labels, t -> memoryMib * MIB)
                .series("hami_vgpu_core_allocated_ratio", labels, t -> cores)
                .series("hami_observe_vgpu_container_memory_allocated_bytes", detail, t -> memoryMib * MIB)
                .series("hami_observe_vgpu_container_core_allocated_ratio", detail, t -> cores)
                .series("hami_observe_container_info", Map.of("namespace", namespace, "pod", pod, "node", node,
                        "container_index", "0", "container", container, "init", "false"), t -> 1);
    }

    @Test
    void theFleetNowIsReadAndJoinedWithHostileLabelValuesKeptExactly() throws Exception {
        FleetReadings readings = history.readings(Instant.ofEpochSecond(end), FleetScope.EVERYTHING);
        FleetState state = FleetState.of(readings);
        assertEquals(2, state.cards().size());
        assertEquals(40 * GIB, state.card("GPU-A0").orElseThrow().memoryTotal().orElseThrow());
        assertEquals(5.5 * GIB, state.card("GPU-A0").orElseThrow().memoryUsed().orElseThrow());
        assertEquals(Figure.of(48), state.card("GPU-A0").orElseThrow().temperature());
        assertEquals(HOSTILE_TYPE, state.card(HOSTILE_UUID).orElseThrow().model());
        assertEquals(Figure.missing(Absence.NOT_SUPPORTED), state.card(HOSTILE_UUID).orElseThrow().temperature());

        Workload llm = state.workload(new WorkloadRef("ml-team", "llm-inference", "server")).orElseThrow();
        assertEquals(8192 * MIB, llm.memoryAllocated().orElseThrow());
        assertEquals(2226 * MIB, llm.memoryUsed().orElseThrow());
        assertEquals(30, llm.coresAllocated().orElseThrow());
        assertEquals(Figure.of(3), llm.lastKernelSeconds());

        Workload hostile = state.workload(new WorkloadRef(HOSTILE_NAMESPACE, HOSTILE_POD, "eval")).orElseThrow();
        assertEquals(20 * GIB, hostile.memoryAllocated().orElseThrow());
        assertEquals(Figure.missing(Absence.SOURCE_FAILING), hostile.memoryUsed());

        assertEquals(1, state.health().failing().size());
        assertEquals(10, state.health().ledgerAges().getFirst().seconds(), 0.5);
        assertEquals(1, state.health().skippedLastHour(), 0.1);
        FleetState.NamespaceSummary ml = state.namespaces().stream().filter(ns -> ns.name().equals("ml-team"))
                .findFirst().orElseThrow();
        assertEquals(40 * GIB, ml.memoryQuota().orElseThrow());
        assertTrue(readings.provenance().get(Measure.CARD_MEMORY_TOTAL).expression()
                .contains("hami_gpu_memory_limit_bytes"));
        // A fixed set of queries, whatever the fleet's size: HAMi's, one per DCGM field, one per figure
        // of the vendors' usage exporters (every vendor together, until the engine has said which it
        // holds), and where containers' use comes from.
        FleetReadings first = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20))
                .readings(Instant.ofEpochSecond(end), FleetScope.EVERYTHING);
        assertEquals(26 + DcgmQueries.ALL.size() + io.hamiobserve.ports.spi.UsageSeries.Kind.values().length + 1,
                first.provenance().size());
    }

    @Test
    void onceTheEngineSaysItHoldsNoVendorsExporterTheirQueriesAreNotSent() throws Exception {
        PrometheusFleetHistory fresh = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
        Instant at = Instant.ofEpochSecond(end);
        FleetReadings first = fresh.readings(at, FleetScope.EVERYTHING);
        assertTrue(first.provenance().containsKey(Measure.EXPORTER_CONTAINER_MEMORY_USED), "asked before it is known");
        FleetReadings later = first;
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (later.provenance().containsKey(Measure.EXPORTER_CONTAINER_MEMORY_USED) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            later = fresh.readings(at, FleetScope.EVERYTHING);
        }
        for (Measure measure : List.of(Measure.EXPORTER_CARD_MEMORY_USED, Measure.EXPORTER_CARD_UTILISATION,
                Measure.EXPORTER_CONTAINER_MEMORY_USED, Measure.EXPORTER_CONTAINER_UTILISATION)) {
            assertFalse(later.provenance().containsKey(measure), measure + " still asked");
        }
        // Nothing else changes: every card, share and use reads the same.
        assertEquals(FleetState.of(first).cards(), FleetState.of(later).cards());
        assertEquals(FleetState.of(first).workloads(), FleetState.of(later).workloads());
    }

    @Test
    void aScopeReadsOnlyTheContainersItNames() throws Exception {
        Instant at = Instant.ofEpochSecond(end);
        FleetReadings cardsOnly = history.readings(at, FleetScope.CARDS_ONLY);
        assertEquals(2, cardsOnly.registered().size());
        assertTrue(cardsOnly.allocations().isEmpty() && cardsOnly.uses().isEmpty() && cardsOnly.names().isEmpty());
        assertEquals(Map.of(new FleetReadings.ClusterNode("", "node-a"), 2L, new FleetReadings.ClusterNode("", "node-b"), 1L),
                cardsOnly.containersByNode());
        FleetState cards = FleetState.of(cardsOnly);
        assertEquals(2, cards.node("node-a").orElseThrow().workloads(), "counted, not listed");

        FleetState onCard = FleetState.of(history.readings(at, new FleetScope.OnCard(HOSTILE_UUID)));
        assertEquals(List.of(new WorkloadRef(HOSTILE_NAMESPACE, HOSTILE_POD, "eval")),
                onCard.workloads().stream().map(Workload::ref).toList(), "named through the card's allocations");

        FleetState onNode = FleetState.of(history.readings(at, new FleetScope.OnNode("node-a")));
        assertEquals(List.of("llm-inference", "new-pod", "notebook-alice"),
                onNode.workloads().stream().map(w -> w.ref().pod()).toList());

        WorkloadRef llm = new WorkloadRef("ml-team", "llm-inference", "server");
        FleetState one = FleetState.of(history.readings(at, new FleetScope.OfWorkload(llm)));
        assertEquals(List.of(llm), one.workloads().stream().map(Workload::ref).toList());
        UsageHistory usage = history.usage(at, RightSizing.DEFAULT_WINDOW, RightSizing.MIN_HISTORY,
                new FleetScope.OfWorkload(llm));
        assertEquals(1, usage.shares().size());
        assertEquals(2226 * MIB, usage.shares().getFirst().memoryPeak().orElseThrow());
    }

    @Test
    void everyContainersReadingsGiveWhatACardsOnlyReadGives() throws Exception {
        Instant at = Instant.ofEpochSecond(end);
        FleetReadings read = history.readings(at, FleetScope.CARDS_ONLY);
        FleetReadings derived = history.readings(at, FleetScope.EVERYTHING).cardsOnly();
        assertEquals(read.registered(), derived.registered());
        assertEquals(read.hosts(), derived.hosts());
        assertEquals(read.containersByNode(), derived.containersByNode());
        assertTrue(derived.allocations().isEmpty() && derived.uses().isEmpty() && derived.names().isEmpty());
        assertEquals(read.quotas(), derived.quotas());
        assertEquals(read.sources(), derived.sources());
        assertEquals(read.physical(), derived.physical());
        assertEquals(read.origins(), derived.origins());
        assertEquals(read.provenance().keySet(), derived.provenance().keySet(), "the same measures, said where from");
        assertEquals(FleetState.of(read).nodes(), FleetState.of(derived).nodes());
    }

    @Test
    void usageOverTheWindowGivesTheBriefsPodItsTwoAndAHalfGiB() throws Exception {
        UsageHistory usage = history.usage(Instant.ofEpochSecond(end), RightSizing.DEFAULT_WINDOW,
                RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
        UsageHistory.ShareHistory llm = usage.shares().stream().filter(share -> share.pod().equals("llm-inference"))
                .findFirst().orElseThrow();
        assertEquals(2226 * MIB, llm.memoryPeak().orElseThrow());
        assertEquals(361, llm.samples());
        assertTrue(llm.settledSamples() > 100, "samples older than three hours: " + llm.settledSamples());
        assertTrue(llm.utilisationP95().orElseThrow() > 28 && llm.utilisationP95().orElseThrow() <= 29);

        FleetState state = FleetState.of(history.readings(Instant.ofEpochSecond(end), FleetScope.EVERYTHING));
        List<Recommendation> recommendations = RightSizing.recommendAll(state.workloads(), usage);
        Recommendation forLlm = recommendations.stream().filter(r -> r.workload().pod().equals("llm-inference"))
                .findFirst().orElseThrow();
        assertEquals(2560, forLlm.memoryMib().orElseThrow());
        assertEquals(30, forLlm.cores().orElseThrow());
        Recommendation young = recommendations.stream().filter(r -> r.workload().pod().equals("new-pod"))
                .findFirst().orElseThrow();
        assertEquals("less than 3 h of history", young.notEnoughData().orElseThrow());
        Recommendation alice = recommendations.stream().filter(r -> r.workload().pod().equals("notebook-alice"))
                .findFirst().orElseThrow();
        assertTrue(alice.idle(), "no utilisation for three hours");
    }

    @Test
    void trendsOfACardWhoseUuidWouldBreakAnUnescapedQuery() throws Exception {
        TrendSet card = history.trends(new TrendScope.OneCard(HOSTILE_UUID), Instant.ofEpochSecond(end),
                Duration.ofHours(1), Duration.ofMinutes(1));
        Trend allocated = card.of(Measure.TREND_MEMORY_ALLOCATED).getFirst();
        assertEquals(61, allocated.size());
        assertEquals(20 * GIB, allocated.at(60).orElseThrow());
        assertFalse(card.of(Measure.TREND_TEMPERATURE).getFirst().hasData());

        TrendSet workload = history.trends(new TrendScope.OneWorkload(
                new WorkloadRef("ml-team", "llm-inference", "server"), 0), Instant.ofEpochSecond(end),
                Duration.ofHours(6), Duration.ofMinutes(6));
        Trend used = workload.of(Measure.TREND_MEMORY_USED).getFirst();
        assertEquals("GPU-A0", used.label());
        assertTrue(used.hasData());
        assertEquals(8192 * MIB, workload.of(Measure.TREND_MEMORY_ALLOCATED).getFirst().at(30).orElseThrow());

        TrendSet cluster = history.trends(new TrendScope.Cluster(), Instant.ofEpochSecond(end), Duration.ofHours(1),
                Duration.ofMinutes(1));
        assertEquals(50, cluster.of(Measure.TREND_CORES_ALLOCATED).getFirst().at(30).orElseThrow(), 1e-9);
        // Before the history starts there is nothing: a gap, not a zero.
        TrendSet before = history.trends(new TrendScope.Node("node-a"), Instant.ofEpochSecond(end - 7 * 3600),
                Duration.ofHours(1), Duration.ofMinutes(1));
        assertFalse(before.of(Measure.TREND_MEMORY_USED).getFirst().hasData());
    }

    @Test
    void everyLabelValueMatchesItselfExactlyOnceQuoted() throws Exception {
        for (int i = 0; i < FUZZ.size(); i++) {
            String value = FUZZ.get(i);
            PromQl.Query query = new PromQl.Template("fuzz", "count(fuzz_marker{v=${v}})").bind("v", value);
            List<PrometheusApi.Sample> answer = PrometheusApi.await(api.instant(query, Instant.ofEpochSecond(end)))
                    .stream().toList();
            assertEquals(1, answer.size(), "value #" + i + " " + value);
            assertEquals(1, answer.getFirst().value(), "value #" + i + " " + value);
        }
    }
}
