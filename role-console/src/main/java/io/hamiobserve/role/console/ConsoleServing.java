package io.hamiobserve.role.console;

import io.hamiobserve.edge.Servers;
import io.hamiobserve.edge.http.EdgeStartup;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.console.Console;
import io.hamiobserve.console.ConsoleSettings;
import io.hamiobserve.ports.FleetHistory;

import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * The web console served over a fleet history, behind the same edge as the endpoints (busy port,
 * TLS, limits, basic auth): the {@code console} command's, and the demo's.
 */
public final class ConsoleServing {
    private ConsoleServing() {
    }

    /** A started console: its server, and the pages it serves. */
    public record Served(Servers.Served server, Console console) {
    }

    /**
     * @param banner   a line on every page saying what the console reads, when that needs saying
     * @param external Prometheus's address as a browser reaches it, for "open in Prometheus" links
     */
    public static Served serve(EdgeConfig edge, String bind, String routePrefix, FleetHistory history,
                               Optional<String> banner, Optional<URI> external) {
        return serve(edge, bind, ConsoleSettings.defaults().withRoutePrefix(routePrefix)
                .withPrometheusExternal(external).withBanner(banner), history);
    }

    /** The console with {@code settings} (route prefix, links, banner, refresh interval, ready timeout). */
    public static Served serve(EdgeConfig edge, String bind, ConsoleSettings settings, FleetHistory history) {
        ConsoleRole role = new ConsoleRole(BuildInfo.current());
        Console web = Console.create(role.observe(history), settings, Clock.systemUTC());
        role.readyWhen(web::ready, web::notReadyReason);
        EdgeStartup.Checked checked = EdgeStartup.check(edge, List.of(bind));
        Servers.Served server = Servers.serveAll(checked, List.of(role), source -> web::routing).getFirst();
        web.warmUp();
        return new Served(server, web);
    }
}
