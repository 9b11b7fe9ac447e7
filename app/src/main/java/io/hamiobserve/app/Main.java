package io.hamiobserve.app;

import io.hamiobserve.adapters.cachefile.CacheFileInspector;
import io.hamiobserve.adapters.cachefile.CacheFiles;
import io.hamiobserve.adapters.k8s.KubernetesSources;
import io.hamiobserve.adapters.nvml.Nvml;
import io.hamiobserve.adapters.nvml.ProcCgroupOwners;
import io.hamiobserve.app.demo.DemoCacheFiles;
import io.hamiobserve.app.demo.DemoCacheRoot;
import io.hamiobserve.app.demo.DemoCluster;
import io.hamiobserve.app.demo.DemoHistory;
import io.hamiobserve.app.demo.DemoSources;
import io.hamiobserve.app.demo.DemoWorkload;
import io.hamiobserve.app.http.ExpositionFormat;
import io.hamiobserve.app.http.MetricsSource;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.ports.HostCardSource;
import io.hamiobserve.ports.ProcessOwnerResolver;
import io.hamiobserve.ports.SchedulerLedgerSource;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Entry point: parses the command line, wires the adapters of the chosen role(s) to the domain
 * and starts one endpoint per role. The wiring is explicit here; tests reuse the same methods.
 */
public final class Main {
    /**
     * How long {@code scheduler --once} waits for a live cluster's ledger to sync; a source that has
     * failed for good (a snapshot that is not a dump) ends the wait at once.
     */
    static final Duration ONCE_SYNC_TIMEOUT = Duration.ofSeconds(60);

    private Main() {
    }

    public static void main(String[] args) {
        Options options;
        ConsoleOptions console;
        try {
            ConsoleOptions.Split split = ConsoleOptions.extract(args);
            console = split.options();
            options = Options.parse(split.rest(), System.getenv());
        } catch (IllegalArgumentException badArguments) {
            System.err.println("hami-observe: " + badArguments.getMessage());
            System.err.print(Options.USAGE + ConsoleOptions.USAGE);
            System.exit(2);
            return;
        }
        if (!options.once() && !List.of("help", "inspect-cache", "rightsize").contains(options.command())) {
            // What every server shares is set up while the roles are built (docs/deploy.md, start-up).
            Servers.prepare();
        }
        int exit;
        try {
            exit = run(options, console, System.out, System.err);
        } catch (EdgeStartup.Failure unusable) {
            System.err.println("hami-observe: " + unusable.getMessage());
            exit = 2;
        }
        if (exit >= 0) {
            System.exit(exit);
        }
    }

    /**
     * Runs a command. Returns the exit code for commands that finish, or -1 when servers were
     * started and the process should keep running.
     */
    static int run(Options options, PrintStream out, PrintStream err) {
        return run(options, ConsoleOptions.defaults(), out, err);
    }

