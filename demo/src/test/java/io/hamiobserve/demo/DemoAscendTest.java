package io.hamiobserve.demo;

import io.hamiobserve.app.testing.Expositions;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.exposition.testing.Promtool;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Ascend node's simulated exporters: HAMi's Ascend plugin serves HAMi's names and labels,
 * npu-exporter its own, both name the chips by the ids the ledger holds, their figures agree with
 * each other the way the real ones do, promtool accepts them, and the history holds them.
 */
class DemoAscendTest {
    private static final Pattern SAMPLE = Pattern.compile("^([a-z_]+)\\{(.*)} (\\S+)$");

    private record Sample(String name, Map<String, String> labels, double value) {
    }

    private static List<Sample> samples(String exposition) {
        return exposition.lines().map(SAMPLE::matcher).filter(Matcher::matches)
                .map(m -> new Sample(m.group(1), labels(m.group(2)), Double.parseDouble(m.group(3)))).toList();
    }

    private static Map<String, String> labels(String text) {
        Map<String, String> labels = new HashMap<>();
        Matcher matcher = Pattern.compile("([a-z_]+)=\"([^\"]*)\"").matcher(text);
        while (matcher.find()) {
            labels.put(matcher.group(1), matcher.group(2));
        }
        return labels;
    }

    private static String render(DemoWorkload workload, DemoAscend.Exporter exporter) throws Exception {
        return Expositions.render(new DemoAscend(workload, DemoCluster.NPU_NODE, exporter),
                ExpositionFormat.PROMETHEUS_TEXT);
    }

    @Test
    void bothExportersNameTheLedgersChipsAndAgreeAsTheRealOnesDo() throws Exception {
        DemoWorkload workload = Fixtures.workload();
        assertEquals(List.of(DemoCluster.NPU_NODE), DemoAscend.nodes(workload.cluster()));
        Set<String> ledgerChips = new TreeSet<>(workload.cluster().cards(DemoCluster.NPU_NODE).stream()
                .map(card -> card.registration().uuid()).toList());
        List<Sample> plugin = samples(render(workload, DemoAscend.Exporter.HAMI_PLUGIN));
        List<Sample> npu = samples(render(workload, DemoAscend.Exporter.NPU_EXPORTER));

        // The same chips under HAMi's device_uuid and npu-exporter's vdie_id as in the ledger.
        assertEquals(ledgerChips, new TreeSet<>(plugin.stream().map(s -> s.labels().get("device_uuid")).toList()));
        assertEquals(ledgerChips, new TreeSet<>(npu.stream().map(s -> s.labels().get("vdie_id")).toList()));
        // HAMi's names, labelled as the NVIDIA vGPU monitor labels them.
        assertEquals(Set.of("hami_host_gpu_memory_used_bytes", "hami_host_gpu_utilization_ratio",
                "hami_vgpu_memory_used_bytes", "hami_vgpu_memory_limit_bytes", "hami_container_device_utilization_ratio",
                "hami_vgpu_memory_context_bytes", "hami_vgpu_memory_module_bytes", "hami_vgpu_memory_buffer_bytes"),
                Set.copyOf(plugin.stream().map(Sample::name).toList()));
        for (Sample sample : plugin) {
            Set<String> expected = sample.name().startsWith("hami_host_")
                    ? Set.of("device_index", "device_uuid", "device_type")
                    : Set.of("namespace", "pod", "container", "vdevice_index", "device_uuid");
            assertEquals(expected, sample.labels().keySet(), sample.toString());
        }
        AllocationView ledger = new DemoHistory(workload.cluster(), workload.clock().instant())
                .ledgerAt(workload.clock().instant());
        for (String chip : ledgerChips) {
            List<Sample> used = plugin.stream().filter(s -> s.name().equals("hami_vgpu_memory_used_bytes")
                    && s.labels().get("device_uuid").equals(chip)).toList();
            assertEquals(1, used.size(), chip);
            Sample container = used.getFirst();
            // The container is the ledger's holder of the chip, within its share.
            var share = ledger.containers().stream().filter(c -> c.uuid().equals(chip)).findFirst().orElseThrow();
            assertEquals(share.pod().name(), container.labels().get("pod"));
            assertEquals(share.container().name(), container.labels().get("container"));
            assertEquals(share.memoryBytes(), value(plugin, "hami_vgpu_memory_limit_bytes", "device_uuid", chip));
            assertTrue(container.value() > 0 && container.value() <= share.memoryBytes(), container.toString());
            // The chip's memory used is its containers' sum; a container's utilisation is the chip's.
            assertEquals(container.value(), value(plugin, "hami_host_gpu_memory_used_bytes", "device_uuid", chip));
            double chipBusy = value(plugin, "hami_host_gpu_utilization_ratio", "device_uuid", chip);
            assertEquals(chipBusy, value(plugin, "hami_container_device_utilization_ratio", "device_uuid", chip));
            assertTrue(chipBusy > 0 && chipBusy <= 100, "AI Core percent " + chipBusy);
            // npu-exporter: MB, the runtime's reserve included; the container figures are the chip's.
            double hbmUsed = value(npu, "npu_chip_info_hbm_used_memory", "vdie_id", chip);
            assertEquals(container.value() / (1 << 20) + DemoAscend.RUNTIME_RESERVED_MB, hbmUsed);
            assertEquals(65536, value(npu, "npu_chip_info_hbm_total_memory", "vdie_id", chip));
            assertEquals(hbmUsed, value(npu, "container_npu_used_memory", "vdie_id", chip));
            assertEquals(chipBusy, value(npu, "npu_chip_info_utilization", "vdie_id", chip));
            assertEquals(chipBusy, value(npu, "container_npu_utilization", "vdie_id", chip));
            assertEquals(1, value(npu, "npu_chip_info_health_status", "vdie_id", chip));
            assertEquals(share.pod().name(), npu.stream().filter(s -> s.name().equals("container_npu_used_memory")
                    && s.labels().get("vdie_id").equals(chip)).findFirst().orElseThrow().labels().get("pod_name"));
        }
    }

