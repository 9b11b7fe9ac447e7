package io.hamiobserve.demo;

import io.hamiobserve.domain.Units;
import io.hamiobserve.edge.http.MetricsSource;
import io.hamiobserve.exposition.Exposition;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The usage of the demo's Ascend node, as the two exporters an Ascend cluster runs serve it:
 * <ul>
 * <li>{@link Exporter#HAMI_PLUGIN}: the embedded metrics server of HAMi's Ascend device plugin
 *     ({@code Project-HAMi/ascend-device-plugin}, {@code internal/monitor/collector.go}), with the
 *     NVIDIA vGPU monitor's names and labels: {@code hami_host_gpu_memory_used_bytes} and
 *     {@code hami_host_gpu_utilization_ratio} per chip ({@code device_index}, {@code device_uuid},
 *     {@code device_type} {@code Ascend-<product>}), and per container and chip
 *     ({@code namespace, pod, container, vdevice_index, device_uuid}) {@code hami_vgpu_memory_used_bytes},
 *     {@code hami_vgpu_memory_limit_bytes}, {@code hami_container_device_utilization_ratio} and the
 *     context/module/buffer sizes (0: the plugin does not know them). The chip's memory used is
 *     the sum of its containers' (the plugin overrides the driver's figure with it); the
 *     utilisation is the chip's AI Core percent (0–100, despite the name), the same for every
 *     container on the chip.</li>
 * <li>{@link Exporter#NPU_EXPORTER}: Huawei's npu-exporter, {@code npu_chip_info_*} per chip
 *     ({@code id, model_name, vdie_id, pcie_bus_info}, and the chip's container in
 *     {@code namespace, pod_name, container_name}, empty when none): utilisation (AI Core %), HBM
 *     used and total (MB), temperature (°C), power (W), health (1 healthy); and
 *     {@code container_npu_utilization}, {@code container_npu_used_memory},
 *     {@code container_npu_total_memory}, which are the whole chip's figures (npu-exporter does not
 *     split a vNPU). Its HBM used includes what the runtime reserves outside any container
 *     ({@link #RUNTIME_RESERVED_MB}), so it reads above the plugin's sum.</li>
 * </ul>
 * Both name a chip by its VDIE die id: the id the plugin registers (the ledger's card UUID), its
 * {@code device_uuid}, and npu-exporter's {@code vdie_id}.
 */
final class DemoAscend implements MetricsSource {
    /** Which of the Ascend node's exporters. */
    enum Exporter {
        HAMI_PLUGIN("hami-ascend-device-plugin"), NPU_EXPORTER("npu-exporter");

        /** The scrape job the demo's Prometheus gives it. */
        final String job;

        Exporter(String job) {
            this.job = job;
        }
    }

    /** HBM the Ascend runtime holds on each chip outside any container, MB. */
    static final long RUNTIME_RESERVED_MB = 3120;
    static final String PRODUCT = "910B3";

    private final DemoWorkload workload;
    private final String node;
    private final Exporter exporter;

    DemoAscend(DemoWorkload workload, String node, Exporter exporter) {
        this.workload = workload;
        this.node = node;
        this.exporter = exporter;
    }

    /** The demo's nodes of Ascend chips. */
    static List<String> nodes(DemoCluster cluster) {
        return cluster.registeringNodes().stream()
                .filter(node -> cluster.cards(node).stream().noneMatch(DemoCluster.Card::nvidia)).toList();
    }

    @Override
    public Optional<Object> stateStamp() {
        return Optional.empty();
    }

    @Override
    public Exposition collect() {
        return Exposition.of(snapshots(workload, node, exporter));
    }

    @Override
    public boolean ready() {
        return true;
    }

    @Override
    public String notReadyReason() {
        return "";
    }

    /** One container's share of one chip, and its use now. */
    private record Use(DemoCluster.Pod pod, DemoCluster.Container container, int index, long useMib, long limitMib) {
    }

    /** A chip now: its containers' uses and its AI Core utilisation. */
    private record Chip(DemoCluster.Card card, List<Use> uses, long aiCorePercent) {
        long usedMib() {
            return uses.stream().mapToLong(Use::useMib).sum();
        }
    }

    private static List<Chip> chips(DemoWorkload workload, String node) {
        List<Chip> chips = new ArrayList<>();
        for (DemoCluster.Card card : workload.cluster().cards(node)) {
            List<Use> uses = new ArrayList<>();
            long util = 0;
            for (DemoCluster.Pod pod : workload.cluster().pods(node)) {
                for (DemoCluster.Container container : pod.containers()) {
                    for (int s = 0; s < container.shares().size(); s++) {
                        if (container.shares().get(s).uuid().equals(card.registration().uuid())
                                && DemoWorkload.runs(pod, container)) {
                            uses.add(new Use(pod, container, s, workload.useMib(pod, container, s),
                                    container.shares().get(s).memoryMib()));
                            util += workload.aiCorePercent(pod, container, s);
                        }
                    }
                }
            }
            chips.add(new Chip(card, uses, Math.min(100, util)));
        }
        return chips;
    }

    /** The exporter's series now (the simulation is a function of the workload's clock). */
    static MetricSnapshots snapshots(DemoWorkload workload, String node, Exporter exporter) {
        Families out = new Families();
        for (Chip chip : chips(workload, node)) {
            String uuid = chip.card().registration().uuid();
            String index = Integer.toString(chip.card().registration().index());
            if (exporter == Exporter.HAMI_PLUGIN) {
                Labels device = Labels.of("device_index", index, "device_uuid", uuid, "device_type", "Ascend-" + PRODUCT);
                out.add("hami_host_gpu_memory_used_bytes", "GPU device memory usage in bytes", device,
                        Units.mibToBytes(chip.usedMib()));
                out.add("hami_host_gpu_utilization_ratio", "GPU core utilization ratio (0-100)", device,
                        chip.aiCorePercent());
                for (Use use : chip.uses()) {
                    Labels container = Labels.of("namespace", use.pod().ref().namespace(), "pod", use.pod().ref().name(),
                            "container", use.container().name(), "vdevice_index", Integer.toString(use.index()),
                            "device_uuid", uuid);
                    out.add("hami_vgpu_memory_used_bytes", "vGPU device memory usage in bytes", container,
                            Units.mibToBytes(use.useMib()));
                    out.add("hami_vgpu_memory_limit_bytes", "vGPU device memory limit in bytes", container,
                            Units.mibToBytes(use.limitMib()));
                    out.add("hami_container_device_utilization_ratio", "Container device SM utilization ratio",
                            container, chip.aiCorePercent());
                    out.add("hami_vgpu_memory_context_bytes", "Container device memory context size in bytes",
                            container, 0);
                    out.add("hami_vgpu_memory_module_bytes", "Container device memory module size in bytes",
                            container, 0);
                    out.add("hami_vgpu_memory_buffer_bytes", "Container device memory buffer size in bytes",
                            container, 0);
                }
            } else {
                Optional<Use> first = chip.uses().stream().findFirst();
                Labels labels = Labels.of("id", index, "model_name", "Ascend" + PRODUCT, "vdie_id", uuid,
                        "pcie_bus_info", String.format("0000:%02X:00.0", 0xC1 + 0x10 * chip.card().registration().index()),
                        "namespace", first.map(use -> use.pod().ref().namespace()).orElse(""),
                        "pod_name", first.map(use -> use.pod().ref().name()).orElse(""),
                        "container_name", first.map(use -> use.container().name()).orElse(""));
                long hbmUsed = chip.usedMib() + RUNTIME_RESERVED_MB;
                long hbmTotal = chip.card().registration().memoryMib();
                out.add("npu_chip_info_utilization", "the ai core utilization", labels, chip.aiCorePercent());
                out.add("npu_chip_info_hbm_used_memory", "the npu hbm used memory", labels, hbmUsed);
                out.add("npu_chip_info_hbm_total_memory", "the npu hbm total memory", labels, hbmTotal);
                out.add("npu_chip_info_temperature", "the npu temperature", labels,
                        41 + Math.round(chip.aiCorePercent() * 0.3));
                out.add("npu_chip_info_power", "the npu power", labels, 88 + chip.aiCorePercent() * 2.1);
                out.add("npu_chip_info_health_status", "the npu health status", labels, 1);
                for (Use use : chip.uses()) {
                    Labels container = Labels.of("id", index, "model_name", "Ascend" + PRODUCT, "vdie_id", uuid,
                            "namespace", use.pod().ref().namespace(), "pod_name", use.pod().ref().name(),
                            "container_name", use.container().name());
                    out.add("container_npu_utilization", "the npu ai core utilization in container", container,
                            chip.aiCorePercent());
                    out.add("container_npu_used_memory", "the npu used memory in container, unit is 'MB'", container,
                            hbmUsed);
                    out.add("container_npu_total_memory", "the npu total memory in container, unit is 'MB'",
                            container, hbmTotal);
                }
            }
        }
        return out.snapshots();
    }

    /** Gauge families in the order first added. */
    private static final class Families {
        private final Map<String, String> help = new LinkedHashMap<>();
        private final Map<String, List<GaugeSnapshot.GaugeDataPointSnapshot>> points = new LinkedHashMap<>();

        void add(String name, String text, Labels labels, double value) {
            help.putIfAbsent(name, text);
            points.computeIfAbsent(name, key -> new ArrayList<>())
                    .add(new GaugeSnapshot.GaugeDataPointSnapshot(value, labels, null));
        }

        MetricSnapshots snapshots() {
            List<MetricSnapshot> snapshots = new ArrayList<>();
            points.forEach((name, each) -> snapshots.add(new GaugeSnapshot(new MetricMetadata(name, help.get(name)),
                    each)));
            return new MetricSnapshots(snapshots);
        }
    }

    /**
     * Both exporters' series at {@code at}, with the labels a Prometheus scrape adds, for the
     * history file.
     *
     * @param instances each exporter's {@code host:port} for the node
     */
    static List<HistoryFile.Family> history(DemoWorkload workload, String node, Map<Exporter, String> instances) {
        List<HistoryFile.Family> families = new ArrayList<>();
        for (Exporter exporter : Exporter.values()) {
            Labels target = Labels.of("job", exporter.job, "instance",
                    instances.getOrDefault(exporter, exporter.job + "-" + node), "node", node);
            families.addAll(HistoryFile.labelled(snapshots(workload, node, exporter), target, name -> true));
        }
        return families;
    }
}
