package io.hamiobserve.app.demo;

import io.hamiobserve.app.metrics.AllocationMetrics;
import io.hamiobserve.app.metrics.UsageMetrics;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.NodePod;
import io.hamiobserve.domain.UsageView;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The demo cluster's past: its state at any instant since {@link #start()} (the simulation is a
 * function of the clock), sampled every {@link #STEP}. Two uses: the console's history when no
 * Prometheus is around ({@link DemoFleetHistory}), and the file a real Prometheus is filled from
 * ({@link #writeOpenMetrics}), so right-sizing has days of data the moment the demo starts.
 */
public final class DemoHistory {
    /** How far back the demo's history goes. */
    public static final Duration LENGTH = Duration.ofDays(7);
    /**
     * The spacing of historical samples. Prime, so the samples do not alias the simulation's three-
     * and one-minute cycles: every phase of them is met over a day, peaks included.
     */
    public static final Duration STEP = Duration.ofSeconds(293);

    /** The series the console reads over time (trends, right-sizing, chargeback). */
    static final Set<String> HISTORY_FAMILIES = Set.of("hami_gpu_memory_limit_bytes", "hami_gpu_memory_allocated_bytes",
            "hami_gpu_core_limit_ratio", "hami_gpu_core_allocated_ratio", "hami_host_gpu_memory_used_bytes",
            "hami_host_gpu_utilization_ratio", "hami_observe_host_gpu_temperature_celsius",
            "hami_observe_host_gpu_power_watts", "hami_vgpu_memory_allocated_bytes", "hami_vgpu_core_allocated_ratio",
            "hami_vgpu_memory_used_bytes", "hami_container_device_utilization_ratio");

    private final DemoCluster cluster;
    private final Instant start;
    private final Map<Long, AllocationView> ledgerStates = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<Long, List<UsageView>> usageByPhase = new java.util.concurrent.ConcurrentHashMap<>();

    /** @param now the demo's start: history covers the {@link #LENGTH} before it, and goes on live after */
    public DemoHistory(DemoCluster cluster, Instant now) {
        this.cluster = cluster;
        this.start = now.minus(LENGTH);
    }

    /** The first instant with data. */
    public Instant start() {
        return start;
    }

    public DemoCluster cluster() {
        return cluster;
    }

    /** The simulation at {@code at}. */
    DemoWorkload workload(Instant at) {
        return new DemoWorkload(cluster, Clock.fixed(at, ZoneOffset.UTC));
    }

    /**
     * What the scheduler's ledger held at {@code at} (the pending pod comes and goes by the minute,
     * so there are two states, each computed once; its freshness is that of the first instant asked).
     */
    AllocationView allocation(Instant at) {
        return ledgerStates.computeIfAbsent(Math.floorMod(at.getEpochSecond() / 60, 2L), state -> ledgerAt(at));
    }

    /** The ledger at {@code at}, freshness included. */
    AllocationView ledgerAt(Instant at) {
        DemoWorkload workload = workload(at);
        Ledger ledger = new Ledger();
        DemoSources.load(workload, ledger);
        DemoSources.churn(workload, ledger);
        return ledger.view();
    }

    /**
     * Each node's usage view at {@code at} (to the second), with the demo's process attribution.
     * The simulation repeats every {@link DemoWorkload#REPEATS_AFTER_SECONDS}, so each phase is
     * computed once; ages (last kernel) are relative and repeat too.
     */
    List<UsageView> usage(Instant at) {
        long second = at.getEpochSecond();
        return usageByPhase.computeIfAbsent(Math.floorMod(second, DemoWorkload.REPEATS_AFTER_SECONDS),
                phase -> usageAt(Instant.ofEpochSecond(second)));
    }

    private List<UsageView> usageAt(Instant at) {
        DemoWorkload workload = workload(at);
        List<UsageView> views = new ArrayList<>();
        var owners = DemoSources.processOwners(workload);
        for (String node : cluster.nodes()) {
            List<io.hamiobserve.domain.HostCardReading> cards = workload.hostCards(node);
            List<Long> pids = cards.stream().flatMap(card -> card.processes().orElse(List.of()).stream())
                    .map(io.hamiobserve.domain.HostCardReading.CardProcess::pid).toList();
            Optional<Map<Long, io.hamiobserve.domain.ProcessOwner>> attributed;
            try {
                attributed = Optional.of(owners.owners(pids));
            } catch (io.hamiobserve.ports.SourceUnavailableException never) {
                // The demo's resolver is a fixed table; it has nothing to fail on.
                attributed = Optional.empty();
            }
            views.add(UsageView.compute(node, cards, workload.containerUsages(node), pods(workload, node), attributed,
                    at.getEpochSecond()));
        }
        return views;
    }

    static List<NodePod> pods(DemoWorkload workload, String node) {
        return DemoSources.pods(workload, node).pods();
    }

    /** Whether the simulation has data at {@code at}. */
    boolean covers(Instant at) {
        return !at.isBefore(start);
    }

    /**
     * Writes the history up to {@code end} as OpenMetrics with timestamps, for promtool's backfill:
     * every {@link #STEP}, the series the console reads over time ({@link #HISTORY_FAMILIES}), and at
     * the last instant every series, so the console has a present before the first live scrape.
     * The series are written by the same catalogues as the live endpoints, with the labels a
     * Prometheus scrape would add (job, instance, and the node of a node's endpoint), so history
     * and live scrapes are one series each.
     *
     * @param schedulerInstance the allocation endpoint's {@code host:port}
     * @param nodeInstances     each node's usage endpoint {@code host:port}
     * @return the number of samples written
     */
    public long writeOpenMetrics(Path file, Instant end, String schedulerInstance, Map<String, String> nodeInstances)
            throws IOException {
        OpenMetricsTextFormatWriter writer = OpenMetricsTextFormatWriter.create();
        long samples = 0;
        long first = Math.ceilDiv(start.getEpochSecond(), STEP.toSeconds()) * STEP.toSeconds();
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            List<Instant> instants = new ArrayList<>();
            for (long t = first; t < end.getEpochSecond(); t += STEP.toSeconds()) {
                instants.add(Instant.ofEpochSecond(t));
            }
            instants.add(end);
            // The same catalogues as the endpoints write the series; as the simulation repeats, each
            // ledger state and each phase of use is collected (and labelled) once, and only stamped
            // with the time at each instant.
            Labels scheduler = Labels.of("job", "hami-observe-scheduler", "instance", schedulerInstance);
            Map<AllocationView, List<Family>> ledgers = new java.util.HashMap<>();
            Map<List<UsageView>, List<Family>> phases = new java.util.IdentityHashMap<>();
            for (int i = 0; i < instants.size(); i++) {
                Instant at = instants.get(i);
                boolean everything = i == instants.size() - 1;
                List<Family> families = new ArrayList<>();
                if (everything) {
                    families.addAll(labelled(AllocationMetrics.snapshots(ledgerAt(at), false), scheduler, true));
                    families.addAll(usageFamilies(usage(at), at, nodeInstances, true));
                } else {
                    families.addAll(ledgers.computeIfAbsent(allocation(at),
                            view -> labelled(AllocationMetrics.snapshots(view, false), scheduler, false)));
                    families.addAll(phases.computeIfAbsent(usage(at),
                            views -> usageFamilies(views, at, nodeInstances, false)));
                }
                Map<String, GaugeSnapshot> snapshots = stamped(families, at);
                ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 * 1024);
                writer.write(buffer, new MetricSnapshots(new ArrayList<>(snapshots.values())));
                byte[] bytes = buffer.toByteArray();
                // The writer ends every exposition with "# EOF"; the file has one, at its very end.
                int length = endsWith(bytes, EOF) ? bytes.length - EOF.length : bytes.length;
                out.write(bytes, 0, length);
                for (GaugeSnapshot snapshot : snapshots.values()) {
                    samples += snapshot.getDataPoints().size();
                }
            }
            out.write(EOF);
        }
        return samples;
    }

    private static final byte[] EOF = "# EOF\n".getBytes(StandardCharsets.US_ASCII);

    private static boolean endsWith(byte[] bytes, byte[] suffix) {
        if (bytes.length < suffix.length) {
            return false;
        }
        for (int i = 0; i < suffix.length; i++) {
            if (bytes[bytes.length - suffix.length + i] != suffix[i]) {
                return false;
            }
        }
        return true;
    }

    /** A family's series with the scrape's labels added, ready to be stamped with an instant. */
    private record Family(io.prometheus.metrics.model.snapshots.MetricMetadata metadata, List<Labels> labels,
                          double[] values) {
    }

    private List<Family> usageFamilies(List<UsageView> views, Instant at, Map<String, String> nodeInstances,
                                       boolean everything) {
        DemoWorkload workload = workload(at);
        List<Family> families = new ArrayList<>();
        for (UsageView view : views) {
            Labels node = Labels.of("job", "hami-observe-node", "instance",
                    nodeInstances.getOrDefault(view.node(), view.node()), "node", view.node());
            families.addAll(labelled(UsageMetrics.collect(view, pods(workload, view.node()), false), node, everything));
        }
        return families;
    }

    /** The gauges of {@code view} (all, or the history families only) with the labels a scrape adds. */
    private static List<Family> labelled(MetricSnapshots view, Labels target, boolean everything) {
        List<Family> families = new ArrayList<>();
        for (MetricSnapshot snapshot : view) {
            if (!(snapshot instanceof GaugeSnapshot gauge)
                    || !(everything || HISTORY_FAMILIES.contains(snapshot.getMetadata().getPrometheusName()))) {
                continue;
            }
            List<Labels> labels = new ArrayList<>(gauge.getDataPoints().size());
            double[] values = new double[gauge.getDataPoints().size()];
            for (int p = 0; p < values.length; p++) {
                GaugeSnapshot.GaugeDataPointSnapshot point = gauge.getDataPoints().get(p);
                Labels merged = point.getLabels();
                for (int i = 0; i < target.size(); i++) {
                    if (!merged.contains(target.getName(i))) {
                        merged = merged.add(target.getName(i), target.getValue(i));
                    }
                }
                labels.add(merged);
                values[p] = point.getValue();
            }
            families.add(new Family(gauge.getMetadata(), labels, values));
        }
        return families;
    }

    /** The families as gauges stamped with {@code at}, one snapshot per name (two nodes write the same names). */
    private static Map<String, GaugeSnapshot> stamped(List<Family> families, Instant at) {
        Map<String, List<GaugeSnapshot.GaugeDataPointSnapshot>> points = new java.util.LinkedHashMap<>();
        Map<String, io.prometheus.metrics.model.snapshots.MetricMetadata> metadata = new java.util.HashMap<>();
        for (Family family : families) {
            String name = family.metadata().getPrometheusName();
            metadata.putIfAbsent(name, family.metadata());
            List<GaugeSnapshot.GaugeDataPointSnapshot> into = points.computeIfAbsent(name, key -> new ArrayList<>());
            for (int p = 0; p < family.values().length; p++) {
                into.add(new GaugeSnapshot.GaugeDataPointSnapshot(family.values()[p], family.labels().get(p), null,
                        at.toEpochMilli()));
            }
        }
        Map<String, GaugeSnapshot> snapshots = new java.util.LinkedHashMap<>();
        points.forEach((name, list) -> snapshots.put(name, new GaugeSnapshot(metadata.get(name), list)));
        return snapshots;
    }
}
