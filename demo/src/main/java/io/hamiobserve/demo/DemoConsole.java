package io.hamiobserve.demo;

import io.hamiobserve.console.ConsoleSettings;
import io.hamiobserve.domain.fleet.Prices;

import io.hamiobserve.adapters.prometheus.BackendConfig;
import io.hamiobserve.adapters.prometheus.LocalPrometheus;
import io.hamiobserve.adapters.prometheus.PrometheusFleetHistory;
import io.hamiobserve.role.console.ConsoleServing;
import io.hamiobserve.edge.Servers;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.ports.FleetHistory;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The console the demo starts next to its endpoints: over the Prometheus given with
 * {@code --prometheus}; else over a local Prometheus filled with the simulation's history and
 * scraping the demo (when prometheus and promtool are installed and {@code --demo.prometheus} is
 * not off); else over the simulation itself. A banner on every page says which.
 */
public final class DemoConsole {
    /** The key prefix of a node's simulated dcgm-exporter among the endpoints. */
    public static final String DCGM_PREFIX = "dcgm:";

    /** The key of an Ascend node's exporter among the endpoints: its job, a colon, the node. */
    static String ascendKey(DemoAscend.Exporter exporter, String node) {
        return exporter.job + ":" + node;
    }

    private DemoConsole() {
    }

    /** A started demo console: its server and pages, and the local Prometheus to stop after it, if one runs. */
    public record Served(ConsoleServing.Served console, Optional<AutoCloseable> prometheus) {
    }

    /** Where the console is served and what it may read. */
    public record Settings(EdgeConfig edge, String bind, String routePrefix, Optional<BackendConfig> prometheus,
                           Duration prometheusTimeout, Optional<URI> prometheusExternal, boolean localPrometheus,
                           Prices prices) {
    }

    /**
     * One simulated cluster: its history and its endpoints.
     *
     * @param endpoints the cluster's allocation endpoint under "scheduler", then each node's usage
     *                  endpoint under its node's name, each NVIDIA node's dcgm-exporter under
     *                  {@link #DCGM_PREFIX} and its node's name, and each Ascend node's exporters
     *                  under {@link #ascendKey}
     */
    public record Cluster(DemoHistory history, Map<String, Servers.Served> endpoints) {
        /** Where the demo's Prometheus scrapes this cluster. */
        DemoPrometheus.Cluster targets() {
            String scheduler = "127.0.0.1:" + endpoints.get("scheduler").port();
            Map<String, String> nodes = new LinkedHashMap<>();
            Map<String, String> dcgm = new LinkedHashMap<>();
            Map<String, Map<DemoAscend.Exporter, String>> ascend = new LinkedHashMap<>();
            for (String node : DemoAscend.nodes(history.cluster())) {
                for (DemoAscend.Exporter exporter : DemoAscend.Exporter.values()) {
                    Servers.Served served = endpoints.get(ascendKey(exporter, node));
                    if (served != null) {
                        ascend.computeIfAbsent(node, key -> new java.util.EnumMap<>(DemoAscend.Exporter.class))
                                .put(exporter, "127.0.0.1:" + served.port());
                    }
                }
            }
            endpoints.forEach((name, served) -> {
                if (name.startsWith(DCGM_PREFIX)) {
                    dcgm.put(name.substring(DCGM_PREFIX.length()), "127.0.0.1:" + served.port());
                } else if (!name.equals("scheduler") && !name.contains(":")) {
                    nodes.put(name, "127.0.0.1:" + served.port());
                }
            });
            return new DemoPrometheus.Cluster(history, scheduler, nodes, dcgm, ascend);
        }
    }

    /** @param clusters the demo's simulated clusters (one, unless {@code --demo.clusters} names several) */
    public static Served start(Settings settings, List<Cluster> clusters, Instant now, PrintStream out) {
        if (settings.prometheus().isPresent()) {
            FleetHistory prometheus = PrometheusFleetHistory.at(settings.prometheus().get(),
                    settings.prometheusTimeout());
            return new Served(serve(settings, prometheus, "Demo console reading " + prometheus.description()
                    + ": it shows what that Prometheus holds (scrape the demo's endpoints with it to see the demo).",
                    settings.prometheusExternal()), Optional.empty());
        }
        if (settings.localPrometheus() && LocalPrometheus.binary().isPresent()) {
            try {
                return overLocalPrometheus(settings, clusters, now, out);
            } catch (IOException failed) {
                out.println("  (no local Prometheus: " + failed.getMessage() + "; the console reads the simulation)");
            }
        }
        // The simulation's own history is one cluster's: several clusters need a Prometheus to meet in.
        String others = clusters.size() > 1 ? " It shows the first cluster, " + clusters.get(0).history().clusterName()
                + ", only: several clusters meet in a Prometheus." : "";
        return new Served(serve(settings, new DemoFleetHistory(clusters.get(0).history()), "Demo without Prometheus: "
                + "these pages read the simulation's own history through the same port a Prometheus would serve. "
                + "Install Debian's prometheus package (or pass --prometheus URL) to see them over a real one."
                + others,
                Optional.empty()), Optional.empty());
    }

    private static Served overLocalPrometheus(Settings settings, List<Cluster> clusters, Instant now, PrintStream out)
            throws IOException {
        DemoPrometheus.Started started = DemoPrometheus.start(clusters.stream().map(Cluster::targets).toList(), now);
        LocalPrometheus prometheus = started.prometheus();
        out.printf("  local Prometheus:              %s (the last %d h of history, %,d samples, written in "
                        + "%.1f s; loaded and ready in %.1f s)%n", prometheus.url(),
                DemoPrometheus.AT_ONCE.toHours(), started.samples(), seconds(started.history()),
                seconds(started.startup()));
        long restStarted = System.nanoTime();
        started.rest().whenComplete((samples, failed) -> {
            if (failed == null) {
                out.printf("  history: the other %,d samples of %d days written and handed to Prometheus in "
                                + "%.1f s (it takes them in within a minute)%n", samples,
                        DemoHistory.LENGTH.toDays(), (System.nanoTime() - restStarted) / 1e9);
            } else {
                out.println("  history: loading the older history failed: " + failed.getMessage());
            }
            out.flush();
        });
        FleetHistory reading = PrometheusFleetHistory.at(prometheus.url(), settings.prometheusTimeout());
        String scraped = clusters.size() > 1 ? clusters.size() + " simulated clusters ("
                + String.join(", ", clusters.stream().map(cluster -> cluster.history().clusterName()).toList())
                + ", told apart by their cluster label)" : "the simulated cluster";
        ConsoleServing.Served served = serve(settings, reading, "Demo: a local Prometheus (" + prometheus.url()
                        + ") scrapes " + scraped + " every " + DemoPrometheus.SCRAPE_INTERVAL.toSeconds()
                        + " s. It started with the last " + DemoPrometheus.AT_ONCE.toHours() + " hours of the "
                        + "history and takes in the rest of " + DemoHistory.LENGTH.toDays()
                        + " days within about a minute.",
                Optional.of(settings.prometheusExternal().orElse(prometheus.url())));
        return new Served(served, Optional.of(prometheus));
    }

    private static ConsoleServing.Served serve(Settings settings, FleetHistory history, String banner,
                                               Optional<URI> external) {
        return ConsoleServing.serve(settings.edge(), settings.bind(), ConsoleSettings.defaults()
                .withRoutePrefix(settings.routePrefix()).withPrometheusExternal(external).withBanner(Optional.of(banner))
                .withPrices(settings.prices()), history);
    }

    private static double seconds(Duration duration) {
        return duration.toNanos() / 1e9;
    }
}
