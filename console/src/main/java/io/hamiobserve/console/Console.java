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

    private final ConsoleSettings settings;
    private final Clock clock;
    private final Links links;
    private final PageContext pages;
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
        this.fleet = new FleetCache(history, settings.fresh(), settings.readLimit());
        this.pages = new PageContext(fleet, links, settings);
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
     * use over the default window, a week's card-hours (showback and the namespaces' bill), the cluster's trends) and
     * reads it again every {@link ConsoleSettings#refresh} whether or not anyone is looking, so a
     * visit — the first after start included — is served kept answers and never waits for a
     * fleet-wide read; each page says when its figures were read and how often they are. Until the
     * first read has answered (or {@link ConsoleSettings#readyTimeout} has passed) the console is
     * not {@link #ready}. A failure is logged and the previous answers are kept: pages say how old
     * they are, and the next refresh asks again.
     *
     * @return the thread that reads, for the lifetime of the console; interrupting it stops the
     *         reading once the refresh in flight has ended
     */
    public Thread warmUp() {
        return warmUp(settings.refresh());
    }

    /** {@link #warmUp()}, reading again every {@code every}; returns the thread that does it. */
    Thread warmUp(Duration every) {
        // Kept fresh for two intervals: a refresh that takes up to one interval still lands before
        // a visitor would start a fleet-wide read of their own.
        FleetCache keeper = fleet.renewing(every.multipliedBy(2));
        // The summaries over a window are read every summary interval, and kept fresh as long; a
        // round of them is waited for until it answers (up to that interval), the refresh waiting
        // for it no longer than a page would (PageContext.refresh).
        FleetCache summaries = fleet.renewing(settings.summaryRefresh().multipliedBy(2), settings.summaryRefresh());
        // The pages' other windows likewise, at their own interval; none where they are read only when visited.
        FleetCache others = settings.otherWindowsRefresh().isPositive()
                ? fleet.renewing(settings.otherWindowsRefresh().multipliedBy(2), settings.summaryRefresh()) : null;
        refreshStarted = System.nanoTime();
        return Thread.ofVirtual().name("console-refresh").start(() -> {
            try {
                while (true) {
                    refresh(keeper, summaries, others);
                    firstRefreshDone = true;
                    Thread.sleep(every);
                }
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
            }
        });
    }

    private void refresh(FleetCache keeper, FleetCache summaries, FleetCache others) {
        Instant at = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        long started = System.nanoTime();
        try {
            pages.refresh(keeper, summaries, others, at);
            LOG.log(Level.FINE, () -> String.format("refreshed the fleet-wide figures in %.1f s",
                    (System.nanoTime() - started) / 1e9));
        } catch (SourceUnavailableException | RuntimeException failed) {
            LOG.log(Level.INFO, "refreshing the console's figures failed (the pages keep the last ones and say "
                    + "how old they are): " + failed.getMessage());
        }
    }

    /**
     * Ready once the first background read has answered or failed (a failed one leaves pages that
     * say why), or {@link ConsoleSettings#readyTimeout} after it started; always, without one —
     * and not while a read is wedged (in flight for {@link FleetCache#WEDGED_FACTOR} times its
     * asker's wait, {@link ConsoleSettings#readLimit} for a page's): pages would not answer in
     * time. Prometheus refusing or failing fast leaves it ready: pages then answer at once, with
     * the kept figures and their age, or a page that says what failed.
     * (Liveness, {@code /healthz}, says only that the process answers: restarting it would not
     * mend Prometheus.)
     */
    public boolean ready() {
        long started = refreshStarted;
        return (started == 0 || firstRefreshDone || System.nanoTime() - started > settings.readyTimeout().toNanos())
                && fleet.wedged().isEmpty();
    }

    /** Why the console is not ready. */
    public String notReadyReason() {
        return fleet.wedged().orElseGet(() -> "reading the fleet-wide figures from Prometheus before serving them "
                + "(at most " + settings.readyTimeout().toSeconds() + " s)");
    }

    /** The path the console answers under: "/" or the route prefix. */
    public String home() {
        return settings.routePrefix().isEmpty() ? "/" : settings.routePrefix() + "/";
    }

    /** Adds the console's routes to a server's routing: every page and file answers GET and HEAD alike. */
    public void routing(HttpRouting.Builder routing) {
        String prefix = settings.routePrefix();
        for (ConsolePage declared : ConsolePages.ALL) {
            String path = declared.path();
            io.helidon.webserver.http.Handler handler = (request, response) -> page(request, response, declared);
            for (String route : path.equals("/") ? (prefix.isEmpty() ? java.util.List.of("/")
                    : java.util.List.of(prefix, prefix + "/")) : java.util.List.of(prefix + path)) {
                routing.get(route, handler).head(route, handler);
            }
        }
        routing.get(prefix + "/assets/{name}", this::asset).head(prefix + "/assets/{name}", this::asset);
    }

    /** What is wrong with a request's parameters before any figure is read, or empty. */
    static java.util.Optional<String> refused(Map<String, String> parameters) {
        for (Map.Entry<String, String> parameter : parameters.entrySet()) {
            for (String text : new String[] {parameter.getKey(), parameter.getValue()}) {
                // Percent-decoding turns bytes that are not UTF-8 into U+FFFD; a literal U+FFFD names nothing either.
                if (text.indexOf('\uFFFD') >= 0 || text.chars().anyMatch(c -> Character.isSurrogate((char) c)
                        && !validSurrogates(text)) || text.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                    return java.util.Optional.of("The parameter \"" + printable(parameter.getKey()) + "\" is not "
                            + "valid UTF-8 text (it holds bytes that decode to no character, or control characters); "
                            + "nothing was asked of Prometheus.");
                }
            }
        }
        String window = parameters.getOrDefault("window", "");
        if (!window.isEmpty() && !PageKit.WINDOWS.contains(window)) {
            return java.util.Optional.of("The window \"" + printable(window) + "\" is not one the console offers: "
                    + String.join(", ", PageKit.WINDOWS) + ".");
        }
        return java.util.Optional.empty();
    }

    private static boolean validSurrogates(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** A parameter quoted back: short, and without what it could not carry. */
    private static String printable(String text) {
        String plain = text.replaceAll("[\\p{Cntrl}\uFFFD\\p{Cs}]", "?");
        return plain.length() <= 60 ? plain : plain.substring(0, 60) + "…";
    }

    private void page(ServerRequest request, ServerResponse response, ConsolePage declared) {
        String path = declared.path();
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
        java.util.Optional<String> refusal = refused(parameters);
        // A page of one cluster is built over that cluster's reads, with links that carry it.
        PageContext context = pages;
        String cluster = parameters.getOrDefault(Links.CLUSTER, "");
        if (refusal.isEmpty() && !cluster.isEmpty()) {
            java.util.Optional<PageContext> narrowed = pages.inCluster(cluster);
            if (narrowed.isPresent()) {
                context = narrowed.get();
            } else {
                java.util.List<String> known = pages.clusters();
                refusal = java.util.Optional.of("The cluster \"" + printable(cluster) + "\" is not one the source "
                        + "holds" + (known.isEmpty() ? " (its series carry no cluster label)"
                        : ": " + String.join(", ", known)) + "; nothing was asked of Prometheus.");
            }
        }
        try (AutoCloseable tracked = context.fleet().track()) {
            result = refusal.isPresent() ? error(context.links(), path, at, 400, refusal.get())
                    : declared.handler().apply(context).build(new Request(path, parameters, at));
        } catch (Exception unavailable) {
            result = failed(context.links(), path, at, unavailable);
        }
        boolean head = request.prologue().method() == io.helidon.http.Method.HEAD;
        switch (result) {
            case Result.Html html -> {
                response.status(Status.create(html.status()));
                response.header(HeaderNames.CONTENT_TYPE, "text/html; charset=utf-8");
                send(response, render(html.page()).getBytes(StandardCharsets.UTF_8), head);
            }
            case Result.Export export -> {
                response.header(HeaderNames.CONTENT_TYPE, export.contentType());
                response.header(HeaderNames.CONTENT_DISPOSITION, "attachment; filename=\"" + export.fileName() + "\"");
                send(response, export.body().getBytes(StandardCharsets.UTF_8), head);
            }
        }
    }

    /** The body, or for HEAD its length only (Helidon would send a body given to a HEAD response). */
    private static void send(ServerResponse response, byte[] body, boolean head) {
        if (head) {
            response.header(HeaderNames.CONTENT_LENGTH, Integer.toString(body.length));
            response.send();
        } else {
            response.send(body);
        }
    }

    private Result failed(Links links, String path, Instant at, Exception failure) {
        Result result;
        try {
            throw failure;
        } catch (SourceUnavailableException unavailable) {
            result = error(links, path, at, 503, "The figures cannot be read now: " + unavailable.getMessage()
                    + ". The console retries on every request; check that Prometheus is up and reachable from here, "
                    + "and that it scrapes the hami-observe endpoints.");
        } catch (Exception bug) {
            LOG.log(Level.SEVERE, "rendering " + path + " failed", bug);
            result = error(links, path, at, 500, "This page failed to render (" + bug.getClass().getSimpleName()
                    + "); the console's log has the details.");
        }
        return result;
    }

    /** An error page; its links keep the cluster of the page asked for. */
    private Result error(Links links, String path, Instant at, int status, String message) {
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
            send(response, asset.bytes(), request.prologue().method() == io.helidon.http.Method.HEAD);
        }, () -> {
            response.status(Status.NOT_FOUND_404);
            send(response, "no such file\n".getBytes(StandardCharsets.UTF_8),
                    request.prologue().method() == io.helidon.http.Method.HEAD);
        });
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
