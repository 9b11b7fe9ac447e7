package io.hamiobserve.console;

import gg.jte.html.OwaspHtmlTemplateOutput;
import gg.jte.output.StringOutput;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.templates.JtepageGenerated;
import io.hamiobserve.console.view.Page;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The web console's routes: every page under the route prefix, GET only, HTML rendered on the
 * server from jte templates compiled at build time; the pages' tables as CSV or JSON; and a fixed
 * set of static files. Mount it on a server with {@link #routing}; the server's edge (limits,
 * TLS, basic auth) applies as it does to the endpoints.
 *
 * <p>Every response carries a strict Content-Security-Policy: scripts and styles from this origin
 * only (no inline script, no inline style, no eval), nothing embeddable elsewhere but this origin.
 */
public final class Console {
    private static final Logger LOG = Logger.getLogger(Console.class.getName());

    /** The policy of every page: the console's own files only; no inline script or style. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";
    /** The most query parameters a page request may carry (the edge bounds their length). */
    private static final int MAX_PARAMETERS = 32;

    private interface PageFunction {
        Result build(Request request) throws SourceUnavailableException;
    }

    private final ConsoleSettings settings;
    private final Clock clock;
    private final Links links;
    private final ConsolePages pages;
    private final FleetCache fleet;
    private final Assets assets = new Assets();
    /** When the background refresh started ({@link System#nanoTime}); 0 while it has not. */
    private volatile long refreshStarted;
    /** Whether the first refresh has answered (or failed): the console is then ready. */
    private volatile boolean firstRefreshDone;

    private Console(FleetHistory history, ConsoleSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.links = new Links(settings.routePrefix());
        this.fleet = new FleetCache(history, settings.fresh());
        this.pages = new ConsolePages(fleet, links, settings);
    }

    /**
     * A console over {@code history}.
     *
     * @param clock "now" for every page (a fixed clock shows the fleet at a fixed instant)
     */
    public static Console create(FleetHistory history, ConsoleSettings settings, Clock clock) {
        return new Console(history, settings, clock);
    }

    /**
     * Reads, in the background, what the fleet-wide pages need (every container now, each one's
     * use over the default window, the namespaces' accrual over a week, the cluster's trends) and
     * reads it again every {@link ConsoleSettings#refresh} whether or not anyone is looking, so a
     * visit — the first after start included — is served kept answers and never waits for a
     * fleet-wide read; each page says when its figures were read and how often they are. Until the
     * first read has answered (or {@link ConsoleSettings#readyTimeout} has passed) the console is
     * not {@link #ready}. A failure is logged and the previous answers are kept: pages say how old
     * they are, and the next refresh asks again.
     */
    public void warmUp() {
        warmUp(settings.refresh());
    }

    /** {@link #warmUp()}, reading again every {@code every}; returns the thread that does it. */
    Thread warmUp(Duration every) {
        // Kept fresh for two intervals: a refresh that takes up to one interval still lands before
        // a visitor would start a fleet-wide read of their own.
        FleetCache keeper = fleet.renewing(every.multipliedBy(2));
        refreshStarted = System.nanoTime();
        return Thread.ofVirtual().name("console-refresh").start(() -> {
            try {
                while (true) {
                    refresh(keeper);
                    firstRefreshDone = true;
                    Thread.sleep(every);
                }
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
            }
        });
    }

    private void refresh(FleetCache keeper) {
        Instant at = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        long started = System.nanoTime();
        try {
            pages.refresh(keeper, at);
            LOG.log(Level.FINE, () -> String.format("refreshed the fleet-wide figures in %.1f s",
                    (System.nanoTime() - started) / 1e9));
        } catch (SourceUnavailableException | RuntimeException failed) {
            LOG.log(Level.INFO, "refreshing the console's figures failed (the pages keep the last ones and say "
                    + "how old they are): " + failed.getMessage());
        }
    }

    /**
     * Ready once the first background read has answered or failed (a failed one leaves pages that
     * say why), or {@link ConsoleSettings#readyTimeout} after it started; always, without one.
     */
    public boolean ready() {
        long started = refreshStarted;
        return started == 0 || firstRefreshDone || System.nanoTime() - started > settings.readyTimeout().toNanos();
    }

    /** Why the console is not ready yet. */
    public String notReadyReason() {
        return "reading the fleet-wide figures from Prometheus before serving them (at most "
                + settings.readyTimeout().toSeconds() + " s)";
    }

    /** The path the console answers under: "/" or the route prefix. */
    public String home() {
        return settings.routePrefix().isEmpty() ? "/" : settings.routePrefix() + "/";
    }