    static int run(Options options, ConsoleOptions console, PrintStream out, PrintStream err) {
        switch (options.command()) {
            case "help" -> {
                out.print(Options.USAGE + ConsoleOptions.USAGE);
                return 0;
            }
            case "demo" -> {
                return demo(options, console, out);
            }
            case "console" -> {
                return ConsoleCommands.console(options, console, out, err);
            }
            case "rightsize" -> {
                return ConsoleCommands.rightsize(console, out, err);
            }
            case "inspect-cache" -> {
                Path path = Path.of(options.arguments().getFirst());
                if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    err.println("hami-observe: inspect-cache: no such file or directory: " + path);
                    return 1;
                }
                out.print(CacheFileInspector.describe(path, options.json()));
                out.flush();
                return 0;
            }
            case "scheduler" -> {
                return scheduler(options, out, err);
            }
            case "node" -> {
                return serveRoles(List.of(options.usageBind()), List.of(nodeRole(options, BuildInfo.current())), options, out);
            }
            case "all" -> {
                BuildInfo build = BuildInfo.current();
                return serveRoles(List.of(options.allocationBind(), options.usageBind()),
                        List.of(new AllocationRole(KubernetesSources.cluster(), options.legacyMetrics(), build),
                                nodeRole(options, build)), options, out);
            }
            default -> throw new IllegalStateException("unhandled command " + options.command());
        }
    }

    /** The scheduler role: the allocation view of a live cluster, or of a snapshot file. */
    static int scheduler(Options options, PrintStream out, PrintStream err) {
        return scheduler(options, out, err, ONCE_SYNC_TIMEOUT);
    }

    static int scheduler(Options options, PrintStream out, PrintStream err, Duration onceSyncTimeout) {
        SchedulerLedgerSource source = options.snapshot().map(KubernetesSources::snapshot)
                .orElseGet(KubernetesSources::cluster);
        AllocationRole role = new AllocationRole(source, options.legacyMetrics(), BuildInfo.current());
        if (!options.once()) {
            return serveRoles(List.of(options.allocationBind()), List.of(role), options, out);
        }
        if (options.snapshot().isEmpty()) {
            // fabric8 logs every retry with a stack trace; a one-shot command says why it failed in one line.
            java.util.logging.Logger.getLogger("io.fabric8").setLevel(java.util.logging.Level.SEVERE);
        }
        try (role) {
            role.start();
            long deadline = System.nanoTime() + onceSyncTimeout.toNanos();
            while (!role.ready()) {
                Optional<SchedulerLedgerSource.Failure> failure = role.failure();
                if (failure.isPresent() && !failure.get().retrying()) {
                    err.println("hami-observe: " + failure.get().message());
                    return 2;
                }
                if (System.nanoTime() >= deadline) {
                    err.println("hami-observe: the ledger did not sync within " + onceSyncTimeout.toSeconds() + " s"
                            + failure.map(f -> ": " + f.message()).orElse(""));
                    return 1;
                }
                Thread.sleep(50);
            }
            print(role, out);
            return 0;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /** The node role with the real adapters: NVML, HAMi-Core's cache files, the node's pods, /proc. */
    static UsageRole nodeRole(Options options, BuildInfo build) {
        Optional<ProcessOwnerResolver> owners = options.processAttribution()
                ? Optional.of(ProcCgroupOwners.of(options.procRoot()))
                : Optional.empty();
        HostCardSource cards = options.nvmlLibrary().isEmpty()
                ? Nvml.open()
                : Nvml.open(options.nvmlLibrary(), Nvml.DEFAULT_CALL_TIMEOUT);
        return new UsageRole(options.nodeName(), cards,
                CacheFiles.directory(options.hookPath().resolve("containers")),
                KubernetesSources.nodePods(options.nodeName()), owners, options.legacyMetrics(), build,
                Clock.systemUTC());
    }

    /**
     * Starts each role behind its own server and keeps running; {@code binds} pairs with {@code roles}.
     * The roles' sources start beside the servers: until a source has read its input (a snapshot,
     * the first list of an informer), a scrape answers what is known, with the ledger or the pod
     * directory reported not synced, and {@code /readyz} answers 503. Returns 1 when a source
     * cannot start at all (an unreadable snapshot).
     */
    static int serveRoles(List<String> binds, List<? extends MetricsSource> roles, Options options, PrintStream out) {
        EdgeStartup.Checked edge = EdgeStartup.check(options.edge(), binds);
        CompletableFuture<Void> started = new CompletableFuture<>();
        Thread.ofPlatform().name("hami-observe-start").start(() -> {
            try {
                for (MetricsSource role : roles) {
                    if (role instanceof AllocationRole allocation) {
                        allocation.start();
                        // A source that has given up for good (a snapshot that is not a dump) ends the start.
                        allocation.failure().filter(failure -> !failure.retrying()).ifPresent(failure -> {
                            throw new IllegalStateException(failure.message());
                        });
                    } else if (role instanceof UsageRole usage) {
                        usage.start();
                    }
                }
                started.complete(null);
            } catch (RuntimeException failed) {
                started.completeExceptionally(failed);
            }
        });
        List<AutoCloseable> closeables = new ArrayList<>();
        for (MetricsSource role : roles) {
            closeables.add((AutoCloseable) role);
        }
        List<Servers.Served> servers = Servers.serveAll(edge, roles);
        for (int i = 0; i < roles.size(); i++) {
            out.printf("hami-observe: %s view on :%d/metrics%n",
                    roles.get(i) instanceof AllocationRole ? "allocation" : "usage", servers.get(i).port());
        }
        out.flush();
        stopOnShutdown(servers, closeables, options.edge().shutdownDrain());
        try {
            started.join();
        } catch (CompletionException failed) {
            System.err.println("hami-observe: " + failed.getCause().getMessage());
            return 2;
        }
        return -1;
    }

    /** The demo: the embedded cluster behind the same ports the real adapters implement. */
    static int demo(Options options, ConsoleOptions console, PrintStream out) {
        long began = System.nanoTime();
        DemoWorkload workload = new DemoWorkload(DemoCluster.standard(), Clock.systemUTC());
        BuildInfo build = BuildInfo.current();
        AllocationRole allocation = new AllocationRole(DemoSources.ledger(workload), options.legacyMetrics(), build);
        DemoCacheRoot cacheFiles = DemoCacheRoot.create();
        Path cacheRoot = cacheFiles.path();
        UsageRole nodeA = demoNode(workload, DemoCluster.NODE_A, cacheFiles, options, build);
        UsageRole nodeB = demoNode(workload, DemoCluster.NODE_B, cacheFiles, options, build);
        if (options.once()) {
            allocation.start();
            nodeA.start();
            print(allocation, out);
            print(nodeA, out);
            allocation.close();
            nodeA.close();
            nodeB.close();
            cacheFiles.close();
            return 0;
        }
        EdgeStartup.Checked edge = EdgeStartup.check(options.edge(),
                List.of(options.allocationBind(), options.usageBind(), options.secondUsageBind()));
        List<Servers.Served> servers = Servers.serveAll(edge, List.of(allocation.start(), nodeA.start(), nodeB.start()));
        out.printf("""
                hami-observe demo: a simulated cluster with nodes %s and %s
                  allocation view (scheduler):   curl http://localhost:%d/metrics
                  usage view of %s:      curl http://localhost:%d/metrics
                  usage view of %s:      curl http://localhost:%d/metrics
                  health:                        /healthz and /readyz on each port
                  HAMi-Core cache files written under %s
                  (read them: bin/hami-observe inspect-cache %s)
                """, DemoCluster.NODE_A, DemoCluster.NODE_B, servers.get(0).port(), DemoCluster.NODE_A,
                servers.get(1).port(), DemoCluster.NODE_B, servers.get(2).port(), cacheRoot,
                cacheRoot.resolve(DemoCluster.NODE_A).resolve("containers"));
        Map<String, Servers.Served> endpoints = new java.util.LinkedHashMap<>();
        endpoints.put("scheduler", servers.get(0));
        endpoints.put(DemoCluster.NODE_A, servers.get(1));
        endpoints.put(DemoCluster.NODE_B, servers.get(2));
        List<Servers.Served> all = new ArrayList<>(servers);
        List<AutoCloseable> closeables = new ArrayList<>(List.of(allocation, nodeA, nodeB));
        ConsoleCommands.Served web;
        try {
            web = ConsoleCommands.demo(options, console, new DemoHistory(workload.cluster(),
                    workload.clock().instant()), workload.clock().instant(), endpoints, out);
        } catch (RuntimeException failed) {
            // The console could not start (its port is taken, say): nothing of the demo keeps running.
            closeables.add(cacheFiles);
            Servers.shutdown(servers, closeables, Duration.ZERO);
            throw failed;
        }
        all.add(web.server());
        web.prometheus().ifPresent(closeables::add);
        out.printf("""
                  web console:                   http://localhost:%d%s
                Started in %.1f s. Press Ctrl-C to stop.
                """, web.server().port(), web.console().home(), (System.nanoTime() - began) / 1e9);
        out.flush();
        // The cache files go last, once no scrape can write them any more.
        closeables.add(cacheFiles);
        stopOnShutdown(all, closeables, options.edge().shutdownDrain());
        return -1;
    }

    static UsageRole demoNode(DemoWorkload workload, String node, DemoCacheRoot root, Options options,
                              BuildInfo build) {
        DemoCacheFiles cacheFiles = new DemoCacheFiles(workload, node, root);
        return new UsageRole(node, DemoSources.hostCards(workload, node), cacheFiles,
                DemoSources.pods(workload, node), Optional.of(DemoSources.processOwners(workload)),
                options.legacyMetrics(), build, workload.clock());
    }

    private static void print(MetricsSource source, PrintStream out) {
        try {
            source.collect().write(out, ExpositionFormat.PROMETHEUS_TEXT.writer());
            out.flush();
        } catch (IOException failed) {
            throw new java.io.UncheckedIOException(failed);
        }
    }

    /**
     * On SIGTERM or Ctrl-C: readiness turns 503, in-flight scrapes get up to {@code drain} to
     * finish, the servers stop, then the roles release their sources (NVML, files, informers).
     */
    static void stopOnShutdown(List<Servers.Served> servers, List<AutoCloseable> roles, Duration drain) {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("hami-observe-shutdown")
                .unstarted(() -> Servers.shutdown(servers, roles, drain)));
    }
}
