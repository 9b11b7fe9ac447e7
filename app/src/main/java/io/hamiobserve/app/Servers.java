package io.hamiobserve.app;

import io.hamiobserve.app.http.MetricsEndpoint;
import io.hamiobserve.app.http.MetricsSource;
import io.helidon.webserver.WebServer;

/** Starts one Helidon server per role, so each role has its own port, limits and lifecycle. */
public final class Servers {
    private Servers() {
    }

    /** Serves {@code source} at {@code bind}; returns the started server (its port may be ephemeral). */
    public static WebServer serve(String bind, MetricsSource source) {
        Options.BindAddress address = Options.BindAddress.parse(bind);
        MetricsEndpoint endpoint = new MetricsEndpoint(source);
        return WebServer.builder()
                .host(address.host())
                .port(address.port())
                .shutdownHook(false)
                .routing(endpoint::routing)
                .build()
                .start();
    }
}
