package io.hamiobserve.demo;

import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.edge.http.MetricsSource;
import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.ClockEvents;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.Physical;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A simulated NVIDIA dcgm-exporter for one NVIDIA node of the demo: the field names, labels and
 * units of dcgm-exporter's default counters ({@code etc/default-counters.csv}) plus its profiling
 * and ECC fields, derived from the same simulated driver readings the node role serves, so the two
 * sources agree. The demo serves {@link DemoCluster#NODE_A} in dcgm-exporter's default form and
 * {@link DemoCluster#NODE_B} in its Kubernetes-mapping form ({@code pod}, {@code namespace},
 * {@code container} on each card's series, once per pod holding a share of the card).
 *
 * <p>Two cards have something to show: card 0 of node A runs hot for {@link #HOT_MINUTES} minutes of
 * every hour, its clocks held by software and hardware thermal slowdown (at least 85 °C, the alert's
 * threshold); the V100 of node B has logged Xid 31 (a GPU memory page fault: an application's bad
 * access), which DCGM keeps as its last Xid. A MIG card reports no {@code DCGM_FI_DEV_GPU_UTIL}, only
 * each GPU instance's {@code DCGM_FI_PROF_GR_ENGINE_ACTIVE} and framebuffer, as DCGM does.
 *
 * <p>Every family is a gauge written by the project's exposition mechanism; dcgm-exporter declares
 * {@code DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION} a counter without a {@code _total} suffix, which
 * the library's counters always add, so it is a gauge here (PromQL reads both alike).
 */
final class DemoDcgm implements MetricsSource {
    /** How dcgm-exporter labels a card's series. */
    enum Form {
        /** {@code gpu}, {@code UUID}, {@code device}, {@code modelName}, {@code Hostname}, driver version. */
        DEFAULT,
        /** The same plus {@code pod}, {@code namespace}, {@code container}, once per pod using the card. */
        KUBERNETES
    }

    /** Minutes of each hour card 0 of node A runs hot and throttled. */
    static final int HOT_MINUTES = 15;
    static final String XID_CARD_MODEL = "Tesla V100-SXM2-32GB";
    static final int XID = 31;
    private static final String DRIVER = "550.127.05";
    /** When the simulated drivers loaded: the energy counters count from here. */
    private static final long BOOT_EPOCH_SECOND = 1_700_000_000L;

    private final DemoWorkload workload;
    private final String node;
    private final Form form;

    DemoDcgm(DemoWorkload workload, String node, Form form) {
        this.workload = workload;
        this.node = node;
        this.form = form;
    }

    /** The demo's NVIDIA nodes, each with a dcgm-exporter. */
    static List<String> nodes(DemoCluster cluster) {
        return cluster.nodes().stream().filter(node -> cluster.cards(node).stream().anyMatch(DemoCluster.Card::nvidia))
                .toList();
    }

    /** The form the demo serves a node in. */
    static Form formOf(String node) {
        return node.equals(DemoCluster.NODE_B) ? Form.KUBERNETES : Form.DEFAULT;
    }

    @Override
    public Optional<Object> stateStamp() {
        return Optional.empty();
    }

    @Override
    public Exposition collect() {
        return Exposition.of(snapshots(workload, node, form, workload.clock().instant()));
    }

    @Override
    public boolean ready() {
        return true;
    }

    @Override
    public String notReadyReason() {
        return "";
    }

    /** Whether card 0 of node A is in the hot part of its hour at {@code at}. */
    static boolean hot(Instant at) {
        return Math.floorMod(at.getEpochSecond(), 3600) < HOT_MINUTES * 60L;
    }

    /** The node's dcgm-exporter series at {@code at} (the simulation is a function of the clock). */
    static MetricSnapshots snapshots(DemoWorkload workload, String node, Form form, Instant at) {
        Layout layout = Layout.of(workload.cluster(), node, form);
        Map<String, Fields> fields = fieldsAt(workload.cluster(), node, at);
        List<MetricSnapshot> snapshots = new ArrayList<>();
        layout.byField.forEach((field, series) -> {
            List<GaugeSnapshot.GaugeDataPointSnapshot> points = new ArrayList<>(series.size());
            for (Series each : series) {
                points.add(new GaugeSnapshot.GaugeDataPointSnapshot(each.value(fields.get(each.uuid())), each.labels(),
                        null));
            }
            snapshots.add(new GaugeSnapshot(new MetricMetadata(field.name, field.help), points));
        });
        return new MetricSnapshots(snapshots);
    }

    /**
     * One series of a node's exposition: its field, its labels and the card (and MIG GPU instance,
     * 1 or 2; 0 for the whole card) it reads.
     */
    private record Series(Field field, Labels labels, String uuid, int instance) {
        double value(Fields f) {
            return switch (field) {
                case GPU_TEMP -> f.temperature();
                case MEMORY_TEMP -> f.memoryTemperature();
                case POWER_USAGE -> f.power();
                case TOTAL_ENERGY -> f.energyMj();
                case SM_CLOCK -> f.smClock();
                case MEM_CLOCK -> f.memClock();
                case GPU_UTIL -> f.util();
                case MEM_COPY_UTIL -> f.memCopyUtil();
                case FB_USED -> fbUsed(f);
                case FB_FREE -> instance == 0 ? f.totalMib() - f.usedMib() : f.totalMib() / 2 - fbUsed(f);
                case XID_ERRORS -> f.xid();
                case CLOCKS_EVENT_REASONS -> f.events();
                case ECC_SBE_VOL_TOTAL, ECC_DBE_VOL_TOTAL -> 0;
                case GR_ENGINE_ACTIVE -> f.util() / 100;
            };
        }

        /** The whole card's framebuffer, or a MIG instance's half of it. */
        private double fbUsed(Fields f) {
            return instance == 0 ? f.usedMib() : instance == 1 ? Math.ceil(f.usedMib() / 2) : Math.floor(f.usedMib() / 2);
        }
    }

    /**
     * A node's series, by field in exposition order: which cards report which field under which
     * labels is fixed by the cluster (its cards, their mode, the pods running on them), so it is
     * laid out once and only the values change with time.
     */
    record Layout(Map<Field, List<Series>> byField) {
        static Layout of(DemoCluster cluster, String node, Form form) {
            Map<Field, List<Series>> byField = new java.util.EnumMap<>(Field.class);
            for (DemoCluster.Card card : cluster.cards(node)) {
                String uuid = card.registration().uuid();
                boolean mig = card.registration().mode() == CardMode.MIG;
                for (Labels labels : labelSets(cluster, card, node, form)) {
                    for (Field field : Field.values()) {
                        if (field == Field.MEMORY_TEMP && card.driverName().contains("V100")) {
                            // HBM temperature: V100's DCGM reports none (the field is blank).
                            continue;
                        }
                        if (mig && (field == Field.GPU_UTIL || field == Field.MEM_COPY_UTIL)) {
                            // DCGM reports no GPU_UTIL in MIG mode.
                            continue;
                        }
                        List<Series> series = byField.computeIfAbsent(field, f -> new ArrayList<>());
                        if (mig && (field == Field.FB_USED || field == Field.FB_FREE
                                || field == Field.GR_ENGINE_ACTIVE)) {
                            // Two GPU instances share the card's use.
                            for (int instance = 1; instance <= 2; instance++) {
                                series.add(new Series(field, labels.merge(Labels.of("GPU_I_ID",
                                        Integer.toString(instance), "GPU_I_PROFILE", "3g.40gb")), uuid, instance));
                            }
                        } else {
                            series.add(new Series(field, labels, uuid, 0));
                        }
                    }
                }
            }
            return new Layout(byField);
        }
    }

    /**
     * A node's dcgm-exporter in a history file: the series laid out and labelled as a scrape labels
     * them ({@code target}) once, then only their values computed at each instant.
     */
    static final class History {
        private final DemoCluster cluster;
        private final String node;
        private final List<Map.Entry<MetricMetadata, List<Series>>> families = new ArrayList<>();
        private final List<List<Labels>> labels = new ArrayList<>();

        History(DemoCluster cluster, String node, Labels target) {
            this.cluster = cluster;
            this.node = node;
            Layout.of(cluster, node, formOf(node)).byField.forEach((field, series) -> {
                families.add(Map.entry(new MetricMetadata(field.name, field.help), series));
                List<Labels> scraped = new ArrayList<>(series.size());
                for (Series each : series) {
                    Labels merged = each.labels();
                    for (int i = 0; i < target.size(); i++) {
                        if (!merged.contains(target.getName(i))) {
                            merged = merged.add(target.getName(i), target.getValue(i));
                        }
                    }
                    scraped.add(merged);
                }
                labels.add(scraped);
            });
        }

        List<HistoryFile.Family> at(Instant at) {
            Map<String, Fields> fields = fieldsAt(cluster, node, at);
            List<HistoryFile.Family> out = new ArrayList<>(families.size());
            for (int f = 0; f < families.size(); f++) {
                List<Series> series = families.get(f).getValue();
                double[] values = new double[series.size()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = series.get(i).value(fields.get(series.get(i).uuid()));
                }
                out.add(new HistoryFile.Family(families.get(f).getKey(), labels.get(f), values));
            }
            return out;
        }
    }

    /** Each of the node's cards' fields at {@code at}, by UUID. */
    private static Map<String, Fields> fieldsAt(DemoCluster cluster, String node, Instant at) {
        List<HostCardReading> readings = new DemoWorkload(cluster, Clock.fixed(at, ZoneOffset.UTC)).hostCards(node);
        Map<String, Fields> fields = new java.util.HashMap<>();
        for (DemoCluster.Card card : cluster.cards(node)) {
            HostCardReading reading = readings.stream().filter(r -> r.uuid().equals(card.registration().uuid()))
                    .findFirst().orElseThrow();
            fields.put(card.registration().uuid(), Fields.of(card, reading, at));
        }
        return fields;
    }

    /** dcgm-exporter's fields served here, with its help texts. */
    enum Field {
        GPU_TEMP("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C)."),
        MEMORY_TEMP("DCGM_FI_DEV_MEMORY_TEMP", "Memory temperature (in C)."),
        POWER_USAGE("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W)."),
        TOTAL_ENERGY("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ)."),
        SM_CLOCK("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz)."),
        MEM_CLOCK("DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz)."),
        GPU_UTIL("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %)."),
        MEM_COPY_UTIL("DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %)."),
        FB_FREE("DCGM_FI_DEV_FB_FREE", "Frame buffer memory free (in MiB)."),
        FB_USED("DCGM_FI_DEV_FB_USED", "Frame buffer memory used (in MiB)."),
        XID_ERRORS("DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered."),
        CLOCKS_EVENT_REASONS("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "Current clock event reasons (bitmask)."),
        ECC_SBE_VOL_TOTAL("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "Total number of single-bit volatile ECC errors."),
        ECC_DBE_VOL_TOTAL("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "Total number of double-bit volatile ECC errors."),
        GR_ENGINE_ACTIVE("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active.");

        final String name;
        final String help;

        Field(String name, String help) {
            this.name = name;
            this.help = help;
        }
    }

    /** A card's label sets: one in the default form; one per pod using it in the Kubernetes form. */
    private static List<Labels> labelSets(DemoCluster cluster, DemoCluster.Card card, String node, Form form) {
        int index = card.registration().index();
        Labels base = Labels.of("gpu", Integer.toString(index), "UUID", card.registration().uuid(), "device",
                "nvidia" + index, "modelName", card.driverName(), "Hostname", node, "DCGM_FI_DRIVER_VERSION", DRIVER);
        if (form == Form.DEFAULT) {
            return List.of(base);
        }
        List<Labels> sets = new ArrayList<>();
        for (DemoCluster.Pod pod : cluster.pods(node)) {
            for (DemoCluster.Container container : pod.containers()) {
                boolean holds = container.shares().stream()
                        .anyMatch(share -> share.uuid().equals(card.registration().uuid()));
                if (holds && DemoWorkload.runs(pod, container)) {
                    sets.add(base.merge(Labels.of("pod", pod.ref().name(), "namespace", pod.ref().namespace(),
                            "container", container.name())));
                }
            }
        }
        // A card no pod uses is still reported, without pod labels.
        return sets.isEmpty() ? List.of(base) : sets;
    }

    /**
     * One card's DCGM fields at an instant, from the simulated driver's reading.
     *
     * @param memoryTemperature NaN where DCGM reports none (V100)
     */
    private record Fields(double temperature, double memoryTemperature, double power, double energyMj,
                          double smClock, double memClock, double util, double memCopyUtil, double usedMib,
                          double totalMib, long events, int xid, boolean mig) {
        static Fields of(DemoCluster.Card card, HostCardReading reading, Instant at) {
            boolean first = card.node().equals(DemoCluster.NODE_A) && card.registration().index() == 0;
            boolean hot = first && hot(at);
            double util = reading.gpuUtilPercent().orElse(0);
            double temperature = hot ? 87 + Math.floorMod(at.getEpochSecond() / 60, 3)
                    : reading.temperatureCelsius().orElse(40);
            long maxClock = card.driverName().contains("H100") ? 1980 : card.driverName().contains("V100") ? 1530 : 1410;
            long events = hot ? ClockEvents.SW_THERMAL_SLOWDOWN.bit() | ClockEvents.HW_THERMAL_SLOWDOWN.bit()
                    : util == 0 ? ClockEvents.GPU_IDLE.bit() : 0;
            return new Fields(temperature, card.driverName().contains("V100") ? Double.NaN : temperature + 6,
                    hot ? 395 : reading.powerWatts().orElse(60), DemoDcgm.energyMj(card, at),
                    hot ? Math.round(maxClock * 0.7) : util == 0 ? 210 : maxClock,
                    card.driverName().contains("H100") ? 2619 : 1215, util,
                    reading.memoryControllerUtilPercent().orElse(0),
                    Math.round(reading.memoryUsedBytes().orElse(0) / (1024.0 * 1024)), card.registration().memoryMib(),
                    events, card.driverName().equals(XID_CARD_MODEL) ? XID : 0,
                    card.registration().mode() == CardMode.MIG);
        }
    }

    /** The energy counter: the card's mean draw since the driver loaded, so it only grows. */
    private static double energyMj(DemoCluster.Card card, Instant at) {
        double meanWatts = card.driverName().contains("H100") ? 310 : card.driverName().contains("V100") ? 160 : 230;
        return (at.getEpochSecond() - BOOT_EPOCH_SECOND) * meanWatts * 1000;
    }

    /**
     * Each NVIDIA card's counters at {@code at} as a Prometheus would give them to the console: for
     * the demo's console when it reads the simulation itself (no Prometheus).
     */
    static List<Physical> physical(DemoCluster cluster, Instant at) {
        DemoWorkload then = new DemoWorkload(cluster, Clock.fixed(at, ZoneOffset.UTC));
        List<Physical> physical = new ArrayList<>();
        for (String node : nodes(cluster)) {
            List<HostCardReading> readings = then.hostCards(node);
            for (DemoCluster.Card card : cluster.cards(node)) {
                HostCardReading reading = readings.stream().filter(r -> r.uuid().equals(card.registration().uuid()))
                        .findFirst().orElseThrow();
                Fields f = Fields.of(card, reading, at);
                double hourAgo = energyMj(card, at.minus(Physical.ENERGY_WINDOW));
                double hostUsed = reading.memoryUsedBytes().orElse(0);
                physical.add(new Physical(card.registration().uuid(), node, Figure.of(f.temperature()),
                        Double.isNaN(f.memoryTemperature()) ? Figure.missing(Absence.NOT_SUPPORTED)
                                : Figure.of(f.memoryTemperature()), Figure.of(f.power()),
                        Figure.of((f.energyMj() - hourAgo) / 1000), Figure.of(f.smClock()),
                        Figure.of(f.util()), f.mig() ? "DCGM_FI_PROF_GR_ENGINE_ACTIVE" : "DCGM_FI_DEV_GPU_UTIL",
                        Figure.of(f.usedMib() * 1024 * 1024), Figure.of(f.xid()), Figure.of(f.events()),
                        Figure.of(0), Figure.of(Math.abs(hostUsed - f.usedMib() * 1024 * 1024))));
            }
        }
        return physical;
    }
}
