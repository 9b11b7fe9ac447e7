package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Provenance;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.Stuck;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small fleet held in memory, for the console's own tests: one node with the brief's pod, and a
 * namespace, card model and pod whose names carry HTML and quotes (labels are attacker-controlled
 * text). The real sources are tested against a real Prometheus in their adapter and end to end.
 */
final class FixedHistory implements FleetHistory {
    static final double MIB = 1024 * 1024;
    static final double GIB = 1024 * MIB;
    static final String HOSTILE_TYPE = "<img src=x onerror=alert(1)>";
    static final String HOSTILE_NAMESPACE = "<script>alert('ns')</script>";
    static final String HOSTILE_POD = "pod\"><svg onload=alert(2)>";
    static final Provenance QUERY = new Provenance("q\"<b>", "up{job=\"<script>\"}");

    final AtomicInteger calls = new AtomicInteger();
    /** Reads of the summaries over a window: usage and card-hours. */
    final AtomicInteger summaryCalls = new AtomicInteger();
    /** The window of each read of the summaries, in order: "use 7d", "hours 30d" (Format.duration). */
    final List<String> summaryWindows = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The first instant the trends have samples at: the middle of the tests' day chart. */
    static final Instant TRENDS_FROM = Instant.parse("2026-11-30T00:00:00Z");
    /** The steps each trend read asked for, in order. */
    final List<Integer> trendSteps = new java.util.concurrent.CopyOnWriteArrayList<>();
    final List<FleetScope> scopes = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile String failure;
    /** When set, no exporter has reported its sources (a Prometheus that has scraped none yet). */
    volatile boolean noSourcesReported;
    /** Changes the readings before they are answered (a test's own fleet: missing figures, a card gone). */
    /** Whether the history names owners: the brief's pod then belongs to a Deployment with a rolled-out pod. */
    volatile boolean owned;
    volatile java.util.function.UnaryOperator<FleetReadings> alter = java.util.function.UnaryOperator.identity();
    /** When set, every read waits for it to open (a slow Prometheus). */
    volatile java.util.concurrent.CountDownLatch gate;
    /**
     * The cluster the summaries over a window name on each share and card (as an engine's answers
     * grouped by the cluster label do); empty, as a source that tells no clusters apart.
     */
    volatile String summariesCluster = "";
    /** When set, the summaries over a window wait for it to open too (an engine slow at reading weeks). */
    volatile java.util.concurrent.CountDownLatch summaryGate;

    private static Map<Measure, Provenance> provenance() {
        Map<Measure, Provenance> all = new EnumMap<>(Measure.class);
        for (Measure measure : Measure.values()) {
            all.put(measure, QUERY);
        }
        return all;
    }

    private void check() throws SourceUnavailableException {
        calls.incrementAndGet();
        pass(gate);
        if (failure != null) {
            throw new SourceUnavailableException(failure);
        }
    }

    /** Waits for {@code gate} to open, where there is one. */
    private static void pass(java.util.concurrent.CountDownLatch gate) throws SourceUnavailableException {
        if (gate != null) {
            try {
                gate.await();
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
                throw new SourceUnavailableException("interrupted");
            }
        }
    }

