package io.hamiobserve.app;

import io.hamiobserve.app.http.EdgeStartup;
import io.hamiobserve.app.http.ConnectionGuard;
import io.hamiobserve.app.http.BindAddress;
import io.hamiobserve.app.http.EdgeConfig;
import io.hamiobserve.app.http.GuardedHttp1;
import io.hamiobserve.app.http.MetricsEndpoint;
import io.hamiobserve.app.http.MetricsSource;
import io.hamiobserve.app.http.TlsFiles;
import io.hamiobserve.app.http.WebConfig;
import io.hamiobserve.app.startup.StartupTimeline;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.metrics.MetricsObserver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
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

    /**
     * Helidon's metrics observer (the JVM figures at {@code /observe/metrics}), one for every server
     * of the process. Its first creation sets up Helidon's service registry and configuration and
     * Micrometer's registry with the JVM meters: about as long as the rest of a start together
     * (measured with JFR, docs/deploy.md), and nothing a first {@code /metrics} scrape needs.
     */
    private static final CompletableFuture<MetricsObserver> OBSERVER = new CompletableFuture<>();
    private static final AtomicBoolean OBSERVER_STARTED = new AtomicBoolean();

    private Servers() {
    }

    /**
     * Starts setting up what every server shares on a thread of its own, so that it runs beside the
     * roles being built; {@link #serve} waits for it. Without this call, the first serve does it.
     */
    public static void prepare() {
        if (OBSERVER_STARTED.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name("hami-observe-prepare").start(() -> {
                try {
                    OBSERVER.complete(MetricsObserver.create());
                    StartupTimeline.mark("Helidon metrics observer ready");
                } catch (Throwable failed) {
                    OBSERVER.completeExceptionally(failed);
                }
            });
        }
    }

    private static MetricsObserver observer() {
        prepare();
        try {
            return OBSERVER.join();
        } catch (CompletionException failed) {
            throw failed.getCause() instanceof RuntimeException cause ? cause : failed;
        }
    }

    /** A started server with its endpoint, which shutdown drains. */
    public record Served(WebServer server, MetricsEndpoint endpoint, ConnectionGuard guard, Runnable onStop) {
        public int port() {
            return server.port();
        }

        /** Stops the server at once (in-flight scrapes are cut; see {@link #shutdown} for the graceful way). */
        public void stop() {
            server.stop();
            guard.close();
            onStop.run();
        }
    }

    /** Serves {@code source} at {@code bind} with the default limits and no TLS; returns the started server. */
    public static WebServer serve(String bind, MetricsSource source) {
        return serve(bind, source, EdgeConfig.defaults()).server();
    }

    /**
     * Serves each source at its checked bind address, all or none: when one cannot start, those
     * started are stopped and the {@link EdgeStartup.Failure} is thrown. With TLS, a renewed
     * certificate is served without a restart ({@link TlsReload}).
     */
    public static List<Served> serveAll(EdgeStartup.Checked checked, List<? extends MetricsSource> sources) {
        return serveAll(checked, sources, source -> routing -> { });
    }

    /**
     * As {@link #serveAll(EdgeStartup.Checked, List)}, each source with the extra routes
     * {@code routesOf} gives it (the console's pages), behind the same edge: the endpoint's filter
     * (methods, bodies, headers, basic auth) applies to them too.
     */
    public static List<Served> serveAll(EdgeStartup.Checked checked, List<? extends MetricsSource> sources,
                                        Function<MetricsSource, Consumer<HttpRouting.Builder>> routesOf) {
        if (checked.binds().size() != sources.size()) {
            throw new IllegalArgumentException(checked.binds().size() + " binds for " + sources.size() + " sources");
        }
        List<Served> servers = new ArrayList<>();
        try {
            for (int i = 0; i < sources.size(); i++) {
                servers.add(serve(checked.binds().get(i), sources.get(i), checked.edge(),
                        routesOf.apply(sources.get(i))));
            }
        } catch (RuntimeException failed) {
            servers.forEach(Served::stop);
            throw failed;
        }
        Optional<WebConfig.Tls> tls = checked.edge().web().flatMap(WebConfig::tls);
        if (tls.isEmpty()) {
            return servers;
        }
        TlsReload reload = new TlsReload(TlsFiles.read(tls.get()),
                servers.stream().map(Served::server).toList(), TlsReload.PERIOD);
        return servers.stream().map(served -> new Served(served.server(), served.endpoint(), served.guard(), () -> {
            served.onStop().run();
            reload.close();
        })).toList();
    }

    /**
     * Serves {@code source} at {@code bind} behind {@code edge}; the server's port may be ephemeral.
     * Throws {@link EdgeStartup.Failure} when the server does not listen, and
     * {@link IllegalArgumentException} for unusable TLS files.
     */
    public static Served serve(String bind, MetricsSource source, EdgeConfig edge) {
        return serve(bind, source, edge, routing -> { });
    }

    /** Serves {@code source} and the extra {@code routes} at {@code bind} behind {@code edge}. */
    public static Served serve(String bind, MetricsSource source, EdgeConfig edge,
                               Consumer<HttpRouting.Builder> routes) {
        StartupTimeline.mark("web server building");
        BindAddress address = BindAddress.parse(bind);
        MetricsEndpoint endpoint = new MetricsEndpoint(source, edge);
        ConnectionGuard guard = new ConnectionGuard(edge.readTimeout(), edge.maxConnections());
        Http1Config http1 = Http1Config.builder()
                .maxPrologueLength(edge.maxRequestLineBytes())
                .maxHeadersSize(edge.maxHeaderBytes())
                .addReceiveListener(guard)
                .addSendListener(guard.responses())
                .build();
        WebServer server;
        try {
            server = WebServer.builder()
                    .host(address.host())
                    .port(address.port())
                    .shutdownHook(false)
                    .maxPayloadSize(MAX_PAYLOAD_BYTES)
                    .maxTcpConnections(edge.maxConnections())
                    .idleConnectionTimeout(edge.idleTimeout())
                    // Checked often, so an idle connection closes within a second of its timeout.
                    .idleConnectionPeriod(min(edge.idleTimeout().dividedBy(4), Duration.ofSeconds(1)))
                    .shutdownGracePeriod(Duration.ofMillis(500))
                    // The guarded selector is the only one: no protocol found by the service loader is added.
                    .protocolsDiscoverServices(false)
                    .addConnectionSelector(new GuardedHttp1(http1, guard))
                    .update(builder -> edge.web().flatMap(WebConfig::tls)
                            .ifPresent(tls -> builder.tls(TlsFiles.read(tls).tls())))
                    .addFeature(ObserveFeature.builder()
                            .endpoint("/observe")
                            .addObserver(observer())
                            .build())
                    .routing(routing -> {
                        endpoint.routing(routing);
                        routes.accept(routing);
                    })
                    .build()
                    .start();
        } catch (RuntimeException failed) {
            guard.close();
            throw failed;
        }
        StartupTimeline.mark("web server listening");
        if (!server.isRunning() || server.port() <= 0) {
            // Helidon logs the cause and carries on without the listener; this endpoint must not.
            server.stop();
            guard.close();
            throw new EdgeStartup.Failure("cannot listen on " + bind);
        }
        return new Served(server, endpoint, guard, () -> { });
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
