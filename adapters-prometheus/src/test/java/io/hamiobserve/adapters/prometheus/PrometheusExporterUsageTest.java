package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.Card;
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
import io.hamiobserve.domain.fleet.UsageOrigin;
import io.hamiobserve.domain.fleet.Workload;
import io.hamiobserve.domain.fleet.WorkloadRef;
import io.hamiobserve.domain.fleet.WorkloadShare;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every vendor's use joined to the fleet, against a real Prometheus holding four hours of series:
 * the vendors' own exporters as their modules map them (npu-exporter with a scrape that did not
 * honour labels, hcu-exporter naming no card, mlu-exporter naming containers by an info series),
 * HAMi-named usage from a vendor's device plugin (no {@code node} label), a whole card without
 * HAMi-Core measured per process by the driver, and a card no exporter reports.
 */
class PrometheusExporterUsageTest {
    private static final double MIB = 1024 * 1024;
    private static final double GIB = 1024 * MIB;
    private static final String NPU = "npu-vdie-0001";
    private static final String NPU_HAMI = "npu-vdie-0002";
    private static final String DCU = "dcu-0001";
    private static final String VDCU = "dcu-0002";
    private static final String METAX = "GPU-mx-0001";
    private static final String MLU = "MLU-0001";
    private static final String WHOLE = "GPU-00000000-0000-4000-a000-000000000009";
    private static final String SILENT = "npu-vdie-0003";
    private static final String TEMPLATE = "npu-vdie-0004";
    /** Card ids an exporter may carry: text for PromQL strings and pages alike, never syntax. */
    private static final String HOSTILE = "npu-\"q\"\\b\\\nline<script>alert(1)</script>'} or vector(1)";
    private static final String LONG = "npu-" + "x".repeat(100 * 1024);

    private static long end;
    private static LocalPrometheus prometheus;
    private static PrometheusFleetHistory history;