    @Override
    public FleetReadings readings(Instant at, FleetScope scope) throws SourceUnavailableException {
        check();
        scopes.add(scope);
        Figure one = Figure.of(1);
        List<FleetReadings.Registered> cards = List.of(
                new FleetReadings.Registered("node-a", "GPU-A0", 0, "NVIDIA A100", "hami-core", one,
                        Figure.of(40 * GIB), Figure.of(12 * GIB), Figure.of(100), Figure.of(50), Figure.of(2),
                        Figure.of(10)),
                new FleetReadings.Registered("node-a", "GPU-A1", 1, HOSTILE_TYPE, "hami-core", one,
                        Figure.of(40 * GIB), Figure.of(20 * GIB), Figure.of(100), Figure.of(40), Figure.of(1),
                        Figure.of(10)));
        List<FleetReadings.Host> hosts = List.of(
                new FleetReadings.Host("node-a", "GPU-A0", Figure.of(5.5 * GIB), Figure.of(30), Figure.of(48),
                        Figure.of(150), Figure.of(0)),
                new FleetReadings.Host("node-a", "GPU-A1", Figure.of(1 * GIB), Figure.of(0),
                        Figure.missing(Absence.NOT_SUPPORTED), Figure.missing(Absence.NOT_SUPPORTED), Figure.of(0)));
        List<FleetReadings.Allocation> allocations = List.of(
                new FleetReadings.Allocation("ml-team", "llm-inference", 0, "node-a", "GPU-A0", Figure.of(8192 * MIB),
                        Figure.of(30)),
                new FleetReadings.Allocation("ml-team", "notebook", 0, "node-a", "GPU-A0", Figure.of(4096 * MIB),
                        Figure.of(20)),
                new FleetReadings.Allocation(HOSTILE_NAMESPACE, HOSTILE_POD, 0, "node-a", "GPU-A1",
                        Figure.of(20 * GIB), Figure.of(40)));
        List<FleetReadings.ContainerName> names = List.of(
                new FleetReadings.ContainerName("ml-team", "llm-inference", 0, "server", false),
                new FleetReadings.ContainerName("ml-team", "notebook", 0, "jupyter", false),
                new FleetReadings.ContainerName(HOSTILE_NAMESPACE, HOSTILE_POD, 0, "main", false));
        List<FleetReadings.Use> uses = List.of(
                new FleetReadings.Use("ml-team", "llm-inference", "server", "node-a", "GPU-A0", Figure.of(2100 * MIB),
                        Figure.of(22), Figure.of(3)),
                new FleetReadings.Use("ml-team", "notebook", "jupyter", "node-a", "GPU-A0", Figure.of(3000 * MIB),
                        Figure.of(5), Figure.of(40)));
        List<FleetReadings.SourceStatus> sources = noSourcesReported ? List.of() : List.of(
                new FleetReadings.SourceStatus("a:9394", "node-a", "nvml", true),
                new FleetReadings.SourceStatus("a:9394", "node-a", "cachefile", true));
        List<FleetReadings.Quota> quotas = List.of(new FleetReadings.Quota("ml-team", "nvidia.com/gpumem",
                Figure.of(12288), Figure.of(40960)));
        return alter.apply(new FleetReadings(at, cards, hosts, allocations, names, uses, List.of(), quotas, sources,
                List.of(new FleetReadings.LedgerAge("sched:9395", 4)), List.of(), List.of(), Map.of(), provenance()));
    }

    @Override
    public UsageHistory usage(Instant at, Duration window, Duration settledAfter, FleetScope scope)
            throws SourceUnavailableException {
        check();
        summaryCalls.incrementAndGet();
        summaryWindows.add("use " + Format.duration(window));
        pass(summaryGate);
        if (owned) {
            // The brief's pod as the second pod of a Deployment rolled out mid-window.
            io.hamiobserve.domain.fleet.WorkloadGroup llm = new io.hamiobserve.domain.fleet.WorkloadGroup("",
                    "ml-team", "Deployment", "llm", "server");
            return new UsageHistory(at, window, settledAfter, List.of(
                    new UsageHistory.ShareHistory("ml-team", "llm-old", "server", "GPU-A1", Figure.of(2100 * MIB),
                            Figure.of(25), 2000, 2000, Figure.of(0), llm, Figure.of(1900 * MIB), Figure.of(12), 168),
                    new UsageHistory.ShareHistory("ml-team", "llm-inference", "server", "GPU-A0",
                            Figure.of(2226 * MIB), Figure.of(27.4), 2000, 1800, Figure.of(25), llm,
                            Figure.of(2000 * MIB), Figure.of(14), 168)),
                    java.util.Map.of(llm, 336L), provenance());
        }
        String cluster = summariesCluster;
        Absence none = Absence.NOT_REPORTED;
        return new UsageHistory(at, window, settledAfter, List.of(
                new UsageHistory.ShareHistory("ml-team", "llm-inference", "server", "GPU-A0", Figure.of(2226 * MIB),
                        Figure.of(27.4), 2000, 1800, Figure.of(25), io.hamiobserve.domain.fleet.WorkloadGroup.barePod(
                        cluster, "ml-team", "llm-inference", "server"), Figure.missing(none), Figure.missing(none), -1),
                new UsageHistory.ShareHistory("ml-team", "notebook", "jupyter", "GPU-A0", Figure.of(3180 * MIB),
                        Figure.of(8), 50, 10, Figure.of(5), io.hamiobserve.domain.fleet.WorkloadGroup.barePod(
                        cluster, "ml-team", "notebook", "jupyter"), Figure.missing(none), Figure.missing(none), -1)),
                provenance());
    }

