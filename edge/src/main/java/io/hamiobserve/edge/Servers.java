package io.hamiobserve.edge;

import io.hamiobserve.edge.http.EdgeStartup;
import io.hamiobserve.edge.http.ConnectionGuard;
import io.hamiobserve.edge.http.BindAddress;
import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.edge.http.GuardedHttp1;
import io.hamiobserve.edge.http.MetricsEndpoint;
import io.hamiobserve.edge.http.MetricsSource;
import io.hamiobserve.edge.http.TlsFiles;
import io.hamiobserve.edge.http.WebConfig;
import io.hamiobserve.edge.startup.StartupTimeline;
import io.helidon.service.registry.GlobalServiceRegistry;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.observe.metrics.MetricsObserver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
     * of the process. Its creation sets up Helidon's configuration and Micrometer's registry with the
     * JVM meters, nothing a {@code /metrics} scrape needs: each server is built and started without
     * it and serves {@code /observe} once it is ready ({@link ObservedRouting}). Helidon's service
     * registry, which the observer's creation starts first, is what every server's routing needs
     * (its mappers), so it starts from the beginning of {@code main} on a thread of its own.
     */
    private static final CompletableFuture<MetricsObserver> OBSERVER = new CompletableFuture<>();
    private static final AtomicBoolean OBSERVER_STARTED = new AtomicBoolean();
    /** How long the observer's set-up waits for the first answered scrape and the sources' start at most. */
    private static final Duration OBSERVER_DEFERRAL = Duration.ofSeconds(1);

    private Servers() {
    }

    /**
     * Starts setting up Helidon's metrics observer on a thread of its own, so that it runs beside the
     * roles being built; every server serves {@code /observe} once it is ready. Without this call,
     * the first serve starts it.
     */
    public static void prepare() {
        if (OBSERVER_STARTED.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name("hami-observe-prepare").start(() -> {
                try {
                    // First the registry alone: what every server's build waits for (its routing's mappers).
                    GlobalServiceRegistry.registry();
                    StartupTimeline.mark("Helidon service registry ready");
                    awaitStartPath();
                    MetricsObserver observer = MetricsObserver.create();
                    ConnectionGuard.registerMeters();
                    StartupTimeline.mark("Helidon metrics observer ready");
                    OBSERVER.complete(observer);
                } catch (Throwable failed) {
                    LOG.log(Level.WARNING, "Helidon's metrics observer could not be set up; /observe is not served",
                            failed);
                    OBSERVER.completeExceptionally(failed);
                }
            });
        }
    }

    /**
     * Waits until the process has answered its first scrape and its roles' sources have started
     * (the scheduler's snapshot read into the ledger), or {@link #OBSERVER_DEFERRAL} has passed: on
     * two cores the observer's set-up beside either delays it, and the JVM figures at
     * {@code /observe} matter less than the ledger (docs/deploy.md, start-up).
     */
    private static void awaitStartPath() throws InterruptedException {
        try {
            CompletableFuture.allOf(StartupTimeline.firstAnswered(), StartupTimeline.sourcesStarted())
                    .get(OBSERVER_DEFERRAL.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException notYet) {
            // Set up now: /observe is served even where nothing scrapes /metrics.
        }
    }

    /** Serves {@code /observe} on {@code server} through {@code routing} once the observer is ready. */
    private static void observeWhenReady(ObservedRouting routing, WebServer server) {
        prepare();
        OBSERVER.whenComplete((observer, failed) -> {
            if (failed != null) {
                routing.unavailable(String.valueOf(failed instanceof CompletionException ? failed.getCause() : failed));
                return;
            }
            try {
                routing.observe(observer, server);
            } catch (RuntimeException setup) {
                LOG.log(Level.WARNING, "serving /observe failed", setup);
                routing.unavailable(setup.toString());
            }
        });
    }

    /** A started server with its endpoint, which shutdown drains. */
    public record Served(WebServer server, MetricsEndpoint endpoint, ConnectionGuard guard,
                         CompletableFuture<Void> observing, Runnable onStop) {
        public int port() {
            return server.port();
        }

        /**
         * Waits until {@code /observe} is served (Helidon's metrics observer set up after the
         * server's start); false when {@code limit} passed first or it cannot be served.
         */
        public boolean awaitObserving(Duration limit) throws InterruptedException {
            try {
                observing.get(limit.toMillis(), TimeUnit.MILLISECONDS);
                return true;
            } catch (ExecutionException | TimeoutException notServed) {
                return false;
            }
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
        return servers.stream().map(served -> new Served(served.server(), served.endpoint(), served.guard(), served.observing(), () -> {
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
        ObservedRouting routing = new ObservedRouting(builder -> {
            endpoint.routing(builder);
            routes.accept(builder);
        });
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
                    // No feature found by the service loader either: Helidon's observe feature would
                    // set its observer up before the server listens (ObservedRouting serves it after).
                    .featuresDiscoverServices(false)
                    .routing(routing.builder())
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
        observeWhenReady(routing, server);
        return new Served(server, endpoint, guard, routing.observing(), () -> { });
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
