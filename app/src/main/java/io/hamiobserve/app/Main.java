package io.hamiobserve.app;

import io.hamiobserve.app.demo.DemoCluster;
import io.hamiobserve.app.demo.DemoSources;
import io.hamiobserve.app.demo.DemoWorkload;
import io.hamiobserve.app.http.ExpositionFormat;
import io.hamiobserve.app.http.MetricsSource;
import io.hamiobserve.app.metrics.BuildInfo;
import io.helidon.webserver.WebServer;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * Entry point: parses the command line, wires the adapters of the chosen role(s) to the domain
 * and starts one endpoint per role. The wiring is explicit here; tests reuse the same methods.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args, System.getenv());
        } catch (IllegalArgumentException badArguments) {
            System.err.println("hami-observe: " + badArguments.getMessage());
            System.err.print(Options.USAGE);
            System.exit(2);
            return;
        }
        int exit = run(options, System.out, System.err);
        if (exit >= 0) {
            System.exit(exit);
        }
    }

    /**
     * Runs a command. Returns the exit code for commands that finish, or -1 when servers were
     * started and the process should keep running.
     */
    static int run(Options options, PrintStream out, PrintStream err) {
        switch (options.command()) {
            case "help" -> {
                out.print(Options.USAGE);
                return 0;
            }
            case "demo" -> {
                return demo(options, out);
            }
            default -> {
                err.println("hami-observe: the " + options.command() + " command is not available in this build");
                return 2;
            }
        }
    }

    /** The demo: the embedded cluster behind the same ports the real adapters implement. */
    static int demo(Options options, PrintStream out) {
        DemoWorkload workload = new DemoWorkload(DemoCluster.standard(), Clock.systemUTC());
        BuildInfo build = BuildInfo.current();
        AllocationRole allocation = new AllocationRole(DemoSources.ledger(workload), options.legacyMetrics(), build);
        UsageRole nodeA = demoNode(workload, DemoCluster.NODE_A, options, build);
        UsageRole nodeB = demoNode(workload, DemoCluster.NODE_B, options, build);
        if (options.once()) {
            allocation.start();
            nodeA.start();
            print(allocation, out);
            print(nodeA, out);
            allocation.close();
            nodeA.close();
            nodeB.close();
            return 0;
        }
        List<WebServer> servers = new ArrayList<>();
        servers.add(Servers.serve(options.allocationBind(), allocation.start()));
        servers.add(Servers.serve(options.usageBind(), nodeA.start()));
        servers.add(Servers.serve(options.secondUsageBind(), nodeB.start()));
        out.printf("""
                hami-observe demo: a simulated cluster with nodes %s and %s
                  allocation view (scheduler):   curl http://localhost:%d/metrics
                  usage view of %s:      curl http://localhost:%d/metrics
                  usage view of %s:      curl http://localhost:%d/metrics
                  health:                        /healthz and /readyz on each port
                Press Ctrl-C to stop.
                """, DemoCluster.NODE_A, DemoCluster.NODE_B, servers.get(0).port(), DemoCluster.NODE_A,
                servers.get(1).port(), DemoCluster.NODE_B, servers.get(2).port());
        out.flush();
        stopOnShutdown(servers, List.of(allocation, nodeA, nodeB));
        return -1;
    }

    static UsageRole demoNode(DemoWorkload workload, String node, Options options, BuildInfo build) {
        return new UsageRole(node, DemoSources.hostCards(workload, node), DemoSources.containerUsage(workload, node),
                DemoSources.pods(workload, node), Optional.of(DemoSources.processOwners(workload)),
                options.legacyMetrics(), build, workload.clock());
    }

    private static void print(MetricsSource source, PrintStream out) {
        try {
            ExpositionFormat.PROMETHEUS_TEXT.writer().write(out, source.collect());
            out.flush();
        } catch (IOException failed) {
            throw new java.io.UncheckedIOException(failed);
        }
    }

    private static void stopOnShutdown(List<WebServer> servers, List<AutoCloseable> roles) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            servers.forEach(WebServer::stop);
            for (AutoCloseable role : roles) {
                try {
                    role.close();
                } catch (Exception ignored) {
                    // Shutting down: nothing useful to do with a failing close.
                }
            }
            stopped.countDown();
        }, "hami-observe-shutdown"));
    }
}