    /**
     * A ghost held past its deletion for two hours (half a card: one card-hour), one never started
     * with a hostile pod name, a process of no known pod on the brief's card, a notebook idle for
     * two days, and pods waiting for memory (one namespace hostile).
     */
    @Override
    public Stuck stuck(Instant at, Duration idleAfter) throws SourceUnavailableException {
        check();
        double now = at.getEpochSecond();
        return new Stuck(at, idleAfter, List.of(
                new Stuck.GhostShare("ml-team", "train-old", "node-a", "GPU-A1", "deleting", now - 7200,
                        java.util.OptionalDouble.of(0.5)),
                new Stuck.GhostShare(HOSTILE_NAMESPACE, HOSTILE_POD, "node-a", "GPU-A1", "never_started",
                        now - 1800, java.util.OptionalDouble.empty())),
                List.of(new Stuck.Zombie("node-a", "GPU-A1", "", "", "", 4 * GIB, java.util.OptionalDouble.of(now - 3600),
                        java.util.OptionalDouble.of(40 * GIB))),
                List.of(new Stuck.Idle("ml-team", "notebook", "lab", "node-a", "GPU-A1", 2 * 86400)),
                List.of(new Stuck.PendingGroup("ml-team", "insufficient_memory", 3, 5400),
                        new Stuck.PendingGroup(HOSTILE_NAMESPACE, "quota", 1, 60)), provenance());
    }

    /** Two cards for the whole window, one a quarter unhealthy; ml-team holds half of the first and uses half of that. */
    @Override
    public io.hamiobserve.domain.fleet.CardHours cardHours(Instant from, Instant to) throws SourceUnavailableException {
        check();
        summaryCalls.incrementAndGet();
        summaryWindows.add("hours " + Format.duration(Duration.between(from, to)));
        pass(summaryGate);
        double seconds = Duration.between(from, to).toSeconds();
        String cluster = summariesCluster;
        return new io.hamiobserve.domain.fleet.CardHours(from, to, List.of(
                new io.hamiobserve.domain.fleet.CardAccrual(cluster, "node-a", "GPU-A0", "NVIDIA A100-SXM4-80GB", seconds, 0),
                new io.hamiobserve.domain.fleet.CardAccrual(cluster, "node-a", "GPU-A1", "NVIDIA A100-SXM4-80GB", seconds,
                        seconds / 4)), List.of(
                new io.hamiobserve.domain.fleet.ShareAccrual(cluster, "ml-team", "Deployment", "llm-inference",
                        "llm-inference-7d9f", "server", "node-a", "GPU-A0", seconds / 2, seconds / 4,
                        12 * GIB * seconds, 50 * seconds, true),
                new io.hamiobserve.domain.fleet.ShareAccrual(cluster, HOSTILE_NAMESPACE, "Pod", "x", "x", "main", "node-a",
                        "GPU-A1", seconds / 4, 0, 20 * GIB * seconds, 40 * seconds, false)), provenance());
    }

    @Override
    public TrendSet trends(TrendScope scope, Instant end, Duration range, Duration step)
            throws SourceUnavailableException {
        check();
        TrendSet.Grid grid = TrendSet.Grid.of(end, range, step);
        trendSteps.add(grid.steps());
        List<Trend> trends = new ArrayList<>();
        for (Measure measure : List.of(Measure.TREND_MEMORY_TOTAL, Measure.TREND_MEMORY_ALLOCATED,
                Measure.TREND_MEMORY_USED, Measure.TREND_CORES_ALLOCATED, Measure.TREND_UTILISATION)) {
            List<double[]> samples = new ArrayList<>();
            // Nothing before TRENDS_FROM (the first half of the tests' day): it must be drawn as a
            // gap. Each value is a function of its instant alone, as a range query's step is.
            for (int i = 0; i < grid.steps(); i++) {
                if (grid.at(i) >= TRENDS_FROM.getEpochSecond()) {
                    samples.add(new double[] {grid.at(i), measure.ordinal() * 1e9 + grid.at(i) % 100_003});
                }
            }
            trends.add(Trend.aligned(measure, "", QUERY, grid.first(), grid.step(), grid.steps(), samples));
        }
        return new TrendSet(scope, grid.first(), grid.step(), grid.steps(), trends);
    }

    @Override
    public String description() {
        return "a fixed test fleet <i>";
    }

    /** The clusters this fleet tells apart and each one's own fleet (the same map in each of them). */
    volatile Map<String, FixedHistory> clustered = Map.of();

    @Override
    public List<String> clusters() {
        return List.copyOf(new java.util.TreeSet<>(clustered.keySet()));
    }

    @Override
    public FleetHistory inCluster(String cluster) {
        FixedHistory one = clustered.get(cluster);
        if (one == null) {
            throw new IllegalArgumentException("no cluster " + cluster);
        }
        return one;
    }
}
