package io.hamiobserve.app;

import io.hamiobserve.app.http.EdgeConfig;
import io.hamiobserve.app.http.MetricsEndpoint;
import io.hamiobserve.app.http.MetricsSource;
import io.hamiobserve.app.http.SlowRequestGuard;
import io.hamiobserve.app.http.WebConfig;
import io.helidon.common.configurable.Resource;
import io.helidon.common.pki.Keys;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.metrics.MetricsObserver;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Starts one Helidon server per role, so each role has its own port, limits and lifecycle. */
public final class Servers {
    private static final Logger LOG = Logger.getLogger(Servers.class.getName());

    /**
     * Request bodies are refused by the endpoint; this bound makes Helidon refuse a large one before
     * reading it, in bytes.
     */
    private static final long MAX_PAYLOAD_BYTES = 1024;

    private Servers() {
    }

    /** A started server with its endpoint, which shutdown drains. */
    public record Served(WebServer server, MetricsEndpoint endpoint, SlowRequestGuard guard) {
        public int port() {
            return server.port();
        }

        /** Stops the server at once (in-flight scrapes are cut; see {@link #shutdown} for the graceful way). */
        public void stop() {
            server.stop();
            guard.close();
        }
    }

    /** Serves {@code source} at {@code bind} with the default limits and no TLS; returns the started server. */
    public static WebServer serve(String bind, MetricsSource source) {
        return serve(bind, source, EdgeConfig.defaults()).server();
    }

    /** Serves {@code source} at {@code bind} behind {@code edge}; the server's port may be ephemeral. */
    public static Served serve(String bind, MetricsSource source, EdgeConfig edge) {
        return serve(bind, source, edge, routing -> { });
    }

    /**
     * Serves {@code source} and {@code routes} (the console's pages) at {@code bind}, behind the
     * same edge: the endpoint's filter (methods, bodies, headers, basic auth) applies to both.
     */
    public static Served serve(String bind, MetricsSource source, EdgeConfig edge,
                               Consumer<HttpRouting.Builder> routes) {
        Options.BindAddress address = Options.BindAddress.parse(bind);
        MetricsEndpoint endpoint = new MetricsEndpoint(source, edge);
        SlowRequestGuard guard = new SlowRequestGuard(edge.readTimeout());
        WebServer server = WebServer.builder()
                .host(address.host())
                .port(address.port())
                .shutdownHook(false)
                .maxPayloadSize(MAX_PAYLOAD_BYTES)
                .maxTcpConnections(edge.maxConnections())
                .idleConnectionTimeout(edge.idleTimeout())
                .idleConnectionPeriod(min(edge.idleTimeout().dividedBy(2), Duration.ofSeconds(30)))
                .shutdownGracePeriod(Duration.ofMillis(500))
                .addProtocol(Http1Config.builder()
                        .maxPrologueLength(edge.maxRequestLineBytes())
                        .maxHeadersSize(edge.maxHeaderBytes())
                        .addReceiveListener(guard)
                        .build())
                .update(builder -> edge.web().flatMap(WebConfig::tls).ifPresent(tls -> builder.tls(tls(tls))))
                .addFeature(ObserveFeature.builder()
                        .endpoint("/observe")
                        .addObserver(MetricsObserver.create())
                        .build())
                .routing(routing -> {
                    endpoint.routing(routing);
                    routes.accept(routing);
                })
                .build()
                .start();
        return new Served(server, endpoint, guard);
    }

    /** Helidon's TLS from exporter-toolkit's settings; throws {@link IllegalArgumentException} on unusable files. */
    static Tls tls(WebConfig.Tls settings) {
        try {
            Keys identity = Keys.builder().pem(pem -> pem.key(Resource.create(settings.keyFile()))
                    .certChain(Resource.create(settings.certFile()))).build();
            var builder = Tls.builder()
                    .privateKey(identity.privateKey().orElseThrow(
                            () -> new IllegalArgumentException("no private key in " + settings.keyFile())))
                    .privateKeyCertChain(identity.certChain());
            settings.clientCaFile().ifPresent(ca -> builder.trust(Keys.builder()
                    .pem(pem -> pem.certificates(Resource.create(ca))).build().certs()));
            builder.clientAuth(switch (settings.clientAuth()) {
                case NoClientCert -> TlsClientAuth.NONE;
                case RequestClientCert, VerifyClientCertIfGiven -> TlsClientAuth.OPTIONAL;
                case RequireAnyClientCert, RequireAndVerifyClientCert -> TlsClientAuth.REQUIRED;
            });
            if (settings.clientAuth() == WebConfig.ClientAuth.RequestClientCert
                    || settings.clientAuth() == WebConfig.ClientAuth.RequireAnyClientCert) {
                // These two ask for a certificate without verifying it (exporter-toolkit's meaning).
                builder.trustAll(true);
            }
            return builder.build();
        } catch (RuntimeException unusable) {
            if (unusable instanceof IllegalArgumentException) {
                throw unusable;
            }
            throw new IllegalArgumentException("cannot use the TLS files " + settings.certFile() + ", "
                    + settings.keyFile() + ": " + unusable.getMessage(), unusable);
        }
    }

    /**
     * Stops gracefully: readiness turns 503 on every endpoint, in-flight scrapes get up to
     * {@code drain} to finish, the servers stop, and only then are the roles closed (so no scrape
     * reads a closed NVML handle or cache file).
     */
    public static void shutdown(List<Served> served, List<? extends AutoCloseable> roles, Duration drain) {
        served.forEach(each -> each.endpoint().drain());
        long end = System.nanoTime() + drain.toNanos();
        try {
            for (Served each : served) {
                Duration left = Duration.ofNanos(Math.max(0, end - System.nanoTime()));
                if (!each.endpoint().awaitIdle(left)) {
                    LOG.warning("scrapes still in flight after the shutdown drain of " + drain.toMillis() + " ms");
                }
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        for (Served each : served) {
            try {
                each.stop();
            } catch (RuntimeException failed) {
                LOG.log(Level.WARNING, "stopping a server failed", failed);
            }
        }
        for (AutoCloseable role : roles) {
            try {
                role.close();
            } catch (Exception failed) {
                LOG.log(Level.WARNING, "closing a role failed", failed);
            }
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
