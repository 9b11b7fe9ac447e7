package io.hamiobserve.demo;

import io.hamiobserve.role.scheduler.AllocationRole;
import io.hamiobserve.role.scheduler.ContainerSeries;
import io.hamiobserve.role.console.ConsoleFlags;
import io.hamiobserve.role.console.PrometheusFlags;
import io.hamiobserve.edge.Servers;
import io.hamiobserve.app.Serving;
import io.hamiobserve.role.node.UsageRole;
import io.hamiobserve.app.cli.EdgeFlags;
import io.hamiobserve.app.cli.HamiObserve;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.LegacyMetricsFlag;
import io.hamiobserve.app.cli.Subcommand;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.http.EdgeStartup;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.edge.http.MetricsSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import io.hamiobserve.role.console.PriceFlags;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/** {@code hami-observe demo}, the default: both views and the console on an embedded simulated cluster. */
@Command(name = "demo", sortOptions = false,
        description = "Both views on an embedded simulated cluster (two GPU nodes, seven cards), and the web console.")
public final class DemoCommand implements Subcommand {
    /** Where the demo's second node's usage endpoint listens unless told. */
    static final String SECOND_NODE_BIND = ":9396";
    /**
     * Where the GPU nodes' simulated dcgm-exporters listen unless told: free loopback ports, printed at
     * start, so the demo never takes a real dcgm-exporter's :9400 on the same machine.
     */
    static final String DCGM_BINDS_DEFAULT = "127.0.0.1:0, 127.0.0.1:0";
    /** Where the Ascend node's simulated exporters listen unless told: free loopback ports, printed at start. */
    static final String ASCEND_BINDS_DEFAULT = "127.0.0.1:0, 127.0.0.1:0";
    /** Where the endpoints of the clusters after the first listen: free loopback ports, printed at start. */
    static final String OTHER_CLUSTERS_BIND = "127.0.0.1:0";
    /** The key of a cluster's allocation endpoint among its endpoints. */
    private static final String SCHEDULER = "scheduler";

    @ParentCommand
    private HamiObserve hamiObserve;

    @Option(names = "--allocation-bind-address", paramLabel = "ADDR", defaultValue = AllocationRole.DEFAULT_BIND,
            description = "the allocation endpoint (default: ${DEFAULT-VALUE})")
    private String allocationBind;

    @Option(names = "--usage-bind-address", paramLabel = "ADDR", defaultValue = UsageRole.DEFAULT_BIND,
            description = "the first node's usage endpoint (default: ${DEFAULT-VALUE})")
    private String usageBind;

    @Option(names = "--demo-second-node-bind-address", paramLabel = "ADDR", defaultValue = SECOND_NODE_BIND,
            description = "the second node's usage endpoint (default: ${DEFAULT-VALUE})")
    private String secondUsageBind;

    @Option(names = "--demo-dcgm-bind-address", paramLabel = "ADDR",
            description = "where each GPU node's simulated dcgm-exporter listens, in node order (repeat the flag; "
                    + "default: " + DCGM_BINDS_DEFAULT + ")")
    private List<String> dcgmBinds = new ArrayList<>();

    @Option(names = "--demo-ascend-bind-address", paramLabel = "ADDR",
            description = "where the Ascend node's simulated exporters listen: HAMi's Ascend plugin, then npu-exporter "
                    + "(repeat the flag; default: " + ASCEND_BINDS_DEFAULT + ")")
    private List<String> ascendBinds = new ArrayList<>();

    @Option(names = "--demo-shard-bind-address", paramLabel = "ADDR",
            description = "also serve the allocation view as shards, one per address given (repeat the flag; N "
                    + "addresses make shards 0 to N-1 of N), beside the whole view")
    private List<String> shardBinds = new ArrayList<>();

    @Option(names = "--once", negatable = true, arity = "0..1", fallbackValue = "true",
            description = "print the allocation view and the first node's usage view once and exit")
    private boolean once;

    @Option(names = "--demo.clusters", paramLabel = "NAME,...", split = ",",
            description = "simulate several clusters, each with its own exporters, behind the demo's one Prometheus, "
                    + "which scrapes each cluster's with the target label cluster=NAME (at most " + DemoClusters.MOST
                    + " lower-case names; default: one cluster, no label)")
    private List<String> clustersGiven = new ArrayList<>();

