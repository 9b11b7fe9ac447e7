package io.hamiobserve.edge.http;

import io.hamiobserve.edge.startup.StartupTimeline;
import io.hamiobserve.exposition.ExpositionFormat;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One role's HTTP face: {@code /metrics} (GET and HEAD; Prometheus text by default, OpenMetrics
 * when asked, gzip when accepted), {@code /healthz} and {@code /readyz}.
 *
 * <p>The edge, in the order a request meets it: OPTIONS answers 204 with the allowed methods (a
 * load balancer's health check); any other method but GET and HEAD answers 405; a request
 * body 413 (and the connection closes); more than {@link EdgeConfig#maxHeaderCount()} headers 431;
 * without valid basic auth (when users are configured) 401, or 503 while too many credentials are
 * being checked ({@link BasicAuth}), except on the probe paths. Every response carries
 * {@code X-Content-Type-Options: nosniff}. A scrape beyond {@link EdgeConfig#maxConcurrentScrapes()}
 * answers 503 at once, and a scrape whose exposition is not ready by its deadline answers 503.
 * Concurrent scrapes share one collection and one rendering per variant (see {@link Renderings}).
 * After {@link #drain()}, {@code /readyz} answers 503 while scrapes are still served.
 */
public final class MetricsEndpoint {
    private static final Logger LOG = Logger.getLogger(MetricsEndpoint.class.getName());
    private static final Status HEADER_FIELDS_TOO_LARGE = Status.create(431, "Request Header Fields Too Large");
    private static final String ALLOWED_METHODS = "GET, HEAD, OPTIONS";
    private static final String SCRAPE_TIMEOUT_HEADER = "X-Prometheus-Scrape-Timeout-Seconds";
    /** The body of a 500: stable, short, and naming no exception (the log has the detail). */
    static final String RENDERING_FAILED = "the exposition could not be rendered; the exporter's log has the detail\n";

    private final MetricsSource source;
    private final EdgeConfig edge;
    private final Renderings renderings;
    private final Semaphore scrapeSlots;
    private final Optional<BasicAuth> auth;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean draining;

    public MetricsEndpoint(MetricsSource source) {
        this(source, EdgeConfig.defaults());
    }

    public MetricsEndpoint(MetricsSource source, EdgeConfig edge) {
        this.source = source;
        this.edge = edge;
        this.renderings = new Renderings(source, edge.scrapeTimeout());
        this.scrapeSlots = new Semaphore(edge.maxConcurrentScrapes());
        this.auth = edge.web().filter(web -> !web.users().isEmpty()).map(BasicAuth::new);
    }

    /** Adds this endpoint's filter and routes. */
    public void routing(HttpRouting.Builder routing) {
        routing.addFilter(this::filter)
                .get("/metrics", this::metrics)
                .head("/metrics", this::metrics)
                .get("/healthz", (request, response) -> answer(request, response, Status.OK_200, "ok\n"))
                .head("/healthz", (request, response) -> answer(request, response, Status.OK_200, "ok\n"))
                .get("/readyz", this::readiness)
                .head("/readyz", this::readiness);
    }

    private void filter(FilterChain chain, RoutingRequest request, RoutingResponse response) {
        response.header(HeaderNames.X_CONTENT_TYPE_OPTIONS, "nosniff");
        Method method = request.prologue().method();
        if (method == Method.OPTIONS && !request.content().hasEntity()) {
            // HAProxy's default health check is "OPTIONS / HTTP/1.0" and counts only 2xx/3xx as up.
            // The answer names the methods and nothing else, so it needs no credentials.
            response.header(HeaderNames.ALLOW, ALLOWED_METHODS);
            response.status(Status.NO_CONTENT_204).send();
            return;
        }
        if (method != Method.GET && method != Method.HEAD) {
            response.header(HeaderNames.ALLOW, ALLOWED_METHODS);
            answer(request, response, Status.METHOD_NOT_ALLOWED_405, "only GET and HEAD are served here\n");
            return;
        }
        if (request.content().hasEntity()) {
            // The body is not read: the connection cannot carry another request after it.
            response.header(HeaderValues.CONNECTION_CLOSE);
            answer(request, response, Status.REQUEST_ENTITY_TOO_LARGE_413, "requests carry no body here\n");
            return;
        }
        if (request.headers().size() > edge.maxHeaderCount()) {
            answer(request, response, HEADER_FIELDS_TOO_LARGE, "more than " + edge.maxHeaderCount() + " header fields\n");
            return;
        }
        if (auth.isPresent() && !isProbe(request.path().path())) {
            switch (auth.get().check(request.headers().first(HeaderNames.AUTHORIZATION))) {
                case ALLOWED -> { }
                case REFUSED -> {
                    response.header(HeaderNames.WWW_AUTHENTICATE, "Basic realm=\"hami-observe\", charset=\"UTF-8\"");
                    answer(request, response, Status.UNAUTHORIZED_401, "unauthorized\n");
                    return;
                }
                case BUSY -> {
                    response.header(HeaderNames.RETRY_AFTER, "1");
                    answer(request, response, Status.SERVICE_UNAVAILABLE_503,
                            "too many credential checks at once, try again\n");
                    return;
                }
            }
        }
        chain.proceed();
    }

    /** Kubelet probes cannot easily carry credentials and reveal nothing but liveness. */
    private static boolean isProbe(String path) {
        return path.equals("/healthz") || path.equals("/readyz");
    }

    private void readiness(ServerRequest request, ServerResponse response) {
        if (draining) {
            answer(request, response, Status.SERVICE_UNAVAILABLE_503, "not ready: shutting down\n");
        } else if (source.ready()) {
            answer(request, response, Status.OK_200, "ready\n");
        } else {
            answer(request, response, Status.SERVICE_UNAVAILABLE_503, "not ready: " + source.notReadyReason() + "\n");
        }
    }

    private void metrics(ServerRequest request, ServerResponse response) {
        if (!scrapeSlots.tryAcquire()) {
            // As node_exporter does: refuse at once rather than queue work Prometheus will give up on.
            answer(request, response, Status.SERVICE_UNAVAILABLE_503, "limit of " + edge.maxConcurrentScrapes()
                    + " concurrent scrapes reached, try again later\n");
            return;
        }
        inFlight.incrementAndGet();
        try {
            scrape(request, response);
        } finally {
            inFlight.decrementAndGet();
            scrapeSlots.release();
        }
    }

    private void scrape(ServerRequest request, ServerResponse response) {
        long started = System.nanoTime();
        StartupTimeline.mark("first /metrics request");
        ExpositionFormat format = ExpositionFormat.negotiate(
                request.headers().first(HeaderNames.ACCEPT).orElse(null));
        boolean gzip = request.headers().first(HeaderNames.ACCEPT_ENCODING)
                .map(MetricsEndpoint::acceptsGzip).orElse(false);
        Duration deadline = edge.deadline(request.headers().first(HeaderNames.create(SCRAPE_TIMEOUT_HEADER)));
        // Held until the body is written: its arrays then go to a later body (see BodyArrays).
        try (Renderings.Lease lease = renderings.lease(new Renderings.Variant(format, gzip))) {
            serve(request, response, format, gzip, deadline, started, lease.body());
        }
    }

    private void serve(ServerRequest request, ServerResponse response, ExpositionFormat format, boolean gzip,
                       Duration deadline, long started, java.util.concurrent.Future<Body> rendered) {
        Body body;
        try {
            body = rendered.get(deadline.toNanos() - (System.nanoTime() - started), TimeUnit.NANOSECONDS);
        } catch (TimeoutException late) {
            answer(request, response, Status.SERVICE_UNAVAILABLE_503,
                    "the exposition was not ready within the scrape deadline of " + deadline.toMillis() + " ms\n");
            return;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            answer(request, response, Status.SERVICE_UNAVAILABLE_503, "shutting down\n");
            return;
        } catch (ExecutionException failure) {
            // A bug, not bad data (bad data is skipped and counted by the sources). The detail goes to
            // the log only: an exception's class and message can carry data a scraper should not see.
            LOG.log(Level.SEVERE, "collecting or rendering the exposition failed", failure.getCause());
            answer(request, response, Status.INTERNAL_SERVER_ERROR_500, RENDERING_FAILED);
            return;
        }
        response.header(HeaderNames.CONTENT_TYPE, format.contentType());
        response.header(HeaderNames.VARY, "Accept, Accept-Encoding");
        if (gzip) {
            response.header(HeaderNames.CONTENT_ENCODING, "gzip");
        }
        response.header(HeaderNames.CONTENT_LENGTH, Long.toString(body.length()));
        if (request.prologue().method() == Method.HEAD) {
            response.send();
            return;
        }
        // Helidon writes to the socket before write returns (its write queue is off, the default),
        // so no array of the body is read once the stream is closed.
        try (OutputStream out = response.outputStream()) {
            body.writeTo(out);
        } catch (IOException | UncheckedIOException gone) {
            // The scraper went away mid-body (timeout, restart): nothing to answer any more.
            LOG.log(Level.FINE, "the client closed the connection while the exposition was sent", gone);
        }
        StartupTimeline.firstAnswer();
    }

    /**
     * Answers with a short plain-text body; a HEAD request gets the same status and headers and no
     * body (Helidon sends a body given to a HEAD response).
     */
    private static void answer(ServerRequest request, ServerResponse response, Status status, String text) {
        response.status(status);
        if (request.prologue().method() == Method.HEAD) {
            response.header(HeaderNames.CONTENT_TYPE, "text/plain; charset=UTF-8");
            response.header(HeaderNames.CONTENT_LENGTH, Integer.toString(text.getBytes(StandardCharsets.UTF_8).length));
            response.send();
        } else {
            response.send(text);
        }
    }

    /**
     * Renders the exposition now, as Prometheus asks for it (OpenMetrics, gzip), and waits for it: a
     * scrape that finds the source's state unchanged is then served from that rendering, and one
     * after a change renders only what changed (a role keeps its segments). For a source with a
     * {@linkplain MetricsSource#stateStamp() state stamp}; one without renders at every scrape anyway.
     */
    public void renderAhead() throws InterruptedException {
        try {
            renderings.body(new Renderings.Variant(ExpositionFormat.OPENMETRICS_TEXT, true)).get();
        } catch (ExecutionException failure) {
            // The scrape that finds the same failure answers 500 and logs it.
            LOG.log(Level.FINE, "rendering ahead of the first scrape failed", failure.getCause());
        }
    }

    /** From now on {@code /readyz} answers 503; scrapes are still served until the server stops. */
    public void drain() {
        draining = true;
    }

    /** Scrapes of {@code /metrics} being answered now. */
    public int inFlight() {
        return inFlight.get();
    }

    /** Waits until no scrape is in flight or {@code bound} has passed; returns whether none is. */
    public boolean awaitIdle(Duration bound) throws InterruptedException {
        long end = System.nanoTime() + bound.toNanos();
        while (inFlight.get() > 0) {
            if (System.nanoTime() >= end) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    /** How many times the source was collected (concurrent scrapes of unchanged state share one). */
    public long collections() {
        return renderings.collections();
    }

    /** How many bodies were rendered (one per variant and collection at most). */
    public long renderings() {
        return renderings.renderings();
    }

    /** How many body arrays were reused from earlier bodies no scrape was reading any more. */
    public long reusedBodyArrays() {
        return renderings.reusedBodyArrays();
    }

    static boolean acceptsGzip(String acceptEncoding) {
        for (String coding : acceptEncoding.split(",")) {
            String[] parts = coding.trim().split(";");
            if (parts[0].trim().equalsIgnoreCase("gzip")) {
                for (int i = 1; i < parts.length; i++) {
                    String parameter = parts[i].trim().replace(" ", "");
                    if (parameter.equals("q=0") || parameter.matches("q=0\\.0*")) {
                        return false;
                    }
                }
                return true;
            }
        }
        return false;
    }
}