    @BeforeAll
    static void startPrometheusWithHistory() throws Exception {
        end = (Instant.now().getEpochSecond() / 60) * 60 - 60;
        long start = end - 4 * 3600;
        prometheus = History.loaded("hami-observe-exporters", start, end, 60, series -> {
            // Registered cards and one container's share on each (ns, pod, card, model).
            for (String[] card : new String[][] {{"ml", "train", NPU, "Ascend910B3", "npu-a"},
                    {"ml", "infer", NPU_HAMI, "Ascend910B3", "npu-a"}, {"hy", "sim", DCU, "DCU-Z100", "dcu-a"},
                    {"hy", "vd", VDCU, "DCU-Z100", "dcu-b"}, {"mx", "sg", METAX, "Metax-SGPU", "mx-a"},
                    {"mlu", "serve", MLU, "MLU", "mlu-a"}, {"gpu", "whole", WHOLE, "NVIDIA-A100", "gpu-a"},
                    {"ml", "quiet", SILENT, "Ascend910B3", "npu-b"}}) {
                Map<String, String> registered = Map.of("node", card[4], "device_uuid", card[2], "device_index", "0",
                        "device_type", card[3]);
                series.series("hami_gpu_memory_limit_bytes", registered, t -> 64 * GIB)
                        .series("hami_gpu_memory_allocated_bytes", registered, t -> 16 * GIB);
                Map<String, String> share = Map.of("namespace", card[0], "pod", card[1], "container_index", "0",
                        "node", card[4], "device_uuid", card[2]);
                series.series("hami_vgpu_memory_allocated_bytes", share, t -> 16 * GIB)
                        .series("hami_vgpu_core_allocated_ratio", share, t -> 50)
                        .series("hami_observe_container_info", Map.of("namespace", card[0], "pod", card[1],
                                "container_index", "0", "container", "c", "init", "false"), t -> 1);
            }
            // npu-exporter, scraped without honour_labels: the workload's namespace is exported_namespace.
            series.series("npu_chip_info_hbm_used_memory", Map.of("vdie_id", NPU, "id", "0"), t -> 20480)
                    .series("npu_chip_info_utilization", Map.of("vdie_id", NPU, "id", "0"), t -> 55);
            Map<String, String> npuContainer = Map.of("vdie_id", NPU, "id", "0", "exported_namespace", "ml",
                    "namespace", "npu-system", "pod_name", "train", "container_name", "c");
            series.series("container_npu_used_memory", npuContainer, t -> 20480)
                    .series("container_npu_utilization", npuContainer, t -> 55);
            // HAMi-named usage from the Ascend device plugin (no node label).
            series.series("hami_vgpu_memory_used_bytes", Map.of("namespace", "ml", "pod", "infer", "container", "c",
                    "vdevice_index", "0", "device_uuid", NPU_HAMI), t -> 6 * GIB)
                    .series("hami_container_device_utilization_ratio", Map.of("namespace", "ml", "pod", "infer",
                            "container", "c", "vdevice_index", "0", "device_uuid", NPU_HAMI), t -> 30);
            // dcu-exporter per card; hcu-exporter per container, naming no card.
            series.series("dcu_usedmemory_bytes", Map.of("device_id", DCU), t -> 9 * GIB)
                    .series("dcu_utilizationrate", Map.of("device_id", DCU), t -> 70);
            Map<String, String> vhcu = Map.of("hcu_pod_namespace", "hy", "hcu_pod_name", "sim", "container", "c",
                    "node", "dcu-a");
            series.series("vhcu_usedmemory_bytes", vhcu, t -> t > end - 1800 ? 5 * GIB : 4 * GIB)
                    .series("vhcu_utilizationrate", vhcu, t -> 80);
            // MetaX's exporter: the card by its UUID (deviceId is its index on the node, 0 on every
            // node), the sGPU share by the workload only, scraped without honour_labels.
            Map<String, String> mxCard = Map.of("uuid", METAX, "deviceId", "0", "Hostname", "mx-a");
            series.series("mx_gpu_usage", mxCard, t -> 65)
                    // KiB, as MetaX's exporter writes memory.
                    .series("mx_memory_used", Map.of("uuid", METAX, "deviceId", "0", "type", "vram"),
                            t -> 12 * GIB / 1024)
                    .series("mx_memory_used", Map.of("uuid", METAX, "deviceId", "0", "type", "ram"), t -> 99 * GIB / 1024);
            Map<String, String> sgpu = Map.of("deviceId", "0", "Hostname", "mx-a", "exported_namespace", "mx",
                    "exported_pod", "sg", "exported_container", "c");
            series.series("mx_sgpu_used_memory", sgpu, t -> 6 * GIB / 1024).series("mx_sgpu_usage", sgpu, t -> 25);
            // dcu-exporter's own vDCU series: the card by device_id, the workload by name; a vDCU no pod
            // holds has no workload labels and names no container.
            Map<String, String> vdcu = Map.of("device_id", VDCU, "dcu_pod_namespace", "hy", "dcu_pod_name", "vd",
                    "container", "c", "vdcu_minor_number", "1", "node", "dcu-b");
            series.series("vdcu_usedmemory_bytes", vdcu, t -> 3 * GIB)
                    .series("vdcu_utilizationrate", vdcu, t -> 40);
            Map<String, String> idleVdcu = Map.of("device_id", VDCU, "vdcu_minor_number", "2", "node", "dcu-b");
            series.series("vdcu_usedmemory_bytes", idleVdcu, t -> 60 * GIB)
                    .series("vdcu_utilizationrate", idleVdcu, t -> 99);
            // mlu-exporter: utilisation per card and virtual function; containers by the info series.
            // The container's memory as a percent of its virtual function (its 16 GiB share): 25 % now,
            // 12.5 % before the last half hour.
            series.series("mlu_memory_utilization", Map.of("uuid", MLU, "vf", "0"), t -> t > end - 1800 ? 25 : 12.5);
            series.series("mlu_utilization", Map.of("uuid", MLU, "vf", "0"), t -> 30)
                    .series("mlu_memory_used", Map.of("uuid", MLU), t -> 3 * GIB)
                    // mlu-exporter 1.5's name, which no mapping reads: not the card's figure twice.
                    .series("mlu_physical_memory_used", Map.of("uuid", MLU), t -> 7 * GIB)
                    .series("mlu_container", Map.of("uuid", MLU, "vf", "0", "namespace", "mlu", "pod", "serve",
                            "container", "c"), t -> 1);
            // Hostile card ids in npu-exporter's series and the registry's (the long one for five minutes
            // only, to keep the backfill small), one container on the hostile card.
            for (String hostile : new String[] {HOSTILE, LONG}) {
                long from = hostile.equals(LONG) ? end - 300 : start;
                Map<String, String> registered = Map.of("node", "npu-h", "device_uuid", hostile, "device_index", "0",
                        "device_type", "Ascend910B3");
                series.series("hami_gpu_memory_limit_bytes", registered, from, t -> 64 * GIB)
                        .series("npu_chip_info_hbm_used_memory", Map.of("vdie_id", hostile, "id", "0"), from,
                                t -> 1024)
                        .series("npu_chip_info_utilization", Map.of("vdie_id", hostile, "id", "0"), from, t -> 33);
            }
            Map<String, String> hostileShare = Map.of("namespace", "ml", "pod", "h\"<b>", "container_index", "0",
                    "node", "npu-h", "device_uuid", HOSTILE);
            series.series("hami_vgpu_memory_allocated_bytes", hostileShare, t -> 16 * GIB)
                    .series("hami_observe_container_info", Map.of("namespace", "ml", "pod", "h\"<b>",
                            "container_index", "0", "container", "c", "init", "false"), t -> 1)
                    .series("container_npu_used_memory", Map.of("vdie_id", HOSTILE, "id", "0",
                            "exported_namespace", "ml", "pod_name", "h\"<b>", "container_name", "c"), t -> 1024);
            // A template (soft-slice) vNPU: HAMi allocates it no cores; the plugin's HAMi-named usage.
            Map<String, String> template = Map.of("node", "npu-c", "device_uuid", TEMPLATE, "device_index", "0",
                    "device_type", "Ascend910B3");
            series.series("hami_gpu_memory_limit_bytes", template, t -> 64 * GIB);
            Map<String, String> templateShare = Map.of("namespace", "ml", "pod", "tmpl", "container_index", "0",
                    "node", "npu-c", "device_uuid", TEMPLATE);
            series.series("hami_vgpu_memory_allocated_bytes", templateShare, t -> 16 * GIB)
                    .series("hami_vgpu_core_allocated_ratio", templateShare, t -> 0)
                    .series("hami_observe_container_info", Map.of("namespace", "ml", "pod", "tmpl",
                            "container_index", "0", "container", "c", "init", "false"), t -> 1)
                    .series("hami_vgpu_memory_used_bytes", Map.of("namespace", "ml", "pod", "tmpl", "container", "c",
                            "vdevice_index", "0", "device_uuid", TEMPLATE), t -> 3 * GIB)
                    .series("hami_container_device_utilization_ratio", Map.of("namespace", "ml", "pod", "tmpl",
                            "container", "c", "vdevice_index", "0", "device_uuid", TEMPLATE), t -> 45);
            // A whole card without HAMi-Core: the node role's per-process figures under HAMi's names.
            Map<String, String> whole = Map.of("namespace", "gpu", "pod", "whole", "container", "c",
                    "vdevice_index", "0", "device_uuid", WHOLE, "node", "gpu-a");
            series.series("hami_vgpu_memory_used_bytes", whole, t -> 10 * GIB)
                    .series("hami_observe_container_usage_source", with(whole, "source", "nvml_process"), t -> 1)
                    .series("hami_host_gpu_memory_used_bytes", Map.of("node", "gpu-a", "device_uuid", WHOLE),
                            t -> 11 * GIB);
        });
        history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    private static Map<String, String> with(Map<String, String> labels, String key, String value) {
        Map<String, String> copy = new HashMap<>(labels);
        copy.put(key, value);
        return copy;
    }

    private static FleetState state(FleetScope scope) throws Exception {
        return FleetState.of(history.readings(Instant.ofEpochSecond(end), scope));
    }

    /** The recommendation for container {@code c} of a pod over the history's four hours. */
    private static Recommendation recommendation(String namespace, String pod) throws Exception {
        UsageHistory usage = history.usage(Instant.ofEpochSecond(end), Duration.ofHours(4), RightSizing.MIN_HISTORY,
                FleetScope.EVERYTHING);
        return RightSizing.recommend(state(FleetScope.EVERYTHING).workload(new WorkloadRef(namespace, pod, "c"))
                .orElseThrow(), usage);
    }

    /** Right-sizing's peak is the figure in bytes; its sample count is a count (one a minute for 4 h). */
    private static void assertPeakOverFourHours(double peak, String namespace, String pod) throws Exception {
        Recommendation recommendation = recommendation(namespace, pod);
        assertEquals(peak, recommendation.memoryPeak().orElseThrow());
        assertTrue(recommendation.samples() > 200 && recommendation.samples() <= 4 * 60 + 1,
                "samples: " + recommendation.samples());
    }

    private static WorkloadShare share(FleetState state, String namespace, String pod) {
        return state.workload(new WorkloadRef(namespace, pod, "c")).orElseThrow().shares().getFirst();
    }

    @Test
    void aVendorExportersCardFiguresAreTheCardsUseInBytesAndPercentWithTheirSource() throws Exception {
        FleetState state = state(FleetScope.EVERYTHING);
        Card npu = state.card(NPU).orElseThrow();
        assertEquals(20480 * MIB, npu.memoryUsed().orElseThrow(), "MB converted to bytes");
        assertEquals(55, npu.utilisation().orElseThrow());
        assertEquals("npu-exporter", npu.origin().orElseThrow().source());
        Card dcu = state.card(DCU).orElseThrow();
        assertEquals(9 * GIB, dcu.memoryUsed().orElseThrow());
        assertEquals(70, dcu.utilisation().orElseThrow());
        Card mlu = state.card(MLU).orElseThrow();
        assertEquals(3 * GIB, mlu.memoryUsed().orElseThrow());
        assertEquals(30, mlu.utilisation().orElseThrow());
    }

    @Test
    void aCardOnlyItsVendorsExporterReportsDrawsItsUseInItsTrend() throws Exception {
        for (Object[] expected : new Object[][] {{NPU, 20480 * MIB, 55.0}, {DCU, 9 * GIB, 70.0}}) {
            String uuid = (String) expected[0];
            TrendSet trends = history.trends(new TrendScope.OneCard(uuid), Instant.ofEpochSecond(end),
                    Duration.ofHours(1), Duration.ofMinutes(5));
            Trend memory = trends.of(Measure.TREND_MEMORY_USED).getFirst();
            Trend utilisation = trends.of(Measure.TREND_UTILISATION).getFirst();
            assertEquals((double) expected[1], memory.values()[memory.values().length - 1], uuid);
            assertEquals((double) expected[2], utilisation.values()[utilisation.values().length - 1], uuid);
        }
        // A card no exporter reports draws no line, never a zero.
        TrendSet silent = history.trends(new TrendScope.OneCard(SILENT), Instant.ofEpochSecond(end),
                Duration.ofHours(1), Duration.ofMinutes(5));
        assertFalse(silent.of(Measure.TREND_MEMORY_USED).getFirst().hasData());
    }

    @Test
    void aContainerFigureThatIsTheWholeCardsSaysSoAndMakesNoGap() throws Exception {
        WorkloadShare share = share(state(FleetScope.EVERYTHING), "ml", "train");
        assertEquals(NPU, share.uuid());
        assertEquals(20480 * MIB, share.memoryUsed().orElseThrow(), "joined by exported_namespace, not the exporter's");
        assertEquals(55, share.utilisation().orElseThrow());
        UsageOrigin origin = share.origin().orElseThrow();
        assertTrue(origin.describe().contains("whole card"), origin.describe());
        assertEquals(Figure.missing(Absence.DIFFERENT_MEANING), share.memoryIdle());
    }

    @Test
    void aContainerFigureNamingNoCardJoinsTheContainersOnlyCardAndAVhcuPercentSaysWhatItIs() throws Exception {
        WorkloadShare share = share(state(FleetScope.EVERYTHING), "hy", "sim");
        assertEquals(DCU, share.uuid());
        assertEquals(0, share.containerIndex(), "joined to the allocation, not a share of its own");
        assertEquals(5 * GIB, share.memoryUsed().orElseThrow());
        assertEquals(11 * GIB, share.memoryIdle().orElseThrow(), "the gap from the exporter's memory, the container's own");
        assertEquals(80, share.utilisation().orElseThrow());
        assertTrue(share.origin().orElseThrow().utilisationMeaning().contains("vHCU"));
        assertTrue(share.origin().orElseThrow().memoryIsOwn());
    }

    @Test
    void metaxCardsAreTheirUuidsAndAnSgpuShareJoinsItsContainersOnlyCard() throws Exception {
        Card card = state(FleetScope.EVERYTHING).card(METAX).orElseThrow();
        assertEquals(12 * GIB, card.memoryUsed().orElseThrow(), "the VRAM, not the host memory, KiB to bytes");
        assertEquals(65, card.utilisation().orElseThrow());
        WorkloadShare share = share(state(FleetScope.EVERYTHING), "mx", "sg");
        assertEquals(METAX, share.uuid());
        assertEquals(6 * GIB, share.memoryUsed().orElseThrow());
        assertEquals(25, share.utilisation().orElseThrow());
        assertTrue(share.origin().orElseThrow().utilisationMeaning().contains("sGPU"));
        // Right-sizing's peak is scaled from KiB, its sample count is not (a count in any unit).
        assertPeakOverFourHours(6 * GIB, "mx", "sg");
    }

    @Test
    void dcuExportersVdcuSeriesNameTheirWorkloadAndAnUnheldVdcuIsNobodys() throws Exception {
        WorkloadShare share = share(state(FleetScope.EVERYTHING), "hy", "vd");
        assertEquals(VDCU, share.uuid());
        assertEquals(3 * GIB, share.memoryUsed().orElseThrow());
        assertEquals(40, share.utilisation().orElseThrow(), "the held vDCU's percent, not the unheld one's");
        assertTrue(share.origin().orElseThrow().utilisationMeaning().contains("vDCU"));
    }

    @Test
    void containersNamedByAnInfoSeriesTakeTheirVirtualFunctionsUtilisationAndTheirShareOfItsMemory() throws Exception {
        WorkloadShare share = share(state(FleetScope.EVERYTHING), "mlu", "serve");
        assertEquals(MLU, share.uuid());
        assertEquals(30, share.utilisation().orElseThrow());
        // A percent of the share's 16 GiB, in bytes, with the share's gap and a recommendation from it.
        assertEquals(4 * GIB, share.memoryUsed().orElseThrow());
        assertEquals(12 * GIB, share.memoryIdle().orElseThrow());
        assertTrue(share.origin().orElseThrow().memoryIsOwn(), share.origin().toString());
        assertPeakOverFourHours(4 * GIB, "mlu", "serve");
    }

    @Test
    void aTemplateVnpuWithNoCoresOfItsOwnSaysItsUtilisationIsTheChipsAndRecommendsNoCompute() throws Exception {
        FleetState state = state(FleetScope.EVERYTHING);
        WorkloadShare share = share(state, "ml", "tmpl");
        assertEquals(3 * GIB, share.memoryUsed().orElseThrow());
        UsageOrigin origin = share.origin().orElseThrow();
        assertEquals("Ascend device plugin", origin.source());
        assertTrue(origin.memoryIsOwn(), "its memory is its own");
        assertFalse(origin.utilisationIsOwn(), origin.describe());
        assertTrue(origin.describe().contains("the chip's utilisation"), origin.describe());
        Recommendation template = recommendation("ml", "tmpl");
        assertEquals(3 * GIB, template.memoryPeak().orElseThrow());
        assertEquals(Figure.missing(Absence.DIFFERENT_MEANING), template.cores());
        // The share of the same model that holds cores keeps its own figures, with no note.
        assertTrue(share(state, "ml", "infer").origin().isEmpty());
    }

    @Test
    void hamiNamedUsageFromAVendorsPluginJoinsAsNvidiasDoesWithoutANote() throws Exception {
        WorkloadShare share = share(state(FleetScope.EVERYTHING), "ml", "infer");
        assertEquals(6 * GIB, share.memoryUsed().orElseThrow());
        assertEquals(10 * GIB, share.memoryIdle().orElseThrow());
        assertTrue(share.origin().isEmpty());
    }

    @Test
    void aWholeCardWithoutHamiCoreIsSaidToBeMeasuredPerProcessByTheDriver() throws Exception {
        WorkloadShare share = share(state(FleetScope.EVERYTHING), "gpu", "whole");
        assertEquals(10 * GIB, share.memoryUsed().orElseThrow());
        assertEquals(UsageOrigin.DRIVER_PROCESSES, share.origin().orElseThrow());
        assertTrue(UsageOrigin.DRIVER_PROCESSES.describe().contains("per process by the driver"));
    }

    @Test
    void aCardNoExporterReportsHasNoUseAndNoZero() throws Exception {
        FleetState state = state(FleetScope.EVERYTHING);
        Card silent = state.card(SILENT).orElseThrow();
        assertFalse(silent.memoryUsed().isKnown());
        assertTrue(silent.origin().isEmpty());
        assertFalse(share(state, "ml", "quiet").memoryUsed().isKnown());
    }

    @Test
    void oneCardsPageReadsThatCardsExporterSeriesOnly() throws Exception {
        FleetReadings readings = history.readings(Instant.ofEpochSecond(end), new FleetScope.OnCard(NPU));
        assertTrue(readings.provenance().get(Measure.EXPORTER_CARD_MEMORY_USED).expression()
                .contains("vdie_id=\"" + NPU + "\""));
        assertTrue(readings.hosts().stream().noneMatch(host -> host.uuid().equals(DCU)));
        assertEquals(20480 * MIB, FleetState.of(readings).card(NPU).orElseThrow().memoryUsed().orElseThrow());
    }

    @Test
    void rightSizingWritesTheVendorsResourceNamesAndTakesNothingFromFiguresOfAnotherMeaning() throws Exception {
        FleetState state = state(FleetScope.EVERYTHING);
        UsageHistory usage = history.usage(Instant.ofEpochSecond(end), Duration.ofHours(4), RightSizing.MIN_HISTORY,
                FleetScope.EVERYTHING);
        Map<WorkloadRef, Recommendation> byWorkload = new HashMap<>();
        for (Workload workload : state.workloads()) {
            byWorkload.put(workload.ref(), RightSizing.recommend(workload, usage));
        }
        // hcu-exporter's memory is the container's: a recommendation in Hygon's names; its busy
        // percent is the vHCU's, so no compute is recommended from it.
        Recommendation dcu = byWorkload.get(new WorkloadRef("hy", "sim", "c"));
        assertTrue(dcu.notEnoughData().isEmpty(), dcu.notEnoughData().toString());
        assertEquals(5 * GIB, dcu.memoryPeak().orElseThrow());
        assertEquals(Figure.missing(Absence.DIFFERENT_MEANING), dcu.cores());
        String snippet = dcu.snippet().orElseThrow();
        assertTrue(snippet.contains("hygon.com/dcunum: 1") && snippet.contains("hygon.com/dcumem: 5888"), snippet);
        assertFalse(snippet.contains("nvidia.com") || snippet.contains("dcucores"), snippet);
        // npu-exporter's container figures are the whole card's: no recommendation from them.
        Recommendation npu = byWorkload.get(new WorkloadRef("ml", "train", "c"));
        assertTrue(npu.notEnoughData().orElseThrow().contains("whole card"), npu.notEnoughData().toString());
        // HAMi-named usage on an Ascend card: Ascend's names, memory only (its cores are AI cores).
        Recommendation ascend = byWorkload.get(new WorkloadRef("ml", "infer", "c"));
        String ascendSnippet = ascend.snippet().orElseThrow();
        assertTrue(ascendSnippet.contains("huawei.com/Ascend910B3: 1")
                && ascendSnippet.contains("huawei.com/Ascend910B3-memory: "), ascendSnippet);
        assertFalse(ascendSnippet.contains("-core"), ascendSnippet);
    }

    @Test
    void hostileCardIdsInAnExportersSeriesAreDataEverywhereAndQueriesStayWhole() throws Exception {
        FleetState state = state(FleetScope.EVERYTHING);
        assertEquals(1024 * MIB, state.card(HOSTILE).orElseThrow().memoryUsed().orElseThrow());
        assertEquals(33, state.card(HOSTILE).orElseThrow().utilisation().orElseThrow());
        assertEquals(1024 * MIB, state.card(LONG).orElseThrow().memoryUsed().orElseThrow(), "a 100 KB id");
        assertEquals(1024 * MIB, share(state, "ml", "h\"<b>").memoryUsed().orElseThrow());
        // One card's page: the id is a quoted PromQL string, so its "or vector(1)" selects nothing else.
        for (String hostile : new String[] {HOSTILE, LONG}) {
            FleetReadings readings = history.readings(Instant.ofEpochSecond(end), new FleetScope.OnCard(hostile));
            // The exporters' cards on it: this one only, no other card's and no label-less "vector(1)".
            assertEquals(java.util.List.of(hostile), readings.hosts().stream().map(FleetReadings.Host::uuid)
                    .filter(uuid -> !uuid.startsWith("GPU-")).toList());
            assertEquals(1024 * MIB, FleetState.of(readings).card(hostile).orElseThrow().memoryUsed().orElseThrow());
        }
        assertTrue(state.card(NPU).orElseThrow().memoryUsed().isKnown(), "the other cards are untouched");
    }
}