    @Option(names = "--demo.prometheus", paramLabel = "auto|off", defaultValue = "auto",
            description = "start a local Prometheus with history when one is installed (auto), or read the "
                    + "simulation directly (off)")
    private LocalPrometheusChoice localPrometheus;

    @Mixin
    private PrometheusFlags prometheus;

    @Mixin
    private ConsoleFlags console;

    /** Prices for the Showback page; without any, the two the demo ships with (prices.properties). */
    @Mixin
    private PriceFlags prices;

    @Mixin
    private LegacyMetricsFlag legacy;

    @Mixin
    private EdgeFlags edge;

    /** Whether the demo's console reads a Prometheus of its own. */
    enum LocalPrometheusChoice {
        AUTO, ON, OFF
    }

    @Override
    public boolean serves() {
        return true;
    }

    @Override
    public int rank() {
        return 10;
    }

    @Override
    public boolean isDefault() {
        return true;
    }

    @Override
    public Integer call() {
        Launch launch = hamiObserve.launch();
        List<String> clusterNames = validClusterNames();
        if (!once) {
            Servers.prepare();
        }
        long began = System.nanoTime();
        DemoWorkload workload = new DemoWorkload(DemoCluster.standard(), Clock.systemUTC());
        BuildInfo build = BuildInfo.current();
        AllocationRole allocation = new AllocationRole(DemoSources.ledger(workload), legacy.on(),
                ContainerSeries.POD_EFFECTIVE, build, Shard.ALL, workload.clock());
        DemoCacheRoot cacheFiles = DemoCacheRoot.create();
        UsageRole nodeA = node(workload, DemoCluster.NODE_A, cacheFiles, build);
        UsageRole nodeB = node(workload, DemoCluster.NODE_B, cacheFiles, build);
        if (once) {
            try (allocation; nodeA; nodeB; cacheFiles) {
                allocation.start();
                nodeA.start();
                Serving.print(allocation, launch.out());
                Serving.print(nodeA, launch.out());
            }
            return 0;
        }
        EdgeConfig edgeConfig = edge.edge();
        List<String> dcgmNodes = DemoDcgm.nodes(workload.cluster());
        List<String> dcgmAt = dcgmBinds.isEmpty() ? List.of(DCGM_BINDS_DEFAULT.split(",\\s*")) : dcgmBinds;
        if (dcgmAt.size() != dcgmNodes.size()) {
            throw new ParameterException(new CommandLine(this), "--demo-dcgm-bind-address "
                    + "is given " + dcgmAt.size() + " times for " + dcgmNodes.size() + " GPU nodes " + dcgmNodes);
        }
        List<String> ascendNodes = DemoAscend.nodes(workload.cluster());
        List<DemoAscend.Exporter> ascendExporters = List.of(DemoAscend.Exporter.values());
        List<String> ascendAt = ascendBinds.isEmpty() ? List.of(ASCEND_BINDS_DEFAULT.split(",\\s*")) : ascendBinds;
        if (ascendAt.size() != ascendNodes.size() * ascendExporters.size()) {
            throw new ParameterException(new CommandLine(this), "--demo-ascend-bind-address "
                    + "is given " + ascendAt.size() + " times for " + ascendExporters.size() + " exporters on "
                    + ascendNodes);
        }
        Simulated first = new Simulated(clusterNames.get(0), workload, allocation, nodeA, nodeB, cacheFiles);
        // The first cluster's endpoints at the addresses given, the shards, then the other clusters'.
        List<String> binds = new ArrayList<>(List.of(allocationBind, usageBind, secondUsageBind));
        binds.addAll(dcgmAt);
        binds.addAll(ascendAt);
        binds.addAll(shardBinds);
        for (int other = 1; other < clusterNames.size(); other++) {
            first.keys().forEach(key -> binds.add(OTHER_CLUSTERS_BIND));
        }
        EdgeStartup.Checked checked = EdgeStartup.check(edgeConfig, binds);
        List<Simulated> clusters = new ArrayList<>(List.of(first));
        for (int ordinal = 1; ordinal < clusterNames.size(); ordinal++) {
            String name = clusterNames.get(ordinal);
            // Another cluster like the first (the same node and pod names, as real clusters' often are,
            // on cards with UUIDs of its own), with exporters of its own; its cluster label tells its
            // series apart.
            DemoWorkload other = new DemoWorkload(DemoCluster.standard(ordinal), workload.clock());
            DemoCacheRoot otherFiles = DemoCacheRoot.create();
            clusters.add(new Simulated(name, other, new AllocationRole(DemoSources.ledger(other), legacy.on(),
                    ContainerSeries.POD_EFFECTIVE, build, Shard.ALL, other.clock()),
                    node(other, DemoCluster.NODE_A, otherFiles, build),
                    node(other, DemoCluster.NODE_B, otherFiles, build),
                    otherFiles));
        }
        List<AllocationRole> shards = new ArrayList<>();
        for (int index = 0; index < shardBinds.size(); index++) {
            // Each shard reads the demo's ledger for itself, as each pod of a sharded StatefulSet does.
            shards.add(new AllocationRole(DemoSources.ledger(workload), legacy.on(), ContainerSeries.POD_EFFECTIVE,
                    build, new Shard(index, shardBinds.size()), workload.clock()).start());
        }
        clusters.forEach(Simulated::start);
        List<MetricsSource> sources = new ArrayList<>(first.sources());
        sources.addAll(shards);
        clusters.subList(1, clusters.size()).forEach(cluster -> sources.addAll(cluster.sources()));
        List<Servers.Served> servers = Servers.serveAll(checked, sources);
        List<Map<String, Servers.Served>> endpoints = new ArrayList<>();
        int next = 0;
        for (Simulated cluster : clusters) {
            Map<String, Servers.Served> served = new LinkedHashMap<>();
            for (String key : cluster.keys()) {
                served.put(key, servers.get(next++));
            }
            endpoints.add(served);
            if (cluster == first) {
                next += shards.size();
            }
        }
        Map<String, Servers.Served> firstAt = endpoints.get(0);
        Path cacheRoot = cacheFiles.path();
        launch.out().printf("""
                hami-observe demo: a simulated cluster%s with GPU nodes %s and %s, and the Ascend node %s
                  (its usage from the simulated exporters an Ascend cluster runs: HAMi's plugin and npu-exporter)
                  allocation view (scheduler):   curl http://localhost:%d/metrics
                  usage view of %s:      curl http://localhost:%d/metrics
                  usage view of %s:      curl http://localhost:%d/metrics
                  health:                        /healthz and /readyz on each port
                  HAMi-Core cache files written under %s
                  (read them: bin/hami-observe inspect-cache %s)
                """, first.name().isEmpty() ? "" : " (" + first.name() + ")", DemoCluster.NODE_A, DemoCluster.NODE_B,
                DemoCluster.NPU_NODE, firstAt.get(SCHEDULER).port(), DemoCluster.NODE_A,
                firstAt.get(DemoCluster.NODE_A).port(), DemoCluster.NODE_B, firstAt.get(DemoCluster.NODE_B).port(),
                cacheRoot, cacheRoot.resolve(DemoCluster.NODE_A).resolve("containers"));
        for (int index = 0; index < shards.size(); index++) {
            launch.out().printf("  allocation view, shard %d of %d: curl http://localhost:%d/metrics%n", index,
                    shards.size(), servers.get(first.keys().size() + index).port());
        }
        for (String node : dcgmNodes) {
            launch.out().printf("  dcgm-exporter of %s (simulated, %s form): curl http://localhost:%d/metrics%n",
                    node, DemoDcgm.formOf(node).name().toLowerCase(java.util.Locale.ROOT),
                    firstAt.get(DemoConsole.DCGM_PREFIX + node).port());
        }
        for (String node : ascendNodes) {
            for (DemoAscend.Exporter exporter : ascendExporters) {
                launch.out().printf("  %s of %s (simulated): curl http://localhost:%d/metrics%n", exporter.job, node,
                        firstAt.get(DemoConsole.ascendKey(exporter, node)).port());
            }
        }
        for (int index = 1; index < clusters.size(); index++) {
            launch.out().printf("  cluster %s (the same nodes and pods, its own exporters): %s%n",
                    clusters.get(index).name(), String.join(", ", endpoints.get(index).entrySet().stream()
                            .map(at -> at.getKey() + " on :" + at.getValue().port()).toList()));
        }
        List<Servers.Served> all = new ArrayList<>(servers);
        List<AutoCloseable> closeables = new ArrayList<>();
        clusters.forEach(cluster -> closeables.addAll(List.of(cluster.allocation(), cluster.nodeA(), cluster.nodeB())));
        closeables.addAll(shards);
        List<AutoCloseable> cacheRoots = clusters.stream().map(Simulated::cacheFiles).map(AutoCloseable.class::cast)
                .toList();
        Instant now = workload.clock().instant();
        List<DemoConsole.Cluster> consoleClusters = new ArrayList<>();
        for (int index = 0; index < clusters.size(); index++) {
            consoleClusters.add(new DemoConsole.Cluster(new DemoHistory(clusters.get(index).workload().cluster(), now,
                    clusters.get(index).name()), endpoints.get(index)));
        }
        DemoConsole.Served web;
        try {
            web = DemoConsole.start(new DemoConsole.Settings(edgeConfig, console.bind(), console.routePrefix(),
                            prometheus.backend(), prometheus.timeout(), console.prometheusExternal(),
                            localPrometheus != LocalPrometheusChoice.OFF,
                            prices.prices().isEmpty() ? DemoPrices.bundled() : prices.prices()),
                    consoleClusters, now, launch.out());
        } catch (RuntimeException failed) {
            // The console could not start (its port is taken, say): nothing of the demo keeps running.
            closeables.addAll(cacheRoots);
            Servers.shutdown(servers, closeables, Duration.ZERO);
            throw failed;
        }
        all.add(web.console().server());
        web.prometheus().ifPresent(closeables::add);
        launch.out().printf("""
                  web console:                   http://localhost:%d%s
                Started in %.1f s. Press Ctrl-C to stop.
                """, web.console().server().port(), web.console().console().home(),
                (System.nanoTime() - began) / 1e9);
        launch.out().flush();
        // The cache files go last, once no scrape can write them any more.
        closeables.addAll(cacheRoots);
        Serving.stopOnShutdown(all, closeables, edgeConfig.shutdownDrain());
        return KEEP_RUNNING;
    }

