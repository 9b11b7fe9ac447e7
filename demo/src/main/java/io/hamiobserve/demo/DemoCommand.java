package io.hamiobserve.demo;

import io.hamiobserve.app.Role;
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
import picocli.CommandLine.Command;
import io.hamiobserve.role.console.PriceFlags;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
        List<String> binds = new ArrayList<>(List.of(allocationBind, usageBind, secondUsageBind));
        binds.addAll(shardBinds);
        List<String> dcgmNodes = DemoDcgm.nodes(workload.cluster());
        List<String> dcgmAt = dcgmBinds.isEmpty() ? List.of(DCGM_BINDS_DEFAULT.split(",\\s*")) : dcgmBinds;
        if (dcgmAt.size() != dcgmNodes.size()) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), "--demo-dcgm-bind-address "
                    + "is given " + dcgmAt.size() + " times for " + dcgmNodes.size() + " GPU nodes " + dcgmNodes);
        }
        binds.addAll(dcgmAt);
        List<String> ascendNodes = DemoAscend.nodes(workload.cluster());
        List<DemoAscend.Exporter> ascendExporters = List.of(DemoAscend.Exporter.values());
        List<String> ascendAt = ascendBinds.isEmpty() ? List.of(ASCEND_BINDS_DEFAULT.split(",\\s*")) : ascendBinds;
        if (ascendAt.size() != ascendNodes.size() * ascendExporters.size()) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), "--demo-ascend-bind-address "
                    + "is given " + ascendAt.size() + " times for " + ascendExporters.size() + " exporters on "
                    + ascendNodes);
        }
        binds.addAll(ascendAt);
        EdgeStartup.Checked checked = EdgeStartup.check(edgeConfig, binds);
        List<AllocationRole> shards = new ArrayList<>();
        for (int index = 0; index < shardBinds.size(); index++) {
            // Each shard reads the demo's ledger for itself, as each pod of a sharded StatefulSet does.
            shards.add(new AllocationRole(DemoSources.ledger(workload), legacy.on(), ContainerSeries.POD_EFFECTIVE,
                    build, new Shard(index, shardBinds.size()), workload.clock()).start());
        }
        List<Role> roles = new ArrayList<>(List.of(allocation.start(), nodeA.start(), nodeB.start()));
        roles.addAll(shards);
        List<io.hamiobserve.edge.http.MetricsSource> sources = new ArrayList<>(roles);
        dcgmNodes.forEach(node -> sources.add(new DemoDcgm(workload, node, DemoDcgm.formOf(node))));
        ascendNodes.forEach(node -> ascendExporters.forEach(exporter ->
                sources.add(new DemoAscend(workload, node, exporter))));
        List<Servers.Served> servers = Servers.serveAll(checked, sources);
        Path cacheRoot = cacheFiles.path();
        launch.out().printf("""
                hami-observe demo: a simulated cluster with GPU nodes %s and %s, and the Ascend node %s
                  (its usage from the simulated exporters an Ascend cluster runs: HAMi's plugin and npu-exporter)
                  allocation view (scheduler):   curl http://localhost:%d/metrics
                  usage view of %s:      curl http://localhost:%d/metrics
                  usage view of %s:      curl http://localhost:%d/metrics
                  health:                        /healthz and /readyz on each port
                  HAMi-Core cache files written under %s
                  (read them: bin/hami-observe inspect-cache %s)
                """, DemoCluster.NODE_A, DemoCluster.NODE_B, DemoCluster.NPU_NODE, servers.get(0).port(), DemoCluster.NODE_A,
                servers.get(1).port(), DemoCluster.NODE_B, servers.get(2).port(), cacheRoot,
                cacheRoot.resolve(DemoCluster.NODE_A).resolve("containers"));
        for (int index = 0; index < shards.size(); index++) {
            launch.out().printf("  allocation view, shard %d of %d: curl http://localhost:%d/metrics%n", index,
                    shards.size(), servers.get(3 + index).port());
        }
        int firstDcgm = 3 + shards.size();
        for (int index = 0; index < dcgmNodes.size(); index++) {
            launch.out().printf("  dcgm-exporter of %s (simulated, %s form): curl http://localhost:%d/metrics%n",
                    dcgmNodes.get(index), DemoDcgm.formOf(dcgmNodes.get(index)).name().toLowerCase(java.util.Locale.ROOT),
                    servers.get(firstDcgm + index).port());
        }
        int firstAscend = firstDcgm + dcgmNodes.size();
        for (int n = 0; n < ascendNodes.size(); n++) {
            for (int e = 0; e < ascendExporters.size(); e++) {
                launch.out().printf("  %s of %s (simulated): curl http://localhost:%d/metrics%n",
                        ascendExporters.get(e).job, ascendNodes.get(n),
                        servers.get(firstAscend + n * ascendExporters.size() + e).port());
            }
        }
        Map<String, Servers.Served> endpoints = new LinkedHashMap<>();
        endpoints.put("scheduler", servers.get(0));
        endpoints.put(DemoCluster.NODE_A, servers.get(1));
        endpoints.put(DemoCluster.NODE_B, servers.get(2));
        for (int index = 0; index < dcgmNodes.size(); index++) {
            endpoints.put(DemoConsole.DCGM_PREFIX + dcgmNodes.get(index), servers.get(firstDcgm + index));
        }
        for (int n = 0; n < ascendNodes.size(); n++) {
            for (int e = 0; e < ascendExporters.size(); e++) {
                endpoints.put(DemoConsole.ascendKey(ascendExporters.get(e), ascendNodes.get(n)),
                        servers.get(firstAscend + n * ascendExporters.size() + e));
            }
        }
        List<Servers.Served> all = new ArrayList<>(servers);
        List<AutoCloseable> closeables = new ArrayList<>(List.of(allocation, nodeA, nodeB));
        closeables.addAll(shards);
        DemoConsole.Served web;
        try {
            web = DemoConsole.start(new DemoConsole.Settings(edgeConfig, console.bind(), console.routePrefix(),
                            prometheus.backend(), prometheus.timeout(), console.prometheusExternal(),
                            localPrometheus != LocalPrometheusChoice.OFF,
                            prices.prices().isEmpty() ? DemoPrices.bundled() : prices.prices()),
                    new DemoHistory(workload.cluster(), workload.clock().instant()), workload.clock().instant(),
                    endpoints, launch.out());
        } catch (RuntimeException failed) {
            // The console could not start (its port is taken, say): nothing of the demo keeps running.
            closeables.add(cacheFiles);
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
        closeables.add(cacheFiles);
        Serving.stopOnShutdown(all, closeables, edgeConfig.shutdownDrain());
        return KEEP_RUNNING;
    }

    private UsageRole node(DemoWorkload workload, String node, DemoCacheRoot root, BuildInfo build) {
        return new UsageRole(node, DemoSources.hostCards(workload, node), new DemoCacheFiles(workload, node, root),
                DemoSources.pods(workload, node), Optional.of(DemoSources.processOwners(workload)), legacy.on(),
                build, workload.clock());
    }
}
