package io.hamiobserve.app;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;
import io.hamiobserve.adapters.prometheus.PrometheusFleetHistory;
import io.hamiobserve.app.demo.DemoFleetHistory;
import io.hamiobserve.app.demo.DemoHistory;
import io.hamiobserve.app.demo.DemoPrometheus;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.console.Console;
import io.hamiobserve.console.ConsoleSettings;
import io.hamiobserve.console.RightsizeReport;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The commands around the web console: the {@code console} role, {@code rightsize}, and the
 * console the demo starts next to its endpoints. Kept apart from {@link Main} so the console's
 * wiring is in one place.
 */
final class ConsoleCommands {
    private ConsoleCommands() {
    }

    /** The console role: the web console over the Prometheus at {@code --prometheus}. */
    static int console(Options options, ConsoleOptions console, PrintStream out, PrintStream err) {
        if (console.prometheus().isEmpty()) {
            err.println("hami-observe: console needs --prometheus URL: the Prometheus that scrapes the endpoints");
            return 2;
        }
        FleetHistory history = PrometheusFleetHistory.at(console.prometheus().get(), console.prometheusTimeout());
        Served served = serve(options, console, history, Optional.empty(), console.prometheusExternal());
        out.printf("hami-observe: console on :%d%s, reading %s%n", served.server().port(), served.console().home(),
                history.description());
        out.flush();
        Main.stopOnShutdown(List.of(served.server()), List.of(), options.edge().shutdownDrain());
        return -1;
    }

    /** Right-sizing recommendations from the Prometheus at {@code --prometheus}, printed. */
    static int rightsize(ConsoleOptions console, PrintStream out, PrintStream err) {
        if (console.prometheus().isEmpty()) {
            err.println("hami-observe: rightsize needs --prometheus URL: the Prometheus that scrapes the endpoints");
            return 2;
        }
        try {
            RightsizeReport.write(PrometheusFleetHistory.at(console.prometheus().get(), console.prometheusTimeout()),
                    Instant.now(), console.window(), RightsizeReport.Format.valueOf(console.format()
                            .toUpperCase(Locale.ROOT)), out);
            return 0;
        } catch (SourceUnavailableException unavailable) {
            err.println("hami-observe: rightsize: " + unavailable.getMessage());
            return 1;
        }
    }

    /** A started console: its server and what must be closed after it. */
    record Served(Servers.Served server, Console console, Optional<AutoCloseable> prometheus) {
    }

    private static Served serve(Options options, ConsoleOptions console, FleetHistory history, Optional<String> banner,
                                Optional<URI> external) {
        ConsoleRole role = new ConsoleRole(BuildInfo.current());
        ConsoleSettings settings = ConsoleSettings.defaults().withRoutePrefix(console.routePrefix())
                .withPrometheusExternal(external).withBanner(banner);
        Console web = Console.create(role.observe(history), settings, Clock.systemUTC());
        // The console's address passes the same start-up checks as the endpoints' (busy port, TLS, limits).
        EdgeStartup.Checked checked = EdgeStartup.check(options.edge(), List.of(console.bind()));
        Servers.Served server = Servers.serveAll(checked, List.of(role), source -> web::routing).getFirst();
        web.warmUp();
        return new Served(server, web, Optional.empty());
    }

    /**
     * The demo's console: over the Prometheus given with {@code --prometheus}; else over a local
     * Prometheus filled with the simulation's history and scraping the demo (when prometheus and
     * promtool are installed and {@code --demo.prometheus} is not off); else over the simulation
     * itself. A banner on every page says which.
     *
     * @param endpoints the demo's allocation endpoint, then each node's usage endpoint, by node name
     */
    static Served demo(Options options, ConsoleOptions console, DemoHistory history, Instant now,
                       Map<String, Servers.Served> endpoints, PrintStream out) {
        if (console.prometheus().isPresent()) {
            FleetHistory prometheus = PrometheusFleetHistory.at(console.prometheus().get(), console.prometheusTimeout());
            return serve(options, console, prometheus, Optional.of("Demo console reading " + prometheus.description()
                    + ": it shows what that Prometheus holds (scrape the demo's endpoints with it to see the demo)."),
                    console.prometheusExternal());
        }
        if (console.demoPrometheus() && LocalPrometheus.binary().isPresent()) {
            try {
                String scheduler = "127.0.0.1:" + endpoints.get("scheduler").port();
                Map<String, String> nodes = new java.util.LinkedHashMap<>();
                endpoints.forEach((name, served) -> {
                    if (!name.equals("scheduler")) {
                        nodes.put(name, "127.0.0.1:" + served.port());
                    }
                });
                DemoPrometheus.Started started = DemoPrometheus.start(history, scheduler, nodes, now);
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
                FleetHistory history1 = PrometheusFleetHistory.at(prometheus.url(), console.prometheusTimeout());
                Served served = serve(options, console, history1, Optional.of("Demo: a local Prometheus ("
                        + prometheus.url() + ") scrapes the simulated cluster every "
                        + DemoPrometheus.SCRAPE_INTERVAL.toSeconds() + " s. It started with the last "
                        + DemoPrometheus.AT_ONCE.toHours() + " hours of the cluster's history and takes in the rest of "
                        + DemoHistory.LENGTH.toDays() + " days within about a minute."),
                        Optional.of(console.prometheusExternal().orElse(prometheus.url())));
                return new Served(served.server(), served.console(), Optional.of(prometheus));
            } catch (IOException failed) {
                out.println("  (no local Prometheus: " + failed.getMessage() + "; the console reads the simulation)");
            }
        }
        return serve(options, console, new DemoFleetHistory(history), Optional.of("Demo without Prometheus: "
                + "these pages read the simulation's own history through the same port a Prometheus would serve. "
                + "Install Debian's prometheus package (or pass --prometheus URL) to see them over a real one."),
                Optional.empty());
    }

    private static double seconds(Duration duration) {
        return duration.toNanos() / 1e9;
    }
}