    /** The validated {@code --demo.clusters}: one cluster without a name unless several are named. */
    List<String> validClusterNames() {
        try {
            return DemoClusters.names(clustersGiven);
        } catch (IllegalArgumentException refused) {
            throw new ParameterException(new CommandLine(this), "--demo.clusters: " + refused.getMessage());
        }
    }

    /**
     * One simulated cluster's exporters: the allocation view, both GPU nodes' usage views, and the
     * vendors' exporters the demo simulates (each GPU node's dcgm-exporter, the Ascend node's two).
     */
    private record Simulated(String name, DemoWorkload workload, AllocationRole allocation, UsageRole nodeA,
                             UsageRole nodeB, DemoCacheRoot cacheFiles) {
        void start() {
            allocation.start();
            nodeA.start();
            nodeB.start();
        }

        /** Each endpoint's key ({@link DemoConsole.Cluster#endpoints}), in the order of {@link #sources}. */
        List<String> keys() {
            List<String> keys = new ArrayList<>(List.of(SCHEDULER, DemoCluster.NODE_A, DemoCluster.NODE_B));
            DemoDcgm.nodes(workload.cluster()).forEach(node -> keys.add(DemoConsole.DCGM_PREFIX + node));
            DemoAscend.nodes(workload.cluster()).forEach(node -> Stream.of(DemoAscend.Exporter.values())
                    .forEach(exporter -> keys.add(DemoConsole.ascendKey(exporter, node))));
            return keys;
        }

        List<MetricsSource> sources() {
            List<MetricsSource> sources = new ArrayList<>(List.of(allocation, nodeA, nodeB));
            DemoDcgm.nodes(workload.cluster()).forEach(node ->
                    sources.add(new DemoDcgm(workload, node, DemoDcgm.formOf(node))));
            DemoAscend.nodes(workload.cluster()).forEach(node -> Stream.of(DemoAscend.Exporter.values())
                    .forEach(exporter -> sources.add(new DemoAscend(workload, node, exporter))));
            return sources;
        }
    }

    private UsageRole node(DemoWorkload workload, String node, DemoCacheRoot root, BuildInfo build) {
        return new UsageRole(node, DemoSources.hostCards(workload, node), new DemoCacheFiles(workload, node, root),
                DemoSources.pods(workload, node), Optional.of(DemoSources.processOwners(workload)), legacy.on(),
                build, workload.clock());
    }
}
