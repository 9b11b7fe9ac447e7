package io.hamiobserve.demo.bench;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;
import io.hamiobserve.adapters.prometheus.PrometheusFleetHistory;
import io.hamiobserve.role.console.ConsoleRole;
import io.hamiobserve.edge.Servers;
import io.hamiobserve.demo.DemoCluster;
import io.hamiobserve.demo.DemoHistory;
import io.hamiobserve.demo.HistoryFile;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.role.scheduler.AllocationMetrics;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.role.node.UsageMetrics;
import io.hamiobserve.console.Console;
import io.hamiobserve.console.ConsoleSettings;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.NodePod;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.QuotaLimit;
import io.hamiobserve.domain.QuotaResource;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.UsageView;
import io.hamiobserve.ports.FleetHistory;
import io.prometheus.metrics.model.snapshots.Labels;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * Every console page over a real Prometheus at two sizes, timed over HTTP as a browser asks
 * (the HTML; its static files are cached): the demo's cluster with its seven days of history, and
 * a large fleet — 125 nodes × 8 cards (1,000 cards), 10,000 containers — with seven days of
 * history at one sample an hour (169 samples per series, aligned to whole hours so the console's
 * hourly integration steps meet them). The large history is written by the exporters' own
 * catalogues, a day per file, and loaded with promtool. The console is timed as deployed: from its
 * start to ready (its first background read of the fleet-wide figures), each page's first visit
 * after that, then the median of more visits; {@code attach-cold} also times a console that keeps
 * nothing (each request sends all of its page's queries), and {@code queries} times each query of
 * the fleet-wide reads alone.
 *
 * <p>Run: {@code bin/bench demo io.hamiobserve.demo.bench.ConsoleBenchmark [demo|large|both] [requests]},
 * {@code showback [days] [requests] [minutes]} (the large fleet over a month unless told: held for
 * the minutes given, then the showback report by every grouping, then the pages with their 30-day
 * windows),
 * {@code hold [requests] [minutes]} (keeps the large fleet's Prometheus up), {@code hold-dense [hours] [step s]
 * [minutes]} (the large fleet's last hours at a scrape's interval, its rules evaluated, held), then
 * {@code attach|attach-cold URL END [requests]}, {@code attach-pages URL END REQUESTS PAGE...},
 * {@code queries URL END [showback days]},
 * {@code expressions URL END FILE [rounds]} (each line of FILE, a name, a tab and an expression, sent
 * alone: what a rule or a rewrite of one costs the engine) or
 * {@code showback-attach URL END [days]} (the showback reports alone) against it.
 */
public final class ConsoleBenchmark {
    private static final List<String> DEMO_PAGES = List.of("/", "/nodes", "/node?name=gpu-node-a", "/cards",
            "/card?uuid=GPU-002cd5f0-0000-4000-a000-000016f179d0", "/workloads",
            "/workload?namespace=ml-team&pod=llm-inference-7d9f8c6b5-x2k4q&container=server", "/namespaces", "/rightsizing",
            "/capacity", "/stuck", "/showback");
    private static final int NODES = 125;
    private static final List<String> LARGE_PAGES = List.of("/", "/nodes", "/node?name=" + Fleet.node(7), "/cards",
            "/card?uuid=" + Fleet.uuid(7, 3), "/workloads",
            "/workload?namespace=" + Fleet.namespace(42) + "&pod=" + Fleet.pod(42) + "&container=main",
            "/namespaces", "/rightsizing", "/capacity", "/stuck", "/showback");
    private static final int CARDS_PER_NODE = 8;
    private static final int CONTAINERS = 10_000;
    private static final Set<String> HISTORY = Set.of("hami_gpu_memory_limit_bytes", "hami_gpu_memory_allocated_bytes",
            "hami_gpu_core_limit_ratio", "hami_gpu_core_allocated_ratio", "hami_observe_gpu_core_allocated_percent",
            "hami_host_gpu_memory_used_bytes", "hami_host_gpu_utilization_ratio", "hami_vgpu_memory_allocated_bytes", "hami_vgpu_core_allocated_ratio",
            "hami_vgpu_memory_used_bytes", "hami_container_device_utilization_ratio",
            // Each container's name and its pod's owner: the workload grouping and showback join on
            // them every hour of the window.
            "hami_observe_container_info",
            // Each share's memory and cores (the detail where a pod has it, else HAMi's series above)
            // and each card's health: showback integrates them every hour of the window (without
            // them its shares had no history before the last hour).
            "hami_observe_vgpu_container_memory_allocated_bytes", "hami_observe_vgpu_container_core_allocated_ratio",
            "hami_observe_gpu_healthy");

    private ConsoleBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        String which = args.length > 0 ? args[0] : "both";
        if (which.equals("attach-windows")) {
            // A Prometheus held by "hold": every page at its defaults, then every window and range;
            consoleOptions(args, 4);
            List<String> pages = new ArrayList<>(LARGE_PAGES);
            pages.addAll(everyOtherWindowAndRange());
            pages("large, attached at " + args[1] + ", every window and range", URI.create(args[1]),
                    Instant.ofEpochSecond(Long.parseLong(args[2])), pages, args.length > 3 ? Integer.parseInt(args[3]) : 3);
            return;
        }
        if (which.equals("attach-pages")) {
            // attach-pages URL END REQUESTS PAGE...: the pages named alone, each visited REQUESTS
            // times after its first visit (a page's own work, its reads kept, told apart by many visits).
            pages("large, attached at " + args[1] + ", the pages named", URI.create(args[1]),
                    Instant.ofEpochSecond(Long.parseLong(args[2])), List.of(args).subList(4, args.length),
                    Integer.parseInt(args[3]));
            return;
        }
        if (which.equals("attach") || which.equals("attach-cold")) {
            // A Prometheus already holding the large fleet (from "hold"): time the pages again.
            COLD = which.equals("attach-cold");
            attach(URI.create(args[1]), Instant.ofEpochSecond(Long.parseLong(args[2])),
                    args.length > 3 ? Integer.parseInt(args[3]) : 5);
            return;
        }
        if (which.equals("queries")) {
            // queries URL END [card-hours days] [use days]: each query behind the fleet-wide pages
            // (the card-hours over a week and the use over 14 days unless told), sent alone and
            // timed: which ones dominate.
            queries(URI.create(args[1]), Instant.ofEpochSecond(Long.parseLong(args[2])),
                    Duration.ofDays(args.length > 3 ? Long.parseLong(args[3]) : 7),
                    args.length > 4 ? Duration.ofDays(Long.parseLong(args[4]))
                            : io.hamiobserve.domain.fleet.RightSizing.DEFAULT_WINDOW);
            return;
        }
        if (which.equals("expressions")) {
            // expressions URL END FILE [rounds]: each expression of FILE (name, a tab, PromQL) alone.
            expressions(URI.create(args[1]), Instant.ofEpochSecond(Long.parseLong(args[2])), Path.of(args[3]),
                    args.length > 4 ? Integer.parseInt(args[4]) : 3);
            return;
        }
        if (which.equals("refresh-cost")) {
            // What each read of the console's background refresh costs Prometheus, alone and together.
            refreshCost(URI.create(args[1]), Instant.ofEpochSecond(Long.parseLong(args[2])),
                    args.length > 3 ? Integer.parseInt(args[3]) : 3);
            return;
        }
        if (which.equals("refresh-steady")) {
            // The console as deployed, its clock moving on from END: Prometheus's CPU per refresh.
            refreshSteady(URI.create(args[1]), Instant.ofEpochSecond(Long.parseLong(args[2])),
                    Duration.ofSeconds(args.length > 3 ? Long.parseLong(args[3]) : 60),
                    Duration.ofMinutes(args.length > 4 ? Long.parseLong(args[4]) : 10));
            return;
        }
        if (which.equals("clusters-vm")) {
            // clusters-vm [clusters] [days] [requests] [minutes] [options]: that many copies of the
            // large fleet, each its own cluster with cards of its own, in one VictoriaMetrics; every
            // page timed (options as attach-windows's).
            consoleOptions(args, 5);
            clustersInVictoriaMetrics(args.length > 1 ? Integer.parseInt(args[1]) : 3,
                    args.length > 2 ? Integer.parseInt(args[2]) : 14, args.length > 3 ? Integer.parseInt(args[3]) : 3,
                    Duration.ofMinutes(args.length > 4 ? Long.parseLong(args[4]) : 0));
            return;
        }
        if (which.equals("showback-attach")) {
            // The showback report by every grouping again, against a Prometheus held by "showback".
            showbackReports(URI.create(args[1]), Instant.ofEpochSecond(Long.parseLong(args[2])),
                    Duration.ofDays(args.length > 3 ? Long.parseLong(args[3]) : 30));
            return;
        }
        if (which.equals("showback")) {
            // showback [days] [requests]: the large fleet over a month (unless told), the monthly
            // showback report by every grouping, then the pages with their 30-day windows.
            int days = args.length > 1 ? Integer.parseInt(args[1]) : 30;
            large(days, args.length > 2 ? Integer.parseInt(args[2]) : 3,
                    Duration.ofMinutes(args.length > 3 ? Long.parseLong(args[3]) : 0), true);
            return;
        }
        if (which.equals("hold-dense")) {
            // hold-dense [hours] [step s] [minutes]: the large fleet's last hours at a scrape's
            // interval, the console's rules evaluated over them, held for attach, refresh-cost,
            // queries: what each read costs where every series has a sample every step.
            denseHold(args.length > 1 ? Integer.parseInt(args[1]) : 2, args.length > 2 ? Integer.parseInt(args[2]) : 60,
                    Duration.ofMinutes(args.length > 3 ? Long.parseLong(args[3]) : 60));
            return;
        }
        int requests = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        if (!which.equals("large") && !which.equals("hold")) {
            demo(requests);
        }
        if (!which.equals("demo")) {
            // hold [requests] [minutes]: keep the large fleet's Prometheus up (an hour unless told).
            large(7, requests, which.equals("hold") ? Duration.ofMinutes(args.length > 2 ? Long.parseLong(args[2]) : 60)
                    : Duration.ZERO, false);
        }
    }

    private static void demo(int requests) throws Exception {
        Instant now = Instant.now().minusSeconds(60);
        DemoHistory history = new DemoHistory(DemoCluster.standard(), now);
        List<Path> files = List.of(Files.createTempFile("bench-demo", ".om"), Files.createTempFile("bench-demo", ".om"));
        long started = System.nanoTime();
        long samples = history.writeOpenMetrics(files, now, "127.0.0.1:1", Map.of(DemoCluster.NODE_A, "127.0.0.1:2",
                DemoCluster.NODE_B, "127.0.0.1:3"));
        System.out.printf("demo: %,d samples (%d days) written in %.1f s%n", samples, DemoHistory.LENGTH.toDays(),
                seconds(started));
        try (LocalPrometheus prometheus = load(files)) {
            pages("demo (7 cards, 14 containers, 7 days at 293 s)", prometheus.url(), now, DEMO_PAGES, requests);
        }
    }

    private static void large(int days, int requests, Duration hold, boolean showback) throws Exception {
        long end = Math.floorDiv(Instant.now().getEpochSecond(), 3600) * 3600 - 3600;
        List<Path> files = new ArrayList<>();
        long started = System.nanoTime();
        long samples = history(new Fleet(0), days, end, Labels.EMPTY, "large", files::add);
        System.out.printf("large: %,d samples over %d days, %,d MB of OpenMetrics, written in %.1f s%n", samples, days,
                files.stream().mapToLong(ConsoleBenchmark::size).sum() / 1_000_000, seconds(started));
        if (showback) {
            // The console's records over the month, as a Prometheus running all month would hold
            // them: promtool's backfill of the rules over 30 days × 10,000 shares takes hours here
            // (about 4 s per two-hour block per share rule), so each rule is evaluated once, by
            // Prometheus, over the last day, and that hour's answer is stamped at every hour.
            files.add(recordsOverTheWindow(files.getLast(), end, days));
        }
        try (LocalPrometheus prometheus = load(files, !showback)) {
            if (hold.isPositive()) {
                System.out.printf("holding Prometheus at %s for %d min; the fleet's end is %d%n", prometheus.url(),
                        hold.toMinutes(), end);
                Thread.sleep(hold);
            }
            if (showback) {
                showbackReports(prometheus.url(), Instant.ofEpochSecond(end), Duration.ofDays(days));
            }
            List<String> pages = new ArrayList<>(LARGE_PAGES);
            if (showback) {
                pages.addAll(List.of("/showback?window=30d", "/namespaces?window=30d", "/showback?window=30d&by=workload"));
            }
            pages("large (1,000 cards, 10,000 containers, " + days + " days at 1 h)", prometheus.url(),
                    Instant.ofEpochSecond(end), pages, requests);
        } finally {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** What is done with each day's file of a history once it is written. */
    @FunctionalInterface
    private interface DayWritten {
        void accept(Path file) throws Exception;
    }

    /**
     * Writes {@code days} of the fleet's history up to {@code end}, an hour apart, a day per file
     * ({@code external} labels on every series), each handed to {@code written}; returns the samples.
     */
    private static long history(Fleet fleet, int days, long end, Labels external, String name, DayWritten written)
            throws Exception {
        long started = System.nanoTime();
        long samples = 0;
        AllocationSeries allocation = AllocationSeries.of(fleet);
        for (int day = days; day >= 0; day--) {
            Path file = Files.createTempFile("bench-large-day" + day, ".om");
            try (HistoryFile out = new HistoryFile(file, external)) {
                for (int hour = 0; hour < 24; hour++) {
                    long t = end - day * 86_400L - (23 - hour) * 3600L;
                    if (t < end - days * 86_400L || t > end) {
                        continue;
                    }
                    out.write(familiesAt(fleet, t, t == end, allocation), Instant.ofEpochSecond(t));
                }
                samples += out.samples();
            }
            written.accept(file);
            System.out.printf("%s: day %d written (%,d samples so far, %.0f s)%n", name, days - day, samples,
                    seconds(started));
        }
        return samples;
    }

    /**
     * The scheduler's series of the fleet: those a history keeps ({@link #HISTORY}) at every instant
     * but the last, and every one at the last.
     */
    private record AllocationSeries(List<HistoryFile.Family> past, List<HistoryFile.Family> now) {
        static AllocationSeries of(Fleet fleet) {
            Labels scheduler = Labels.of("job", "hami-observe-scheduler", "instance", "scheduler:9395");
            var snapshots = AllocationMetrics.snapshots(fleet.view);
            return new AllocationSeries(HistoryFile.labelled(snapshots, scheduler, HISTORY::contains),
                    HistoryFile.labelled(snapshots, scheduler, all -> true));
        }
    }

    /** What the exporters say at {@code t}: the allocation's series and every node's usage (all of them {@code now}). */
    private static List<HistoryFile.Family> familiesAt(Fleet fleet, long t, boolean now, AllocationSeries allocation) {
        List<HistoryFile.Family> families = new ArrayList<>(now ? allocation.now() : allocation.past());
        for (int node = 0; node < NODES; node++) {
            Labels target = Labels.of("job", "hami-observe-node", "instance", "node-" + node + ":9394",
                    "node", Fleet.node(node));
            families.addAll(HistoryFile.labelled(UsageMetrics.collect(fleet.usage(node, t),
                    fleet.pods.get(node)).snapshots(), target, now ? all -> true : HISTORY::contains));
        }
        return families;
    }

    /**
     * The large fleet's last {@code hours} with a sample every {@code step} seconds, as exporters
     * scraped at that interval leave it (the seven-day history above has one an hour), the console's
     * rule groups evaluated over it by promtool, held for {@code hold}: what the fleet now, each rule
     * group's run and a read over a window cost where every series has a sample at every step.
     */
    private static void denseHold(int hours, int step, Duration hold) throws Exception {
        long end = Math.floorDiv(Instant.now().getEpochSecond(), 3600) * 3600 - 3600;
        Fleet fleet = new Fleet(0);
        AllocationSeries allocation = AllocationSeries.of(fleet);
        List<Path> files = new ArrayList<>();
        long started = System.nanoTime();
        long samples = 0;
        for (int hour = hours - 1; hour >= 0; hour--) {
            Path file = Files.createTempFile("bench-dense-hour" + hour, ".om");
            try (HistoryFile out = new HistoryFile(file, Labels.EMPTY)) {
                for (long t = end - (hour + 1) * 3600L + step; t <= end - hour * 3600L; t += step) {
                    out.write(familiesAt(fleet, t, t == end, allocation), Instant.ofEpochSecond(t));
                }
                samples += out.samples();
            }
            files.add(file);
            System.out.printf("dense: hour %d written (%,d samples so far, %.0f s)%n", hours - hour, samples,
                    seconds(started));
        }
        System.out.printf("dense: %,d samples over %d h at %d s, %,d MB of OpenMetrics, written in %.1f s%n", samples,
                hours, step, files.stream().mapToLong(ConsoleBenchmark::size).sum() / 1_000_000, seconds(started));
        try (LocalPrometheus prometheus = load(files)) {
            System.out.printf("holding Prometheus at %s for %d min; the fleet's end is %d%n", prometheus.url(),
                    hold.toMinutes(), end);
            Thread.sleep(hold);
        }
    }

    /**
     * {@code clusters} copies of the large fleet, each labelled {@code cluster="cluster-N"} (as a
     * Prometheus's external labels or a relabeling put it) with cards of its own UUIDs, {@code days}
     * of history each, in one VictoriaMetrics (single node, the flags docs/console.md gives); then
     * the console over all of them timed as {@link #pages} times it, every window the pages offer
     * and pages of one cluster included, and what each read of its refresh costs VictoriaMetrics.
     * Of the console's rules only the overview's chart groups are replayed (the funnel's and the
     * card lines'), over the last six hours ({@link #replayChartRules}): the pages' other reads are
     * computed from the raw series.
     */
    private static void clustersInVictoriaMetrics(int clusters, int days, int requests, Duration hold)
            throws Exception {
        long end = Math.floorDiv(Instant.now().getEpochSecond(), 3600) * 3600 - 3600;
        Path directory = Files.createTempDirectory("bench-large-vm");
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Process engine = new ProcessBuilder("victoria-metrics", "-storageDataPath=" + directory.resolve("data"),
                "-httpListenAddr=127.0.0.1:" + port, "-retentionPeriod=1", "-search.maxStalenessInterval=5m",
                "-search.latencyOffset=0s", "-loggerLevel=ERROR").redirectErrorStream(true)
                .redirectOutput(directory.resolve("victoria-metrics.log").toFile()).start();
        URI vm = URI.create("http://127.0.0.1:" + port + "/");
        HttpClient client = HttpClient.newHttpClient();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (status(client, vm.resolve("/health")) != 200) {
                if (System.nanoTime() > deadline || !engine.isAlive()) {
                    throw new IllegalStateException("VictoriaMetrics did not start: "
                            + Files.readString(directory.resolve("victoria-metrics.log")));
                }
                Thread.sleep(100);
            }
            long started = System.nanoTime();
            long samples = 0;
            for (int cluster = 0; cluster < clusters; cluster++) {
                String name = "cluster-" + (cluster + 1);
                samples += history(new Fleet(cluster), days, end, Labels.of("cluster", name), name, file -> {
                    try {
                        importInto(client, vm, file);
                    } finally {
                        Files.deleteIfExists(file);
                    }
                });
            }
            client.send(HttpRequest.newBuilder(vm.resolve("/internal/force_flush")).build(),
                    HttpResponse.BodyHandlers.discarding());
            System.out.printf("clusters-vm: %,d samples (%d clusters × %d days) written and imported in %.1f s%n",
                    samples, clusters, days, seconds(started));
            // The engine merges what it was sent in the background for a while: its CPU then is not
            // the console's, so the pages wait until no merge has run for a few seconds.
            long merging = System.nanoTime();
            for (int quiet = 0; quiet < 3 && seconds(merging) < 900; Thread.sleep(2000)) {
                quiet = activeMerges(client, vm) == 0 ? quiet + 1 : 0;
            }
            System.out.printf("clusters-vm: background merges done after %.0f s more%n", seconds(merging));
            replayChartRules(vm, end, CHART_REPLAY.orElse(Duration.ofDays(days)), directory);
            List<String> pages = new ArrayList<>(LARGE_PAGES);
            // Every window and range the pages offer besides their defaults, and pages of one cluster.
            pages.addAll(everyOtherWindowAndRange());
            String second = "cluster-" + Math.min(2, clusters);
            String last = "cluster-" + clusters;
            pages.addAll(List.of("/?cluster=" + second, "/nodes?cluster=" + second, "/cards?cluster=" + last,
                    "/workloads?cluster=" + last, "/rightsizing?cluster=" + second, "/namespaces?cluster=" + second,
                    "/showback?cluster=" + last));
            if (hold.isPositive()) {
                System.out.printf("holding VictoriaMetrics at %s for %d min; the fleet's end is %d%n", vm,
                        hold.toMinutes(), end);
                Thread.sleep(hold);
            }
            pages(clusters + " clusters × (1,000 cards, 10,000 containers), " + days + " days at 1 h, VictoriaMetrics "
                    + "single node", vm, Instant.ofEpochSecond(end), pages, requests);
            refreshCost(vm, Instant.ofEpochSecond(end), 3);
        } finally {
            engine.destroy();
            engine.waitFor();
            try (var files = Files.walk(directory)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    /**
     * How long before the fleet's end the chart's rule groups are replayed, as a deployment that
     * has run them that long holds their records: the whole history unless told ("replay=H",
     * hours: a younger deployment, whose charts read the raw series before its rules began; 14
     * days of three clusters replay in about 80 s here).
     */
    private static Optional<Duration> CHART_REPLAY = Optional.empty();
    /** The rule groups whose records the overview's chart reads. */
    private static final Set<String> CHART_GROUPS = Set.of("hami-observe-console-funnel",
            "hami-observe-console-card-lines");

    /**
     * The overview chart's rule groups (the funnel's and the card lines') replayed by {@code vmalert
     * -replay} over the {@code replay} before {@code end} ({@link #CHART_REPLAY}), as an engine that
     * has run the console's rules for that long holds them (a chart reads their records at the
     * steps they serve and the raw series before them): the refresh's chart, continued a step or two
     * at a time, reads their records, as on Prometheus, while each run is counted in the refresh as
     * what it costs the engine ({@link #refreshCost}). The hourly groups are not replayed: over a
     * history of a sample an hour their records read as many samples as the raw series, and
     * showback's (each hour an integral of every share's size at one-minute steps: some 20,000
     * evaluations of the share-sizing join over 14 days) would take vmalert hours here.
     */
    private static void replayChartRules(URI vm, long end, Duration replay, Path directory) throws Exception {
        List<tools.jackson.databind.JsonNode> charts = consoleRuleGroups().stream()
                .filter(group -> CHART_GROUPS.contains(group.name())).map(RuleGroup::group).toList();
        if (charts.size() != CHART_GROUPS.size()) {
            throw new IllegalStateException("the console's rule file has no group of " + CHART_GROUPS);
        }
        Path rules = directory.resolve("charts.rules.yml");
        tools.jackson.dataformat.yaml.YAMLMapper.builder().build().writeValue(rules.toFile(),
                Map.of("groups", charts));
        java.time.format.DateTimeFormatter iso = java.time.format.DateTimeFormatter.ISO_INSTANT;
        long started = System.nanoTime();
        Process vmalert = new ProcessBuilder("vmalert", "-rule=" + rules, "-datasource.url=" + vm,
                "-remoteWrite.url=" + vm, "-replay.timeFrom=" + iso.format(Instant.ofEpochSecond(end).minus(replay)),
                "-replay.timeTo=" + iso.format(Instant.ofEpochSecond(end)), "-datasource.queryStep=0s",
                "-replay.rulesDelay=0s", "-replay.disableProgressBar", "-loggerLevel=WARN").redirectErrorStream(true)
                .redirectOutput(directory.resolve("vmalert-replay.log").toFile()).start();
        if (!vmalert.waitFor(30, java.util.concurrent.TimeUnit.MINUTES) || vmalert.exitValue() != 0) {
            vmalert.destroyForcibly();
            throw new IllegalStateException("vmalert -replay of the chart's rules failed: "
                    + Files.readString(directory.resolve("vmalert-replay.log")));
        }
        HttpClient.newHttpClient().send(HttpRequest.newBuilder(vm.resolve("/internal/force_flush")).build(),
                HttpResponse.BodyHandlers.discarding());
        System.out.printf("clusters-vm: the chart's rules replayed over the last %d hours in %.0f s%n",
                replay.toHours(), seconds(started));
    }

    /** Imports an OpenMetrics history file (timestamps in seconds) through VictoriaMetrics' Prometheus import (milliseconds). */
    private static void importInto(HttpClient client, URI vm, Path file) throws Exception {
        StringBuilder batch = new StringBuilder();
        int lines = 0;
        try (var reader = Files.newBufferedReader(file)) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                int lastSpace = line.lastIndexOf(' ');
                batch.append(line, 0, lastSpace).append(' ')
                        .append(Math.round(Double.parseDouble(line.substring(lastSpace + 1)) * 1000)).append('\n');
                if (++lines == 50_000) {
                    send(client, vm, batch);
                    lines = 0;
                }
            }
        }
        if (lines > 0) {
            send(client, vm, batch);
        }
    }

    private static void send(HttpClient client, URI vm, StringBuilder batch) throws Exception {
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(vm.resolve("/api/v1/import/prometheus"))
                .POST(HttpRequest.BodyPublishers.ofString(batch.toString())).build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() / 100 != 2) {
            throw new IllegalStateException("VictoriaMetrics refused the import: " + answer.statusCode() + " "
                    + answer.body());
        }
        batch.setLength(0);
    }

    /** The merges VictoriaMetrics runs now ({@code vm_active_merges}, every kind summed). */
    private static double activeMerges(HttpClient client, URI vm) throws Exception {
        return client.send(HttpRequest.newBuilder(vm.resolve("/metrics")).build(), HttpResponse.BodyHandlers.ofString())
                .body().lines().filter(line -> line.startsWith("vm_active_merges"))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    private static int status(HttpClient client, URI uri) {
        try {
            return client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception notYet) {
            return 0;
        }
    }

    /**
     * The showback report over {@code window} as {@code hami-observe showback} writes it (CSV), by
     * every grouping, each from a new reader (nothing kept: the rules' coverage is asked again),
     * three times: the wall time and the CPU seconds Prometheus spent on it.
     */
    private static void showbackReports(URI prometheus, Instant end, Duration window) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        // The first queries this Prometheus answers since it loaded the history, each timed: what
        // is cold in a Prometheus just started (as here), and would not be in one serving all month.
        for (String query : List.of("count(hami_gpu_memory_limit_bytes)",
                "count(count_over_time(hami_gpu_memory_limit_bytes[1d]))")) {
            double cpuBefore = prometheusCpuSeconds(client, prometheus);
            long started = System.nanoTime();
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(prometheus.resolve("/api/v1/query?time="
                    + end.getEpochSecond() + "&query=" + java.net.URLEncoder.encode(query,
                    java.nio.charset.StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
            System.out.printf("  a first query, %s: %,.0f ms, %.1f CPU s of Prometheus's (HTTP %d)%n", query,
                    seconds(started) * 1000, prometheusCpuSeconds(client, prometheus) - cpuBefore, answer.statusCode());
        }
        System.out.printf("%nshowback report over %d days, by each grouping (CSV; load average %s)%n",
                window.toDays(), loadAverage());
        System.out.printf("  %-10s %28s %22s %8s%n", "by", "wall (each of 3)", "Prometheus CPU (each)", "lines");
        for (io.hamiobserve.domain.fleet.Showback.Grouping by : io.hamiobserve.domain.fleet.Showback.Grouping.values()) {
            StringBuilder walls = new StringBuilder();
            StringBuilder cpus = new StringBuilder();
            long lines = 0;
            for (int run = 0; run < 3; run++) {
                FleetHistory history = PrometheusFleetHistory.at(prometheus, Duration.ofSeconds(120));
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                double cpuBefore = prometheusCpuSeconds(client, prometheus);
                long started = System.nanoTime();
                io.hamiobserve.console.ShowbackReport.write(history, end.minus(window), end, by,
                        io.hamiobserve.domain.fleet.Prices.NONE, io.hamiobserve.console.ShowbackReport.Output.CSV,
                        new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
                walls.append(String.format("%,7.0f ms", seconds(started) * 1000));
                cpus.append(String.format("%6.1f s", prometheusCpuSeconds(client, prometheus) - cpuBefore));
                lines = out.toString(java.nio.charset.StandardCharsets.UTF_8).lines().count();
            }
            System.out.printf("  %-10s %28s %22s %,8d%n", by.label(), walls, cpus, lines);
        }
        // What the reports read: the hourly records (names ending :sum_1h / :last_1h) or the raw series.
        List<String> read = PrometheusFleetHistory.at(prometheus, Duration.ofSeconds(120))
                .cardHours(end.minus(window), end).provenance().values().stream()
                .map(query -> query.name() + (query.expression().contains(":sum_1h") ? " (records)" : " (raw)"))
                .distinct().sorted().toList();
        System.out.printf("  the report's queries: %s%n", String.join(", ", read));
    }

    /** The console's rule file, as deployed. */
    private static final Path RULES = Path.of("alerts/hami-observe-console.rules.yml");
    /** Where in the hour the rules run: half past (each group runs at an offset into the hour). */
    private static final long RULE_OFFSET_SECONDS = 1800;

    /**
     * The console's recorded series over {@code days} before {@code end}, written to a file of
     * their own: every rule of the console's rule file evaluated once by Prometheus, at half an hour
     * before {@code end}, over {@code lastDay} (the history's last day) alone, and its answer stamped
     * at half past every hour of the window, with the rule's own labels — each group's
     * {@code hami_observe:console_rules:evaluated} among them, so the console finds the records
     * covering the window and reads the half hours at each end from the raw series, as it would
     * from a Prometheus that has run all month. The series and their number are the rules' own; the
     * values repeat the one hour (the benchmark times the reads, not the figures). Prints what the
     * evaluation cost Prometheus: its CPU seconds for one hour of every rule.
     */
    private static Path recordsOverTheWindow(Path lastDay, long end, int days) throws Exception {
        long at = end - RULE_OFFSET_SECONDS;
        List<HistoryFile.Family> records = new ArrayList<>();
        tools.jackson.databind.JsonNode groups = new tools.jackson.dataformat.yaml.YAMLMapper()
                .readTree(Files.readString(RULES)).path("groups");
        tools.jackson.databind.ObjectMapper json = new tools.jackson.databind.ObjectMapper();
        long started = System.nanoTime();
        double cpu;
        try (LocalPrometheus prometheus = LocalPrometheus.start(List.of(), Duration.ofSeconds(60), List.of(lastDay),
                Duration.ofMinutes(5))) {
            HttpClient client = HttpClient.newHttpClient();
            double cpuBefore = prometheusCpuSeconds(client, prometheus.url());
            for (tools.jackson.databind.JsonNode group : groups) {
                for (tools.jackson.databind.JsonNode rule : group.path("rules")) {
                    String record = rule.path("record").asString();
                    HttpResponse<String> response = client.send(HttpRequest.newBuilder(prometheus.url().resolve(
                            "/api/v1/query?time=" + at + "&query=" + java.net.URLEncoder.encode(
                                    rule.path("expr").asString(), java.nio.charset.StandardCharsets.UTF_8))).build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() != 200) {
                        throw new IllegalStateException(record + ": " + response.body());
                    }
                    List<Labels> labels = new ArrayList<>();
                    List<Double> values = new ArrayList<>();
                    for (tools.jackson.databind.JsonNode sample : json.readTree(response.body()).path("data")
                            .path("result")) {
                        Labels each = Labels.EMPTY;
                        for (var label : sample.path("metric").properties()) {
                            if (!label.getKey().equals("__name__")) {
                                each = each.add(label.getKey(), label.getValue().asString());
                            }
                        }
                        for (var label : rule.path("labels").properties()) {
                            each = each.add(label.getKey(), label.getValue().asString());
                        }
                        labels.add(each);
                        values.add(Double.parseDouble(sample.path("value").path(1).asString()));
                    }
                    records.add(new HistoryFile.Family(new io.prometheus.metrics.model.snapshots.MetricMetadata(
                            record), labels, values.stream().mapToDouble(Double::doubleValue).toArray()));
                }
            }
            cpu = prometheusCpuSeconds(client, prometheus.url()) - cpuBefore;
        }
        double evaluated = seconds(started);
        Path file = Files.createTempFile("bench-large-records", ".om");
        long samples;
        try (HistoryFile out = new HistoryFile(file)) {
            for (long t = at - (days * 24L - 1) * 3600; t <= at; t += 3600) {
                out.write(records, Instant.ofEpochSecond(t));
            }
            samples = out.samples();
        }
        System.out.printf("  the console's %d rules evaluated once (an hour's records) in %.1f s, %.1f CPU s of "
                        + "Prometheus's; %,d samples (%,d series) stamped at every hour of %d days in %.1f s%n",
                records.size(), evaluated, cpu, samples,
                records.stream().mapToInt(family -> family.values().length).sum(), days, seconds(started) - evaluated);
        return file;
    }

    private static LocalPrometheus load(List<Path> files) throws Exception {
        return load(files, true);
    }

    /**
     * Loads the history into a Prometheus and waits until it has merged its blocks; with
     * {@code evaluateRules} the console's rule groups are evaluated over it first (promtool), without
     * it the history is loaded as it is (its records, if any, are in the files).
     */
    private static LocalPrometheus load(List<Path> files, boolean evaluateRules) throws Exception {
        long started = System.nanoTime();
        try {
            LocalPrometheus prometheus = evaluateRules
                    ? LocalPrometheus.startRecorded(List.of(), Duration.ofSeconds(60), files, Duration.ofMinutes(5))
                    : LocalPrometheus.start(List.of(), Duration.ofSeconds(60), files, Duration.ofMinutes(5));
            System.out.printf("  loaded into Prometheus and ready in %.1f s; %d blocks once compacted (%.0f s)%n",
                    seconds(started), prometheus.awaitCompaction(Duration.ofSeconds(65), Duration.ofMinutes(60)),
                    seconds(started));
            return prometheus;
        } finally {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
    }

    private static void attach(URI prometheus, Instant end, int requests) throws Exception {
        pages("large, attached at " + prometheus, prometheus, end, LARGE_PAGES, requests);
    }

    /** The windows besides the defaults the timed console keeps read (--console.keep-windows). */
    private static List<Duration> KEPT_WINDOWS = List.of();

    /**
     * The timed console's options, from {@code args[from]} on, any of: "keep", told to keep the
     * other windows read with every round (--console.keep-windows 24h,7d,30d); "others=0", told
     * not to read them every six hours (--console.other-windows-refresh-interval 0); "settle=S",
     * the first visits S seconds after ready (the other windows' round read meanwhile), the
     * engine's CPU over those seconds printed; "replay=H", clusters-vm's chart rules replayed over
     * the last H hours only ({@link #CHART_REPLAY}).
     */
    private static void consoleOptions(String[] args, int from) {
        for (int a = from; a < args.length; a++) {
            if (args[a].equals("keep")) {
                KEPT_WINDOWS = List.of(Duration.ofHours(24), Duration.ofDays(7), Duration.ofDays(30));
            } else if (args[a].equals("others=0")) {
                OTHER_WINDOWS_REFRESH = Duration.ZERO;
            } else if (args[a].startsWith("replay=")) {
                CHART_REPLAY = Optional.of(Duration.ofHours(Long.parseLong(args[a].substring("replay=".length()))));
            } else if (args[a].startsWith("settle=")) {
                SETTLE = Duration.ofSeconds(Long.parseLong(args[a].substring("settle=".length())));
            } else {
                throw new IllegalArgumentException(args[0] + ": unknown argument " + args[a]);
            }
        }
    }

    /** How often the timed console reads the pages' other windows (--console.other-windows-refresh-interval). */
    private static Duration OTHER_WINDOWS_REFRESH = ConsoleSettings.DEFAULT_OTHER_WINDOWS_REFRESH;
    /** How long after ready the first visits start (attach-windows settle=S). */
    private static Duration SETTLE = Duration.ZERO;

    /** Whether to time the pages of a console with nothing kept too (attach-cold). */
    private static boolean COLD = false;

    /**
     * Times the console as deployed: from its start to {@code /readyz} answering 200 (the first
     * background read of the fleet-wide figures), with the CPU seconds Prometheus spent meanwhile;
     * then each page's first visit after ready, in order; then {@code requests} more visits of
     * each (median and maximum). With {@link #COLD}, also the pages of a console that keeps
     * nothing (every query of the page sent on each visit), the console before its background
     * refresh.
     */
    private static void pages(String title, URI prometheus, Instant at, List<String> pages, int requests)
            throws Exception {
        FleetHistory history = PrometheusFleetHistory.at(prometheus, Duration.ofSeconds(120));
        HttpClient client = HttpClient.newHttpClient();
        System.out.printf("%n%s: load average %s%n", title, loadAverage());
        double cpuBefore = prometheusCpuSeconds(client, prometheus);
        long starting = System.nanoTime();
        // Readiness waits as long as the first read takes here, to time it (deployed: at most 60 s).
        Served deployed = serve(history, ConsoleSettings.defaults().withRefresh(ConsoleSettings.DEFAULT_REFRESH,
                Duration.ofMinutes(10)).withKeptWindows(KEPT_WINDOWS).withOtherWindowsRefresh(OTHER_WINDOWS_REFRESH),
                at, true);
        try {
            while (visit(client, deployed.port(), "/readyz").status() != 200) {
                Thread.sleep(10);
            }
            double ready = seconds(starting);
            double cpu = prometheusCpuSeconds(client, prometheus) - cpuBefore;
            System.out.printf("  start → ready: %.2f s (Prometheus CPU meanwhile: %.1f s, one refresh of the "
                    + "fleet-wide figures)%n", ready, cpu);
            if (SETTLE.isPositive()) {
                double settling = prometheusCpuSeconds(client, prometheus);
                Thread.sleep(SETTLE.toMillis());
                System.out.printf("  then %d s before the first visits (Prometheus CPU meanwhile: %.1f s: the "
                        + "refreshes, and the other windows' round where it is on)%n", SETTLE.toSeconds(),
                        prometheusCpuSeconds(client, prometheus) - settling);
            }
            System.out.printf("  %-62s %12s %18s %9s%n", "page", "first visit", "then (median / max)", "bytes");
            // A page that answers otherwise than 200 (503: its figures not in within the page's
            // wait) is timed and reported like the others, and the pages after it still visited.
            double[] first = new double[pages.size()];
            int[] firstStatus = new int[pages.size()];
            for (int p = 0; p < pages.size(); p++) {
                long started = System.nanoTime();
                firstStatus[p] = visit(client, deployed.port(), pages.get(p)).status();
                first[p] = seconds(started);
            }
            List<Double> firstVisits = new ArrayList<>();
            List<Double> medians = new ArrayList<>();
            int failedFirst = 0;
            for (int p = 0; p < pages.size(); p++) {
                String page = pages.get(p);
                double[] served = new double[requests];
                long bytes = 0;
                int failed = 0;
                for (int i = 0; i < requests; i++) {
                    long started = System.nanoTime();
                    Visit visit = visit(client, deployed.port(), page);
                    served[i] = seconds(started);
                    bytes = visit.bytes();
                    failed += visit.status() == 200 ? 0 : 1;
                }
                Arrays.sort(served);
                firstVisits.add(first[p]);
                medians.add(served[requests / 2]);
                failedFirst += firstStatus[p] == 200 ? 0 : 1;
                System.out.printf("  %-62s %9.0f ms %7.0f / %6.0f ms %,9d%s%n", page.length() > 62
                        ? page.substring(0, 59) + "..." : page, first[p] * 1000, served[requests / 2] * 1000,
                        served[requests - 1] * 1000, bytes, firstStatus[p] == 200 && failed == 0 ? ""
                                : "   first visit answered " + firstStatus[p] + ", then " + failed + " of " + requests
                                + " not 200");
            }
            firstVisits.sort(Double::compare);
            medians.sort(Double::compare);
            System.out.printf("  slowest page: first visit %.0f ms, median %.0f ms; %d of %d first visits not 200; "
                    + "load average %s%n", firstVisits.getLast() * 1000, medians.getLast() * 1000, failedFirst,
                    pages.size(), loadAverage());
        } finally {
            deployed.stop();
        }
        if (COLD) {
            cold(history, client, at, pages, requests);
        }
    }

    /** Each page of a console that keeps nothing: every query of the page sent on each visit. */
    private static void cold(FleetHistory history, HttpClient client, Instant at, List<String> pages, int requests)
            throws Exception {
        Served cached = serve(history, ConsoleSettings.defaults(), at, false);
        try {
            System.out.printf("%n  a console that keeps nothing, median / max of %d requests, whole page over HTTP%n",
                    requests);
            System.out.printf("  %-62s %18s %18s %9s%n", "page", "cold", "served", "bytes");
            List<Double> coldMedians = new ArrayList<>();
            List<Double> servedMedians = new ArrayList<>();
            for (String page : pages) {
                double[] cold = new double[requests];
                long bytes = 0;
                for (int i = 0; i < requests; i++) {
                    Served fresh = serve(history, ConsoleSettings.defaults().withFresh(Duration.ZERO), at, false);
                    try {
                        long started = System.nanoTime();
                        bytes = get(client, fresh.port(), page);
                        cold[i] = seconds(started);
                    } finally {
                        fresh.stop();
                    }
                }
                get(client, cached.port(), page);
                double[] served = new double[requests];
                for (int i = 0; i < requests; i++) {
                    long started = System.nanoTime();
                    get(client, cached.port(), page);
                    served[i] = seconds(started);
                }
                Arrays.sort(cold);
                Arrays.sort(served);
                coldMedians.add(cold[requests / 2]);
                servedMedians.add(served[requests / 2]);
                System.out.printf("  %-62s %7.0f / %6.0f ms %7.0f / %6.0f ms %,9d%n", page.length() > 62
                                ? page.substring(0, 59) + "..." : page, cold[requests / 2] * 1000,
                        cold[requests - 1] * 1000, served[requests / 2] * 1000, served[requests - 1] * 1000, bytes);
            }
            coldMedians.sort(Double::compare);
            servedMedians.sort(Double::compare);
            System.out.printf("  slowest page median: cold %.0f ms, served %.0f ms%n", coldMedians.getLast() * 1000,
                    servedMedians.getLast() * 1000);
        } finally {
            cached.stop();
        }
    }

    /** A console served for a measurement; {@link #stop} stops its server and its background refresh. */
    private record Served(Servers.Served server, int port, Optional<Thread> refresh) {
        void stop() {
            server.stop();
            // A refresh left running reads the engine on behind the measurements that follow
            // (a three-cluster refresh-cost once counted it: 24 CPU s for the fleet now, 4.7 alone).
            refresh.ifPresent(Thread::interrupt);
        }
    }

    private static Served serve(FleetHistory history, ConsoleSettings settings, Instant at, boolean refresh) {
        return serve(history, settings, Clock.fixed(at, ZoneOffset.UTC), refresh);
    }

    private static Served serve(FleetHistory history, ConsoleSettings settings, Clock clock, boolean refresh) {
        ConsoleRole role = new ConsoleRole(BuildInfo.current());
        Console console = Console.create(role.observe(history), settings, clock);
        role.readyWhen(console::ready, console::notReadyReason);
        Servers.Served served = Servers.serve("127.0.0.1:0", role, EdgeConfig.defaults(), console::routing);
        return new Served(served, served.port(), refresh ? Optional.of(console.warmUp()) : Optional.empty());
    }

    /** One visit of a page: its status and its answer. */
    private record Visit(int status, byte[] body) {
        long bytes() {
            return body.length;
        }
    }

    private static Visit visit(HttpClient client, int port, String page) throws Exception {
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + page)).build(), HttpResponse.BodyHandlers.ofByteArray());
        return new Visit(response.statusCode(), response.body());
    }

    /** Prometheus's own {@code process_cpu_seconds_total}: what the console's queries cost it. */
    /** Every window and range the pages offer besides their defaults. */
    private static List<String> everyOtherWindowAndRange() {
        List<String> pages = new ArrayList<>();
        for (String window : List.of("24h", "7d", "30d")) {
            pages.addAll(List.of("/workloads?window=" + window, "/rightsizing?window=" + window,
                    "/namespaces?window=" + window, "/capacity?window=" + window));
        }
        for (String range : List.of("1h", "6h", "7d", "30d")) {
            pages.add("/?range=" + range);
        }
        return pages;
    }

    /** One of the console's recording rule groups, as the rule file deployed has it. */
    private record RuleGroup(String name, Duration interval, List<String> expressions,
                             tools.jackson.databind.JsonNode group) {
        /** What a refresh reads as this group's run: its name less the file's common prefix. */
        String read() {
            return "rules " + name.substring("hami-observe-console-".length()) + ", one run";
        }
    }

    /** The console's rule groups, read with the YAML library: each interval and expression but the run markers. */
    private static List<RuleGroup> consoleRuleGroups() throws java.io.IOException {
        List<RuleGroup> groups = new ArrayList<>();
        for (tools.jackson.databind.JsonNode group : tools.jackson.dataformat.yaml.YAMLMapper.builder().build()
                .readTree(Files.readString(RULES)).path("groups")) {
            List<String> expressions = new ArrayList<>();
            group.path("rules").forEach(rule -> {
                if (!rule.path("record").asString().equals("hami_observe:console_rules:evaluated")) {
                    expressions.add(rule.path("expr").asString());
                }
            });
            groups.add(new RuleGroup(group.path("name").asString(), Duration.parse("PT"
                    + group.path("interval").asString().toUpperCase(java.util.Locale.ROOT)), expressions, group));
        }
        if (groups.size() != 5) {
            throw new IllegalStateException("expected the console's five rule groups, found "
                    + groups.stream().map(RuleGroup::name).toList());
        }
        return groups;
    }

    private static double prometheusCpuSeconds(HttpClient client, URI prometheus) throws Exception {
        // VictoriaMetrics's own process_cpu_seconds_total lags its CPU by seconds (its process
        // metrics are not read again at every scrape), so a read's cost lands on a later read's:
        // with the engine's process id in ENGINE_PID, its CPU is read from /proc at once instead
        // (user and system time, in the kernel's clock ticks of 1/100 s).
        String pid = System.getenv("ENGINE_PID");
        if (pid != null && !pid.isBlank()) {
            String stat = Files.readString(Path.of("/proc", pid.trim(), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
        }
        String metrics = client.send(HttpRequest.newBuilder(prometheus.resolve("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return metrics.lines().filter(line -> line.startsWith("process_cpu_seconds_total "))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim()))
                .findFirst().orElse(Double.NaN);
    }

    private static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (java.io.IOException unreadable) {
            return "unknown";
        }
    }

    /**
     * The reads of the console's background refresh ({@code PageContext.refresh}), each alone and
     * then all at once as the refresh sends them, {@code rounds} times: Prometheus's CPU seconds
     * (its {@code process_cpu_seconds_total} before and after) and the wall time of each.
     */
    private static void refreshCost(URI prometheus, Instant at, int rounds) throws Exception {
        FleetHistory history = PrometheusFleetHistory.at(prometheus, Duration.ofSeconds(300));
        HttpClient client = HttpClient.newHttpClient();
        io.hamiobserve.domain.fleet.TimeRange day = io.hamiobserve.domain.fleet.TimeRange.DAY;
        Map<String, Callable<?>> reads = new java.util.LinkedHashMap<>();
        reads.put("fleet now, cards only", () -> history.readings(at, io.hamiobserve.domain.fleet.FleetScope.CARDS_ONLY));
        reads.put("usage over the default window", () -> history.usage(at,
                io.hamiobserve.domain.fleet.RightSizing.DEFAULT_WINDOW,
                io.hamiobserve.domain.fleet.RightSizing.MIN_HISTORY, io.hamiobserve.domain.fleet.FleetScope.EVERYTHING));
        reads.put("a week's card-hours", () -> history.cardHours(at.minus(Duration.ofDays(7)), at));
        reads.put("the cluster's 24-hour trends", () -> history.trends(new io.hamiobserve.domain.fleet.TrendScope.Cluster(),
                at, day.length(), day.step()));
        // What a refresh asks of the day's chart it keeps: its last two steps (the new one, or the
        // one still settling, and the one before), in two of every six refreshes at most. Its funnel
        // comes from the funnel's records where the rule group ran through those steps.
        reads.put("the day's chart continued", () -> history.trends(new io.hamiobserve.domain.fleet.TrendScope.Cluster(),
                at, day.step(), day.step()));
        // What each of the console's rule groups costs the engine at each of its runs, whatever the
        // number of consoles: one evaluation of each of its expressions at the fleet's end (an
        // hourly group's over the hour before it).
        List<RuleGroup> ruleGroups = consoleRuleGroups();
        for (RuleGroup group : ruleGroups) {
            reads.put(group.read(), () -> {
                for (String expression : group.expressions()) {
                    String answer = client.send(HttpRequest.newBuilder(prometheus.resolve("/api/v1/query?query="
                            + java.net.URLEncoder.encode(expression, java.nio.charset.StandardCharsets.UTF_8)
                            + "&time=" + at.getEpochSecond())).build(), HttpResponse.BodyHandlers.ofString()).body();
                    if (!answer.contains("\"status\":\"success\"")) {
                        throw new IllegalStateException("a rule of " + group.name() + " failed: " + answer);
                    }
                }
                return null;
            });
        }
        System.out.printf("the console's refresh at %s, each read alone, %d rounds (load average %s)%n", at, rounds,
                loadAverage());
        double sum = 0;
        Map<String, Double> medians = new java.util.HashMap<>();
        // The fleet now as the refresh reads it, one history read after read: every node's container
        // series in one read of each cycle, only the changed nodes' in the others (none change in
        // this held history). After a first read, each cycle is the kept reads, then the whole one.
        int cycle = PrometheusFleetHistory.READS_PER_FULL_READ;
        history.readings(at, io.hamiobserve.domain.fleet.FleetScope.EVERYTHING);
        double[] keptReads = new double[rounds * (cycle - 1)];
        double[] wholeReads = new double[rounds];
        for (int round = 0; round < rounds; round++) {
            for (int read = 0; read < cycle; read++) {
                double before = prometheusCpuSeconds(client, prometheus);
                history.readings(at, io.hamiobserve.domain.fleet.FleetScope.EVERYTHING);
                double cost = prometheusCpuSeconds(client, prometheus) - before;
                if (read < cycle - 1) {
                    keptReads[round * (cycle - 1) + read] = cost;
                } else {
                    wholeReads[round] = cost;
                }
            }
        }
        Arrays.sort(keptReads);
        Arrays.sort(wholeReads);
        medians.put("fleet now, every container", wholeReads[rounds / 2]);
        medians.put("fleet now, allocations kept", keptReads[keptReads.length / 2]);
        System.out.printf("  %-32s Prometheus CPU %6.2f s median (min %.2f, max %.2f), one read in %d%n",
                "fleet now, every container", wholeReads[rounds / 2], wholeReads[0], wholeReads[rounds - 1], cycle);
        System.out.printf("  %-32s Prometheus CPU %6.2f s median (min %.2f, max %.2f), the other %d%n",
                "fleet now, allocations kept", keptReads[keptReads.length / 2], keptReads[0],
                keptReads[keptReads.length - 1], cycle - 1);
        sum += wholeReads[rounds / 2];
        for (Map.Entry<String, Callable<?>> read : reads.entrySet()) {
            double[] cpu = new double[rounds];
            double[] wall = new double[rounds];
            for (int i = 0; i < rounds; i++) {
                double before = prometheusCpuSeconds(client, prometheus);
                long started = System.nanoTime();
                try {
                    read.getValue().call();
                } catch (io.hamiobserve.ports.SourceUnavailableException failed) {
                    // Reported and counted as what it cost the engine until it failed (a query past
                    // the engine's own time limit): the reads after it are still timed.
                    String reason = failed.getMessage();
                    System.out.printf("  %-32s round %d failed after %.1f s: %s%n", read.getKey(), i + 1,
                            seconds(started), reason.length() > 300 ? reason.substring(0, 300) + "…" : reason);
                }
                wall[i] = seconds(started);
                cpu[i] = prometheusCpuSeconds(client, prometheus) - before;
            }
            Arrays.sort(cpu);
            Arrays.sort(wall);
            sum += cpu[rounds / 2];
            medians.put(read.getKey(), cpu[rounds / 2]);
            System.out.printf("  %-32s Prometheus CPU %6.2f s median (min %.2f, max %.2f); wall %6.2f s%n",
                    read.getKey(), cpu[rounds / 2], cpu[0], cpu[rounds - 1], wall[rounds / 2]);
        }
        System.out.printf("  sum of the medians %.2f CPU s%n", sum);
        // The refresh as the console makes it: the fleet now every time (every node's containers in
        // one read of ten), the day's chart continued in two of six, the summaries over a window
        // once an hour (ConsoleSettings.summaryRefresh). The cards' view of the fleet now is derived
        // from every container's (FleetCache.fleetNow), not read; each rule group runs at its own
        // interval (the funnel's every five minutes, the others hourly), whatever the number of
        // consoles, and is counted here as what it costs a minute.
        double fleetNow = (medians.get("fleet now, every container")
                + medians.get("fleet now, allocations kept") * (cycle - 1)) / cycle;
        System.out.printf("  the fleet now, every node's containers read in one of %d reads, the rest kept: %.2f CPU s"
                + " (no node changing)%n", cycle, fleetNow);
        double rules = 0;
        for (RuleGroup group : ruleGroups) {
            rules += medians.get(group.read()) * ConsoleSettings.DEFAULT_REFRESH.toSeconds()
                    / group.interval().toSeconds();
        }
        System.out.printf("  the rule groups, each run at its interval: %.2f CPU s a refresh%n", rules);
        double steady = fleetNow
                + medians.get("the day's chart continued") * 2 / 6
                + rules
                + (medians.get("usage over the default window") + medians.get("a week's card-hours"))
                * ConsoleSettings.DEFAULT_REFRESH.toSeconds() / ConsoleSettings.DEFAULT_SUMMARY_REFRESH.toSeconds();
        System.out.printf("  a refresh every %s, the summaries every %s, over the fleet's last samples: %.2f CPU s "
                + "per refresh on average%n", ConsoleSettings.DEFAULT_REFRESH, ConsoleSettings.DEFAULT_SUMMARY_REFRESH,
                steady);
        double before = prometheusCpuSeconds(client, prometheus);
        long started = System.nanoTime();
        List<java.util.concurrent.Future<?>> all = new ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            all.add(pool.submit(() -> history.readings(at, io.hamiobserve.domain.fleet.FleetScope.EVERYTHING)));
            reads.values().forEach(read -> all.add(pool.submit(read)));
            for (java.util.concurrent.Future<?> each : all) {
                each.get();
            }
        }
        System.out.printf("  all at once: Prometheus CPU %.2f s, wall %.2f s (load average %s)%n",
                prometheusCpuSeconds(client, prometheus) - before, seconds(started), loadAverage());
    }

    /**
     * The console as deployed over a Prometheus already holding the fleet, its clock running from
     * {@code end} on as the wall clock does: Prometheus's CPU over {@code span} of refreshes every
     * {@code interval}, less what Prometheus spent over as long a span with no console before it,
     * per refresh (counted from the console's own log of each refresh).
     */
    private static void refreshSteady(URI prometheus, Instant end, Duration interval, Duration span) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        System.out.printf("the console's refresh every %s over %s, its clock from %s (load average %s)%n", interval,
                span, end, loadAverage());
        double idleBefore = prometheusCpuSeconds(client, prometheus);
        Thread.sleep(span.toMillis() / 4);
        double idlePerSecond = (prometheusCpuSeconds(client, prometheus) - idleBefore) / (span.toMillis() / 4000.0);
        System.out.printf("  Prometheus alone: %.3f CPU s per second over %d s%n", idlePerSecond,
                span.toSeconds() / 4);
        java.util.concurrent.atomic.AtomicInteger refreshes = new java.util.concurrent.atomic.AtomicInteger();
        double[] lastCpu = {prometheusCpuSeconds(client, prometheus)};
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(Console.class.getName());
        log.setLevel(java.util.logging.Level.FINE);
        log.addHandler(new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                if (record.getMessage() != null && record.getMessage().startsWith("refreshed the fleet-wide")) {
                    refreshes.incrementAndGet();
                    // Prometheus's CPU since the refresh before ended: this refresh, and the wait before it.
                    double now = Double.NaN;
                    try {
                        now = prometheusCpuSeconds(client, prometheus);
                    } catch (Exception unread) {
                        // The line below then says NaN.
                    }
                    System.out.printf("    %s %s; Prometheus CPU since the refresh before: %.2f s%n", Instant.now(),
                            record.getMessage(), now - lastCpu[0]);
                    lastCpu[0] = now;
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        });
        FleetHistory history = PrometheusFleetHistory.at(prometheus, Duration.ofSeconds(120));
        double cpuBefore = prometheusCpuSeconds(client, prometheus);
        long starting = System.nanoTime();
        Clock clock = Clock.offset(Clock.systemUTC(), Duration.between(Instant.now(), end));
        // The first read of a day's chart at 10,000 containers can take longer than a page waits
        // (30 s) on a busy machine: the benchmark waits for it, to time the refreshes after it.
        Served deployed = serve(history, ConsoleSettings.defaults().withRefresh(interval, Duration.ofMinutes(10))
                .withReadLimit(Duration.ofMinutes(5)), clock, true);
        try {
            while (visit(client, deployed.port(), "/readyz").status() != 200) {
                Thread.sleep(10);
            }
            double cpuReady = prometheusCpuSeconds(client, prometheus);
            System.out.printf("  start → ready %.2f s, Prometheus CPU %.2f s (the first refresh)%n", seconds(starting),
                    cpuReady - cpuBefore);
            int counted = refreshes.get();
            long measuring = System.nanoTime();
            Thread.sleep(span.toMillis());
            double cpu = prometheusCpuSeconds(client, prometheus) - cpuReady;
            double measured = seconds(measuring);
            int done = refreshes.get() - counted;
            System.out.printf("  %d refreshes in %.0f s: Prometheus CPU %.2f s, %.2f s less its own %.2f s; "
                    + "**%.2f CPU s per refresh** (load average %s)%n", done, measured, cpu,
                    cpu - idlePerSecond * measured, idlePerSecond * measured,
                    (cpu - idlePerSecond * measured) / Math.max(1, done), loadAverage());
        } finally {
            deployed.stop();
        }
    }

    /**
     * Each query the fleet-wide pages send (every container now, the 14-day summaries, a week's
     * chargeback, the cluster's 24-hour trends), sent alone and timed three times, slowest first.
     */
    private static void queries(URI prometheus, Instant at, Duration showbackWindow, Duration useWindow)
            throws Exception {
        FleetHistory history = PrometheusFleetHistory.at(prometheus, Duration.ofSeconds(120));
        Map<String, String> expressions = new java.util.LinkedHashMap<>();
        history.readings(at, io.hamiobserve.domain.fleet.FleetScope.EVERYTHING).provenance().values()
                .forEach(query -> expressions.put(query.name(), query.expression()));
        history.usage(at, useWindow, io.hamiobserve.domain.fleet.RightSizing.MIN_HISTORY,
                io.hamiobserve.domain.fleet.FleetScope.EVERYTHING).provenance().values()
                .forEach(query -> expressions.put(query.name(), query.expression()));
        history.cardHours(at.minus(showbackWindow), at).provenance().values()
                .forEach(query -> expressions.put(query.name(), query.expression()));
        timeEach(prometheus, at, expressions, 3);
    }

    /**
     * Each line of {@code file}, a name, a tab and an expression (blank lines and {@code #} lines
     * left out), timed as {@link #timeEach} times them: what a rule or a rewrite of one costs.
     */
    private static void expressions(URI engine, Instant at, Path file, int rounds) throws Exception {
        Map<String, String> expressions = new java.util.LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int tab = line.indexOf('\t');
            if (tab < 0) {
                throw new IllegalArgumentException(file + ": a line without a tab between name and expression: " + line);
            }
            expressions.put(line.substring(0, tab), line.substring(tab + 1));
        }
        timeEach(engine, at, expressions, rounds);
    }

    /**
     * Each expression sent alone as an instant query at {@code at}, {@code rounds} times in a row:
     * the median wall time, the engine's CPU seconds per query over the rounds (its
     * {@code process_cpu_seconds_total} before and after) and the series answered, slowest first.
     */
    private static void timeEach(URI engine, Instant at, Map<String, String> expressions, int rounds)
            throws Exception {
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds must be at least 1, not " + rounds);
        }
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        System.out.printf("%d queries, each alone: wall median of %d, the engine's CPU per query over the %d "
                + "(load average %s)%n", expressions.size(), rounds, rounds, loadAverage());
        record Timed(String name, double wall, double cpu, int series) {
        }
        List<Timed> timed = new ArrayList<>();
        tools.jackson.databind.ObjectMapper json = new tools.jackson.databind.ObjectMapper();
        for (Map.Entry<String, String> query : expressions.entrySet()) {
            double[] times = new double[rounds];
            int series = 0;
            double cpuBefore = prometheusCpuSeconds(client, engine);
            for (int i = 0; i < times.length; i++) {
                long started = System.nanoTime();
                // An engine that never answers ends the run with an error, not a wait without end.
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(engine.resolve(
                        "/api/v1/query?time=" + at.getEpochSecond() + "&query=" + java.net.URLEncoder.encode(
                                query.getValue(), java.nio.charset.StandardCharsets.UTF_8)))
                        .timeout(Duration.ofMinutes(10)).build(), HttpResponse.BodyHandlers.ofString());
                times[i] = seconds(started);
                if (response.statusCode() != 200) {
                    throw new IllegalStateException(query.getKey() + ": " + response.body());
                }
                series = json.readTree(response.body()).path("data").path("result").size();
            }
            // The counter moves in hundredths of a second: the runs together, divided.
            double cpu = (prometheusCpuSeconds(client, engine) - cpuBefore) / times.length;
            Arrays.sort(times);
            timed.add(new Timed(query.getKey(), times[times.length / 2], cpu, series));
        }
        timed.sort(java.util.Comparator.comparingDouble(Timed::wall).reversed());
        double total = 0;
        double totalCpu = 0;
        for (Timed query : timed) {
            System.out.printf("  %-40s %8.0f ms  %6.3f CPU s  %,7d series%n", query.name(), query.wall() * 1000,
                    query.cpu(), query.series());
            total += query.wall();
            totalCpu += query.cpu();
        }
        System.out.printf("  sum %.1f s, %.2f CPU s; load average %s%n", total, totalCpu, loadAverage());
    }

    /** A visit that must answer 200: the bytes of its answer. */
    private static long get(HttpClient client, int port, String page) throws Exception {
        Visit visit = visit(client, port, page);
        if (visit.status() != 200) {
            throw new IllegalStateException(page + " answered " + visit.status() + ": " + new String(visit.body()));
        }
        return visit.bytes();
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (java.io.IOException gone) {
            return 0;
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    /** The large fleet: registrations, placements and, per hour, what each container and card uses. */
    private static final class Fleet {
        final AllocationView view;
        final List<List<NodePod>> pods = new ArrayList<>();
        final List<List<PodPlacement>> placements = new ArrayList<>();

        /** The cluster's ordinal: each cluster's cards have UUIDs of their own (0: the one-cluster fleet's). */
        final int cluster;

        Fleet(int cluster) {
            this.cluster = cluster;
            Ledger ledger = new Ledger();
            for (int node = 0; node < NODES; node++) {
                List<RegisteredCard> cards = new ArrayList<>();
                for (int card = 0; card < CARDS_PER_NODE; card++) {
                    cards.add(new RegisteredCard(uuid(cluster, node, card), card, 16, 81_920, 100, "NVIDIA-NVIDIA H100 80GB HBM3",
                            0, CardMode.HAMI_CORE, true));
                }
                ledger.putNode(node(node), cards);
                pods.add(new ArrayList<>());
                placements.add(new ArrayList<>());
            }
            for (int i = 0; i < CONTAINERS; i++) {
                int node = i % NODES;
                int card = (i / NODES) % CARDS_PER_NODE;
                PodRef ref = new PodRef(namespace(i), pod(i), String.format("00000000-0000-4000-8000-%012d", i));
                PodPlacement placement = new PodPlacement(ref, node(node), PodPhase.RUNNING, true,
                        List.of(new ContainerShares(0, "main", false, List.of(new DeviceShare(uuid(cluster, node, card),
                                "NVIDIA", memoryMib(i), cores(i))))), List.of());
                ledger.putPod(placement);
                placements.get(node).add(placement);
                pods.get(node).add(new NodePod(ref, List.of("main"), Map.of(), Optional.of(placement)));
            }
            for (int team = 0; team < 40; team += 4) {
                ledger.putQuota("team-" + team, "gpu", List.of(new QuotaLimit("team-" + team, "gpu",
                        QuotaResource.GPU_MEMORY_MIB, 2_000_000)));
            }
            ledger.markSynced(System.currentTimeMillis());
            view = ledger.view();
        }

        static String node(int node) {
            return String.format("gpu-node-%03d", node);
        }

        static String uuid(int node, int card) {
            return uuid(0, node, card);
        }

        static String uuid(int cluster, int node, int card) {
            return String.format("GPU-%08x-%04x-4000-a000-%012x", node, cluster, card);
        }

        static String namespace(int container) {
            return "team-" + container % 40;
        }

        static String pod(int container) {
            return String.format("job-%05d-7c9f", container);
        }

        static long memoryMib(int container) {
            return 1024L * (2 + container % 7);
        }

        static long cores(int container) {
            return 5L * (1 + container % 2);
        }

        /** A node's usage view at {@code t}: each container uses 30–80 % of its share, varying by the hour. */
        UsageView usage(int node, long t) {
            List<ContainerUsage> usages = new ArrayList<>();
            double[] cardUsed = new double[CARDS_PER_NODE];
            double[] cardUtil = new double[CARDS_PER_NODE];
            for (PodPlacement placement : placements.get(node)) {
                DeviceShare share = placement.containers().getFirst().devices().getFirst();
                int id = Integer.parseInt(placement.pod().name().substring(4, 9));
                double level = 0.3 + 0.5 * ((id * 7919L) % 100) / 100.0;
                double wave = 1 + 0.1 * Math.sin(t / 3600.0 + id);
                long used = (long) (share.memoryMib() * 1024 * 1024 * level * wave);
                long util = Math.round(share.cores() * level * wave);
                int card = (id / NODES) % CARDS_PER_NODE;
                cardUsed[card] += used;
                cardUtil[card] += util;
                usages.add(new ContainerUsage(placement.pod().uid(), "main", List.of(new DeviceUsage(0, share.uuid(),
                        used, 300L << 20, 50L << 20, Math.max(0, used - (350L << 20)), share.memoryBytes(),
                        share.cores(), util, 1, t - 2))));
            }
            List<HostCardReading> cards = new ArrayList<>();
            for (int card = 0; card < CARDS_PER_NODE; card++) {
                cards.add(new HostCardReading(card, uuid(cluster, node, card), "NVIDIA H100 80GB HBM3",
                        OptionalLong.of((long) cardUsed[card] + (420L << 20)), OptionalLong.of(81_920L << 20),
                        OptionalDouble.of(Math.min(100, cardUtil[card])), OptionalDouble.of(20), OptionalDouble.of(50),
                        OptionalDouble.of(300), Optional.empty(), Optional.empty()));
            }
            return UsageView.compute(node(node), cards, usages, pods.get(node), Optional.empty(), t);
        }
    }
}
