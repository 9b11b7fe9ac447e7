package io.hamiobserve.demo;

import io.hamiobserve.role.scheduler.AllocationMetrics;
import io.hamiobserve.role.node.UsageMetrics;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.NodePod;
import io.hamiobserve.domain.UsageView;
import io.prometheus.metrics.model.snapshots.Labels;

import java.io.IOException;
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

    /** The label that tells the demo's clusters apart when it runs several ({@code --demo.clusters}). */
    public static final String CLUSTER_LABEL = "cluster";

    /** The series the console reads over time (trends, right-sizing, chargeback). */
    static final Set<String> HISTORY_FAMILIES = Set.of("hami_gpu_memory_limit_bytes", "hami_gpu_memory_allocated_bytes",
            "hami_gpu_core_limit_ratio", "hami_gpu_core_allocated_ratio", "hami_observe_gpu_core_allocated_percent",
            "hami_host_gpu_memory_used_bytes", "hami_host_gpu_utilization_ratio", "hami_observe_host_gpu_temperature_celsius",
            "hami_observe_host_gpu_power_watts", "hami_vgpu_memory_allocated_bytes", "hami_vgpu_core_allocated_ratio",
            "hami_observe_vgpu_container_memory_allocated_bytes", "hami_observe_vgpu_container_core_allocated_ratio",
            "hami_vgpu_memory_used_bytes", "hami_container_device_utilization_ratio",
            // The container behind HAMi's pod series where a pod has no per-container detail, and
            // each pod's controller, so a workload's window gathers its pods across a rollout.
            "hami_observe_container_info");

    private final DemoCluster cluster;
    /**
     * The value of the {@code cluster} label on every series written, as a Prometheus's external
     * labels put it on one cluster's series when several share the engine; empty for one cluster
     * (no label, as before).
     */
    private final String clusterName;
    private final Instant now;
    private final Instant start;
    /** The cluster's states over the history (which pods lived, in which phase), each held once. */
    private final Map<List<DemoCluster.Pod>, DemoCluster> eras = new java.util.concurrent.ConcurrentHashMap<>();
    /**
     * The same by the pods that run: use depends on them alone (a finished Job's pod has none), so
     * the days between the CronJob's runs share their phases of use.
     */
    private final Map<List<DemoCluster.Pod>, DemoCluster> running = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<State, AllocationView> ledgerStates = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<State, List<UsageView>> usageByPhase = new java.util.concurrent.ConcurrentHashMap<>();

    /** One state of the simulation: the cluster then (by identity) and the slot of its cycle. */
    private record State(DemoCluster era, long slot) {
    }

    /** @param now the demo's start: history covers the {@link #LENGTH} before it, and goes on live after */
    public DemoHistory(DemoCluster cluster, Instant now) {
        this(cluster, now, "");
    }

    /**
     * One of several clusters behind one Prometheus: its series carry {@code cluster="<name>"}
     * (node, pod and card names may equal another cluster's, as real clusters' often do).
     */
    public DemoHistory(DemoCluster cluster, Instant now, String clusterName) {
        this.cluster = cluster;
        this.clusterName = clusterName;
        this.now = now;
        this.start = now.minus(LENGTH);
    }

    /** The first instant with data. */
    public Instant start() {
        return start;
    }

    public DemoCluster cluster() {
        return cluster;
    }

    /** The cluster label's value on this history's series; empty for the one-cluster demo. */
    public String clusterName() {
        return clusterName;
    }

    /** The simulation at {@code at}, with the pods that lived then. */
    DemoWorkload workload(Instant at) {
        return new DemoWorkload(clusterAt(at), Clock.fixed(at, ZoneOffset.UTC));
    }

    /** The cluster at {@code at} (the present's from the demo's start on), the same object for the same state. */
    DemoCluster clusterAt(Instant at) {
        Duration ago = at.isBefore(now) ? Duration.between(at, now) : Duration.ZERO;
        DemoCluster then = cluster.at(ago);
        return eras.computeIfAbsent(then.pods(), pods -> then);
    }

    /**
     * What the scheduler's ledger held at {@code at} (the pending pod comes and goes by the minute,
     * so there are two states per state of the cluster, each computed once; its freshness is that
     * of the first instant asked).
     */
    AllocationView allocation(Instant at) {
        return ledgerStates.computeIfAbsent(new State(clusterAt(at), Math.floorMod(at.getEpochSecond() / 60, 2L)),
                state -> ledgerAt(at));
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
     * computed once per state of the cluster; ages (last kernel) are relative and repeat too.
     */
    List<UsageView> usage(Instant at) {
        long second = at.getEpochSecond();
        return usageByPhase.computeIfAbsent(phaseOf(at), phase -> usageAt(Instant.ofEpochSecond(second)));
    }

    /** The state of use at {@code at}: the pods that run then, and the phase of the simulation's cycle. */
    private State phaseOf(Instant at) {
        DemoCluster era = clusterAt(at);
        DemoCluster runs = running.computeIfAbsent(era.pods().stream()
                .filter(pod -> pod.phase() == io.hamiobserve.domain.PodPhase.RUNNING).toList(), pods -> era);
        return new State(runs, Math.floorMod(at.getEpochSecond(), DemoWorkload.REPEATS_AFTER_SECONDS));
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
     * and live scrapes are one series each. The instants are split into consecutive parts, one per
     * file, written at once (each file is a block of its own once loaded).
     *
     * @param schedulerInstance the allocation endpoint's {@code host:port}
     * @param nodeInstances     each node's usage endpoint {@code host:port}
     * @return the number of samples written
     */
    public long writeOpenMetrics(List<Path> files, Instant end, String schedulerInstance,
                                 Map<String, String> nodeInstances) throws IOException {
        return writeOpenMetrics(files, start, end, true, schedulerInstance, nodeInstances, Map.of(), Map.of());
    }

    /** As above, with each NVIDIA node's dcgm-exporter at the instance a scrape would name it by. */
    public long writeOpenMetrics(List<Path> files, Instant from, Instant end, boolean endsNow,
                                 String schedulerInstance, Map<String, String> nodeInstances) throws IOException {
        return writeOpenMetrics(files, from, end, endsNow, schedulerInstance, nodeInstances, Map.of(), Map.of());
    }

    /**
     * The part of the history from {@code from} (or its start) to before {@code end}, and at
     * {@code end} itself, with every series, when {@code endsNow}. Each NVIDIA node's simulated
     * dcgm-exporter ({@link DemoDcgm}) is written at every instant, all of its series: its
     * temperatures, throttling and energy counter change on their own clock, not the simulation's
     * three-minute one.
     *
     * The Ascend node's two exporters ({@link DemoAscend}: HAMi's Ascend plugin and npu-exporter)
     * are written at every instant too, all of their series.
     *
     * @param dcgmInstances each NVIDIA node's dcgm-exporter {@code host:port}; a node not in it is
     *                      written under {@code dcgm-exporter-<node>}
     * @param ascendInstances each Ascend node's exporters' {@code host:port}; one not in it is
     *                      written under {@code <job>-<node>}
     */
    public long writeOpenMetrics(List<Path> files, Instant from, Instant end, boolean endsNow,
                                 String schedulerInstance, Map<String, String> nodeInstances,
                                 Map<String, String> dcgmInstances,
                                 Map<String, Map<DemoAscend.Exporter, String>> ascendInstances) throws IOException {
        long step = STEP.toSeconds();
        long first = Math.ceilDiv(Math.max(start.getEpochSecond(), from.getEpochSecond()), step) * step;
        List<Instant> instants = new ArrayList<>();
        for (long t = first; t < end.getEpochSecond(); t += step) {
            instants.add(Instant.ofEpochSecond(t));
        }
        if (endsNow) {
            instants.add(end);
        }
        Labels scheduler = Labels.of("job", "hami-observe-scheduler", "instance", schedulerInstance);
        List<java.util.concurrent.Future<Long>> parts = new ArrayList<>();
        try (var executor = java.util.concurrent.Executors.newFixedThreadPool(files.size())) {
            for (int p = 0; p < files.size(); p++) {
                List<Instant> part = instants.subList(p * instants.size() / files.size(),
                        (p + 1) * instants.size() / files.size());
                Path file = files.get(p);
                boolean last = endsNow && p == files.size() - 1;
                parts.add(executor.submit(() -> writePart(file, part, last, scheduler, nodeInstances, dcgmInstances,
                        ascendInstances)));
            }
            long samples = 0;
            for (java.util.concurrent.Future<Long> part : parts) {
                samples += part.get();
            }
            return samples;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing the history", interrupted);
        } catch (java.util.concurrent.ExecutionException failed) {
            throw failed.getCause() instanceof IOException io ? io : new IOException(failed.getCause());
        }
    }

    /**
     * One part of the history. As the simulation repeats, each ledger state and each phase of use
     * is collected (and labelled) once, and only stamped with the time at each instant.
     */
    private long writePart(Path file, List<Instant> instants, boolean endsNow, Labels scheduler,
                           Map<String, String> nodeInstances, Map<String, String> dcgmInstances,
                           Map<String, Map<DemoAscend.Exporter, String>> ascendInstances) throws IOException {
        Map<AllocationView, List<HistoryFile.Family>> ledgers = new java.util.HashMap<>();
        Map<List<UsageView>, List<HistoryFile.Family>> phases = new java.util.IdentityHashMap<>();
        Map<State, List<HistoryFile.Family>> ascend = new java.util.HashMap<>();
        List<DemoDcgm.History> dcgm = DemoDcgm.nodes(cluster).stream().map(node -> new DemoDcgm.History(cluster, node,
                Labels.of("job", DemoPrometheus.DCGM_JOB, "instance",
                        dcgmInstances.getOrDefault(node, "dcgm-exporter-" + node)))).toList();
        try (HistoryFile out = new HistoryFile(file, clusterName.isEmpty() ? Labels.EMPTY
                : Labels.of(CLUSTER_LABEL, clusterName))) {
            for (int i = 0; i < instants.size(); i++) {
                Instant at = instants.get(i);
                List<HistoryFile.Family> families = new ArrayList<>();
                if (endsNow && i == instants.size() - 1) {
                    families.addAll(HistoryFile.labelled(AllocationMetrics.snapshots(ledgerAt(at)), scheduler,
                            name -> true));
                    families.addAll(usageFamilies(usage(at), at, nodeInstances, name -> true));
                } else {
                    families.addAll(ledgers.computeIfAbsent(allocation(at), view -> HistoryFile.labelled(
                            AllocationMetrics.snapshots(view), scheduler, HISTORY_FAMILIES::contains)));
                    families.addAll(phases.computeIfAbsent(usage(at),
                            views -> usageFamilies(views, at, nodeInstances, HISTORY_FAMILIES::contains)));
                }
                dcgm.forEach(exporter -> families.addAll(exporter.at(at)));
                // The Ascend exporters' figures repeat with the simulation's phase too: collected once each.
                families.addAll(ascend.computeIfAbsent(phaseOf(at), state -> {
                    DemoWorkload then = workload(at);
                    List<HistoryFile.Family> exporters = new ArrayList<>();
                    for (String node : DemoAscend.nodes(cluster)) {
                        exporters.addAll(DemoAscend.history(then, node, ascendInstances.getOrDefault(node, Map.of())));
                    }
                    return exporters;
                }));
                out.write(families, at);
            }
            return out.samples();
        }
    }

    private List<HistoryFile.Family> usageFamilies(List<UsageView> views, Instant at, Map<String, String> nodeInstances,
                                                   java.util.function.Predicate<String> keep) {
        DemoWorkload workload = workload(at);
        List<HistoryFile.Family> families = new ArrayList<>();
        for (UsageView view : views) {
            Labels node = Labels.of("job", "hami-observe-node", "instance",
                    nodeInstances.getOrDefault(view.node(), view.node()), "node", view.node());
            families.addAll(HistoryFile.labelled(UsageMetrics.collect(view, pods(workload, view.node())).snapshots(), node,
                    keep));
        }
        return families;
    }
}