    /** Adds the console's routes to a server's routing. */
    public void routing(HttpRouting.Builder routing) {
        String prefix = settings.routePrefix();
        routing.get(prefix.isEmpty() ? "/" : prefix, (request, response) -> page(request, response, "/", pages::overview))
                .get(prefix + "/", (request, response) -> page(request, response, "/", pages::overview))
                .get(prefix + "/nodes", (request, response) -> page(request, response, "/nodes", pages::nodes))
                .get(prefix + "/node", (request, response) -> page(request, response, "/node", pages::node))
                .get(prefix + "/cards", (request, response) -> page(request, response, "/cards", pages::cards))
                .get(prefix + "/card", (request, response) -> page(request, response, "/card", pages::card))
                .get(prefix + "/workloads", (request, response) -> page(request, response, "/workloads",
                        pages::workloads))
                .get(prefix + "/workload", (request, response) -> page(request, response, "/workload",
                        pages::workload))
                .get(prefix + "/namespaces", (request, response) -> page(request, response, "/namespaces",
                        pages::namespaces))
                .get(prefix + "/rightsizing", (request, response) -> page(request, response, "/rightsizing",
                        pages::rightsizing))
                .get(prefix + "/capacity", (request, response) -> page(request, response, "/capacity",
                        pages::capacity))
                .get(prefix + "/assets/{name}", this::asset);
    }

    private void page(ServerRequest request, ServerResponse response, String path, PageFunction build) {
        Map<String, String> parameters = new LinkedHashMap<>();
        for (String name : request.query().names()) {
            if (parameters.size() >= MAX_PARAMETERS) {
                break;
            }
            parameters.put(name, request.query().get(name));
        }
        Instant at = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        secure(response);
        Result result;
        try {
            result = build.build(new Request(path, parameters, at));
        } catch (SourceUnavailableException unavailable) {
            result = error(path, at, 503, "The figures cannot be read now: " + unavailable.getMessage()
                    + ". The console retries on every request; check that Prometheus is up and reachable from here, "
                    + "and that it scrapes the hami-observe endpoints.");
        } catch (RuntimeException bug) {
            LOG.log(Level.SEVERE, "rendering " + path + " failed", bug);
            result = error(path, at, 500, "This page failed to render (" + bug.getClass().getSimpleName()
                    + "); the console's log has the details.");
        }
        switch (result) {
            case Result.Html html -> {
                response.status(Status.create(html.status()));
                response.header(HeaderNames.CONTENT_TYPE, "text/html; charset=utf-8");
                response.send(render(html.page()).getBytes(StandardCharsets.UTF_8));
            }
            case Result.Export export -> {
                response.header(HeaderNames.CONTENT_TYPE, export.contentType());
                response.header(HeaderNames.CONTENT_DISPOSITION, "attachment; filename=\"" + export.fileName() + "\"");
                response.send(export.body().getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    private Result error(String path, Instant at, int status, String message) {
        return new PageKit.Builder(status == 503 ? "Figures unavailable" : "Error", path, links, settings,
                "", at).note("error", message).html(status);
    }

    private void asset(ServerRequest request, ServerResponse response) {
        String name = request.path().pathParameters().get("name");
        secure(response);
        assets.get(name).ifPresentOrElse(asset -> {
            response.header(HeaderNames.ETAG, asset.etag());
            response.header(HeaderNames.CACHE_CONTROL, "public, max-age=3600");
            if (request.headers().first(HeaderNames.IF_NONE_MATCH).map(asset.etag()::equals).orElse(false)) {
                response.status(Status.NOT_MODIFIED_304).send();
                return;
            }
            response.header(HeaderNames.CONTENT_TYPE, asset.contentType());
            response.send(asset.bytes());
        }, () -> response.status(Status.NOT_FOUND_404).send("no such file\n"));
    }

    private static void secure(ServerResponse response) {
        response.header(HeaderNames.create("Content-Security-Policy"), CONTENT_SECURITY_POLICY);
        response.header(HeaderNames.create("Referrer-Policy"), "no-referrer");
        response.header(HeaderNames.X_CONTENT_TYPE_OPTIONS, "nosniff");
        response.header(HeaderNames.CACHE_CONTROL, "no-store");
    }

    /** The page as HTML: the precompiled template, every value escaped for where it lands. */
    static String render(Page page) {
        StringOutput output = new StringOutput(16 * 1024);
        JtepageGenerated.render(new OwaspHtmlTemplateOutput(output), null, page);
        return output.toString();
    }
}
