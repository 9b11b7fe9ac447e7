package io.hamiobserve.edge;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.ListenerConfig;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http.ErrorHandler;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.HttpFeature;
import io.helidon.webserver.http.HttpRoute;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.HttpSecurity;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.metrics.MetricsObserver;
import io.helidon.webserver.spi.ServerFeature;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One server's routing, which serves Helidon's observe endpoints ({@code /observe/metrics}, the
 * JVM figures) from the moment Helidon's metrics observer is ready, and everything else from the
 * server's start. Setting the observer up (Helidon's configuration and Micrometer's registry with
 * the JVM meters) is a large part of a process's start and nothing a {@code /metrics} scrape needs;
 * Helidon sets its features up when a server is built, so a server built with the observer waits
 * for it. This routing is built without it: until {@link #observe} it answers {@code /observe} and
 * below with 503 and a line saying why; then it routes every request through a routing built as
 * Helidon's {@link ObserveFeature} builds a server's (the same routes, the observer's request
 * counting filter over every route, its endpoints), so {@code /observe/metrics} answers as a
 * server built with the feature answers.
 */
final class ObservedRouting implements HttpRouting {
    static final String ENDPOINT = "/observe";

    private final Consumer<HttpRouting.Builder> routes;
    private final HttpRouting unobserved;
    private final CompletableFuture<Void> observing = new CompletableFuture<>();
    private volatile HttpRouting current;
    private volatile String unavailable = "Helidon's metrics observer is still starting; " + ENDPOINT
            + " answers once it is ready, within seconds of the start\n";

    /** The routing of {@code routes}, with {@code /observe} and below answering 503 until {@link #observe}. */
    ObservedRouting(Consumer<HttpRouting.Builder> routes) {
        this.routes = routes;
        HttpRouting.Builder builder = HttpRouting.builder();
        routes.accept(builder);
        builder.any(ENDPOINT, this::unavailable).any(ENDPOINT + "/*", this::unavailable);
        this.unobserved = builder.build();
        this.current = unobserved;
    }

    /**
     * What a server's configuration takes as its HTTP routing: a routing builder whose build is this
     * routing. Helidon builds each listener's routing from the one HTTP routing builder it is given
     * (a routing of another builder type beside it would be one of two HTTP routings, and the
     * listener would take either); nothing else is called on it, since the server gets no features.
     */
    HttpRouting.Builder builder() {
        return new BuiltBuilder(this);
    }

    /**
     * A routing builder that only hands out the routing it was made with. A class of its own, not
     * a dynamic proxy: generating a proxy class for this interface (its many route methods) on a
     * cold JVM took tens of milliseconds on the path to a server's first answer, and an AOT cache
     * does not hold a proxy class.
     */
    private record BuiltBuilder(HttpRouting routing) implements HttpRouting.Builder {
        @Override
        public HttpRouting build() {
            return routing;
        }

        @Override
        public HttpRouting.Builder register(HttpService... services) {
            throw built("register");
        }

        @Override
        public HttpRouting.Builder register(String path, HttpService... services) {
            throw built("register");
        }

        @Override
        public HttpRouting.Builder route(HttpRoute route) {
            throw built("route");
        }

        @Override
        public HttpRouting.Builder addFilter(Filter filter) {
            throw built("addFilter");
        }

        @Override
        public HttpRouting.Builder addFeature(Supplier<? extends HttpFeature> feature) {
            throw built("addFeature");
        }

        @Override
        public <T extends Throwable> HttpRouting.Builder error(Class<T> exceptionClass,
                                                               ErrorHandler<? super T> handler) {
            throw built("error");
        }

        @Override
        public HttpRouting.Builder maxReRouteCount(int maxReRouteCount) {
            throw built("maxReRouteCount");
        }

        @Override
        public HttpRouting.Builder security(HttpSecurity security) {
            throw built("security");
        }

        @Override
        public HttpRouting.Builder copy() {
            throw built("copy");
        }

        @Override
        public String toString() {
            return "the builder of " + routing;
        }

        private static UnsupportedOperationException built(String method) {
            return new UnsupportedOperationException("the routing is built already; " + method
                    + " is not served by this builder");
        }
    }

    /** Completes once {@code /observe} is served, or exceptionally when it cannot be. */
    CompletableFuture<Void> observing() {
        return observing;
    }

    /** Serves {@code observer}'s endpoints on {@code server} from now on. */
    void observe(MetricsObserver observer, WebServer server) {
        HttpRouting.Builder builder = HttpRouting.builder();
        routes.accept(builder);
        ObserveFeature.builder()
                .endpoint(ENDPOINT)
                .addObserver(observer)
                .build()
                .setup(new FeatureContext(server.prototype(), builder));
        HttpRouting observed = builder.build();
        observed.beforeStart();
        observed.afterStart(server);
        current = observed;
        observing.complete(null);
    }

    /** {@code /observe} stays unavailable, for {@code reason}. */
    void unavailable(String reason) {
        unavailable = "Helidon's metrics observer could not be set up (" + reason + "); " + ENDPOINT
                + " is not served by this process\n";
        observing.completeExceptionally(new IllegalStateException(reason));
    }

    private void unavailable(ServerRequest request, ServerResponse response) {
        response.status(Status.SERVICE_UNAVAILABLE_503)
                .header(HeaderValues.CONTENT_TYPE_TEXT_PLAIN)
                .header(HeaderNames.RETRY_AFTER, "1")
                .send(unavailable);
    }

    @Override
    public void route(ConnectionContext ctx, RoutingRequest request, RoutingResponse response) {
        current.route(ctx, request, response);
    }

    @Override
    public HttpSecurity security() {
        return current.security();
    }

    @Override
    public void beforeStart() {
        unobserved.beforeStart();
    }

    @Override
    public void afterStart(WebServer server) {
        unobserved.afterStart(server);
    }

    @Override
    public void afterStop() {
        HttpRouting last = current;
        last.afterStop();
        if (last != unobserved) {
            unobserved.afterStop();
        }
    }

    /**
     * What {@link ObserveFeature#setup} is given at a server's build: the server's configuration and
     * its one socket's routing, which here is the routing being built.
     */
    private record FeatureContext(WebServerConfig serverConfig, HttpRouting.Builder routing)
            implements ServerFeature.ServerFeatureContext {
        @Override
        public Set<String> sockets() {
            return Set.of(WebServer.DEFAULT_SOCKET_NAME);
        }

        @Override
        public boolean socketExists(String socket) {
            return WebServer.DEFAULT_SOCKET_NAME.equals(socket);
        }

        @Override
        public ServerFeature.SocketBuilders socket(String socket) {
            if (!socketExists(socket)) {
                throw new IllegalArgumentException("no socket " + socket + " here, only "
                        + WebServer.DEFAULT_SOCKET_NAME);
            }
            return new ServerFeature.SocketBuilders() {
                @Override
                public ListenerConfig listener() {
                    return serverConfig;
                }

                @Override
                public HttpRouting.Builder httpRouting() {
                    return routing;
                }

                @Override
                public ServerFeature.RoutingBuilders routingBuilders() {
                    return new ServerFeature.RoutingBuilders() {
                        @Override
                        public boolean hasRouting(Class<?> type) {
                            return type == HttpRouting.class;
                        }

                        @Override
                        @SuppressWarnings("unchecked")
                        public <T extends io.helidon.common.Builder<T, ?>> T routingBuilder(Class<T> type) {
                            if (type.isInstance(routing)) {
                                return (T) routing;
                            }
                            throw new IllegalArgumentException("only the HTTP routing is built here, not " + type);
                        }
                    };
                }
            };
        }
    }
}