    private static double value(List<Sample> samples, String name, String label, String value) {
        List<Sample> found = samples.stream().filter(s -> s.name().equals(name) && value.equals(s.labels().get(label)))
                .toList();
        assertEquals(1, found.size(), name + " of " + value);
        return found.getFirst().value();
    }

    @Test
    void promtoolAcceptsBothExpositions() throws Exception {
        for (DemoAscend.Exporter exporter : DemoAscend.Exporter.values()) {
            assertEquals(List.of(), promtool(render(Fixtures.workload(), exporter)), exporter.job);
        }
    }

    private static List<String> promtool(String exposition) throws IOException, InterruptedException {
        return Promtool.findings(exposition);
    }

    @Test
    void theHistoryHoldsBothExportersUnderTheirJobs() throws Exception {
        Instant now = Instant.ofEpochSecond(1_800_000_000L);
        DemoHistory history = new DemoHistory(DemoCluster.standard(), now);
        Path file = Files.createTempFile("demo-history", ".om");
        try {
            history.writeOpenMetrics(List.of(file), now.minusSeconds(3 * 3600), now.minusSeconds(1), true,
                    "127.0.0.1:1", Map.of(), Map.of(), Map.of(DemoCluster.NPU_NODE,
                            Map.of(DemoAscend.Exporter.HAMI_PLUGIN, "127.0.0.1:4",
                                    DemoAscend.Exporter.NPU_EXPORTER, "127.0.0.1:5")));
            List<String> lines = Files.readAllLines(file);
            long instants = 3 * 3600 / DemoHistory.STEP.toSeconds();
            for (String series : List.of("hami_vgpu_memory_used_bytes{", "npu_chip_info_hbm_used_memory{")) {
                long count = lines.stream().filter(line -> line.startsWith(series) && line.contains(
                        "node=\"" + DemoCluster.NPU_NODE + "\"")).count();
                // Two chips at every instant of three hours, and the last one.
                assertTrue(count >= 2 * instants, series + " " + count);
            }
            assertTrue(lines.stream().anyMatch(line -> line.startsWith("npu_chip_info_utilization{")
                    && line.contains("job=\"npu-exporter\"") && line.contains("instance=\"127.0.0.1:5\"")));
            assertTrue(lines.stream().anyMatch(line -> line.startsWith("hami_host_gpu_utilization_ratio{")
                    && line.contains("job=\"hami-ascend-device-plugin\"") && line.contains("instance=\"127.0.0.1:4\"")));
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
