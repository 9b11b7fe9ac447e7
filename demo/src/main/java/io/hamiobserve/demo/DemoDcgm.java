package io.hamiobserve.demo;

import io.hamiobserve.app.exposition.Exposition;
import io.hamiobserve.app.http.MetricsSource;
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
        DemoWorkload then = new DemoWorkload(workload.cluster(), Clock.fixed(at, ZoneOffset.UTC));
        Map<String, Family> families = new LinkedHashMap<>();
        for (Field field : Field.values()) {
            families.put(field.name, new Family(field, new ArrayList<>()));
        }
        List<HostCardReading> readings = then.hostCards(node);
        for (DemoCluster.Card card : workload.cluster().cards(node)) {
            HostCardReading reading = readings.stream().filter(r -> r.uuid().equals(card.registration().uuid()))
                    .findFirst().orElseThrow();
            for (Labels labels : labelSets(workload.cluster(), card, node, form)) {
                add(families, card, reading, labels, at);
            }
        }
        List<MetricSnapshot> snapshots = new ArrayList<>();
        families.values().stream().filter(family -> !family.points.isEmpty())
                .forEach(family -> snapshots.add(new GaugeSnapshot(new MetricMetadata(family.field.name,
                        family.field.help), family.points)));
        return new MetricSnapshots(snapshots);
    }

    private record Family(Field field, List<GaugeSnapshot.GaugeDataPointSnapshot> points) {
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

    private static void add(Map<String, Family> families, DemoCluster.Card card, HostCardReading reading,
                            Labels labels, Instant at) {
        Fields f = Fields.of(card, reading, at);
        put(families, Field.GPU_TEMP, labels, f.temperature());
        if (!Double.isNaN(f.memoryTemperature())) {
            // HBM temperature: V100's DCGM reports none (the field is blank), so it is left out here.
            put(families, Field.MEMORY_TEMP, labels, f.memoryTemperature());
        }
        put(families, Field.POWER_USAGE, labels, f.power());
        put(families, Field.TOTAL_ENERGY, labels, f.energyMj());
        put(families, Field.SM_CLOCK, labels, f.smClock());
        put(families, Field.MEM_CLOCK, labels, f.memClock());
        put(families, Field.XID_ERRORS, labels, f.xid());
        put(families, Field.CLOCKS_EVENT_REASONS, labels, f.events());
        put(families, Field.ECC_SBE_VOL_TOTAL, labels, 0);
        put(families, Field.ECC_DBE_VOL_TOTAL, labels, 0);
        if (f.mig()) {
            // Two GPU instances share the card's use; DCGM reports no GPU_UTIL in MIG mode.
            for (int instance = 1; instance <= 2; instance++) {
                Labels gi = labels.merge(Labels.of("GPU_I_ID", Integer.toString(instance), "GPU_I_PROFILE",
                        "3g.40gb"));
                double share = instance == 1 ? Math.ceil(f.usedMib() / 2) : Math.floor(f.usedMib() / 2);
                put(families, Field.FB_USED, gi, share);
                put(families, Field.FB_FREE, gi, f.totalMib() / 2 - share);
                put(families, Field.GR_ENGINE_ACTIVE, gi, f.util() / 100);
            }
        } else {
            put(families, Field.GPU_UTIL, labels, f.util());
            put(families, Field.MEM_COPY_UTIL, labels, f.memCopyUtil());
            put(families, Field.FB_USED, labels, f.usedMib());
            put(families, Field.FB_FREE, labels, f.totalMib() - f.usedMib());
            put(families, Field.GR_ENGINE_ACTIVE, labels, f.util() / 100);
        }
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

    private static void put(Map<String, Family> families, Field field, Labels labels, double value) {
        families.get(field.name).points.add(new GaugeSnapshot.GaugeDataPointSnapshot(value, labels, null));
    }
}
