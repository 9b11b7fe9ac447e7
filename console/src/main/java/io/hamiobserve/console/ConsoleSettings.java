package io.hamiobserve.console;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How the console is served.
 *
 * @param routePrefix        the path it lives under behind an Ingress: "" (the root) or like "/gpu"
 * @param prometheusExternal Prometheus's address as a browser reaches it, for "open in Prometheus"
 *                           links next to each query; empty shows the queries without links
 * @param banner             a notice over every page (the demo says where its figures come from), or empty
 * @param fresh              how long the fleet's current figures are reused across requests
 * @param refresh            how often the fleet-wide answers (every container now, the window
 *                           summaries, card-hours, the cluster's trends) are read again in the
 *                           background, whether or not anyone is looking
 * @param readyTimeout       how long readiness waits for the first of those reads at start
 * @param readLimit          how long a page waits for figures being read; ten times it, the oldest
 *                           read a page joins (an older one is wedged: asked again, and makes the
 *                           console not ready)
 * @param idleAfter          how long a share may launch no kernel before the Stuck page lists it idle
 * @param prices             prices per card-hour by card model for the Showback page, or none (hours only)
 * @param summaryRefresh     how often the background refresh reads the summaries over a window again
 *                           (each container's use over the default window, the week's card-hours):
 *                           a minute more of a 14-day window moves nothing, and reading one costs
 *                           Prometheus seconds of CPU at 10,000 containers
 * @param keptWindows        the windows the pages offer besides their defaults that the background
 *                           refresh reads too, every {@code summaryRefresh} (each container's use and
 *                           the card-hours over each): their first visit is then served kept, at
 *                           the cost of reading them whether or not anyone looks; none unless told
 * @param keepVisited        how long after a visitor last asked for one of the fleet-wide pages at
 *                           another window (each container's use, or the card-hours, over it) the
 *                           background refresh goes on reading that window with the summaries: a
 *                           window in use is then served kept, one nobody looks at costs nothing;
 *                           zero reads none but the kept windows
 * @param otherWindowsRefresh how often the background refresh reads the windows the pages offer
 *                           that it reads no more often (kept or visited): every fleet-wide page
 *                           then serves its first visit at any window kept, its figures at most
 *                           this old (the page says how old); zero reads them only when visited
 */
public record ConsoleSettings(String routePrefix, Optional<URI> prometheusExternal, Optional<String> banner,
                              Duration fresh, Duration refresh, Duration readyTimeout, Duration readLimit,
                              Duration idleAfter, io.hamiobserve.domain.fleet.Prices prices,
                              Duration summaryRefresh, java.util.List<Duration> keptWindows,
                              Duration keepVisited, Duration otherWindowsRefresh) {
    /** How long without a kernel makes a share idle unless told (the N hours: a day). */
    public static final Duration DEFAULT_IDLE_AFTER = Duration.ofHours(24);
    /** How often the fleet-wide answers are read again unless told. */
    public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(60);
    /** How often the summaries over a window are read again unless told. */
    public static final Duration DEFAULT_SUMMARY_REFRESH = Duration.ofHours(1);
    /**
     * How long a window a visitor asked for is read with the summaries unless told: a working day
     * and the night after, so a window looked at daily stays kept.
     */
    public static final Duration DEFAULT_KEEP_VISITED = Duration.ofHours(24);
    /**
     * How often the other windows are read unless told: at 10,000 containers a read of all six
     * (the use over 24 hours, 7 and 30 days; the card-hours over 24 hours, 14 and 30 days) costs
     * Prometheus 36.5 CPU s, a tenth of a CPU second a refresh at this interval (docs/benchmarks.md).
     */
    public static final Duration DEFAULT_OTHER_WINDOWS_REFRESH = Duration.ofHours(6);
    /** How long readiness waits for the first read unless told. */
    public static final Duration DEFAULT_READY_TIMEOUT = Duration.ofSeconds(60);
    /** How long a page waits for figures being read unless told: three Prometheus timeouts of 10 s. */
    public static final Duration DEFAULT_READ_LIMIT = Duration.ofSeconds(30);

    public ConsoleSettings {
        routePrefix = normalise(routePrefix);
        Objects.requireNonNull(prometheusExternal);
        Objects.requireNonNull(banner);
        if (fresh.isNegative()) {
            throw new IllegalArgumentException("the freshness of cached figures cannot be negative");
        }
        if (!refresh.isPositive() || readyTimeout.isNegative()) {
            throw new IllegalArgumentException("the refresh interval must be positive and the ready timeout not negative");
        }
        Objects.requireNonNull(prices);
        if (!readLimit.isPositive()) {
            throw new IllegalArgumentException("the read limit must be positive");
        }
        if (!idleAfter.isPositive()) {
            throw new IllegalArgumentException("the idle threshold must be positive");
        }
        if (summaryRefresh.compareTo(refresh) < 0) {
            throw new IllegalArgumentException("the window summaries' refresh interval (" + summaryRefresh
                    + ") is shorter than the refresh interval (" + refresh + ")");
        }
        keptWindows = java.util.List.copyOf(keptWindows);
        if (keepVisited.isNegative()) {
            throw new IllegalArgumentException("how long a visited window is kept cannot be negative");
        }
        if (otherWindowsRefresh.isNegative()) {
            throw new IllegalArgumentException("the other windows' refresh interval cannot be negative");
        }
        // Zero: not read unless visited. Otherwise never more often than the summaries.
        if (otherWindowsRefresh.isPositive()) {
            otherWindowsRefresh = notMoreOftenThan(otherWindowsRefresh, summaryRefresh);
        }
        for (Duration window : keptWindows) {
            if (!PageKit.WINDOW_DURATIONS.contains(window)) {
                throw new IllegalArgumentException("the window " + Format.duration(window) + " is not one the "
                        + "console offers: " + String.join(", ", PageKit.WINDOWS));
            }
        }
    }

    /** Settings without prices (the Showback page shows hours only) and the default idle threshold. */
    public ConsoleSettings(String routePrefix, Optional<URI> prometheusExternal, Optional<String> banner,
                           Duration fresh, Duration refresh, Duration readyTimeout, Duration readLimit) {
        this(routePrefix, prometheusExternal, banner, fresh, refresh, readyTimeout, readLimit, DEFAULT_IDLE_AFTER,
                io.hamiobserve.domain.fleet.Prices.NONE, notMoreOftenThan(DEFAULT_SUMMARY_REFRESH, refresh),
                java.util.List.of(), DEFAULT_KEEP_VISITED, DEFAULT_OTHER_WINDOWS_REFRESH);
    }

    /** These settings with prices per card-hour for the Showback page. */
    public ConsoleSettings withPrices(io.hamiobserve.domain.fleet.Prices given) {
        return new ConsoleSettings(routePrefix, prometheusExternal, banner, fresh, refresh, readyTimeout, readLimit,
                idleAfter, given, summaryRefresh, keptWindows, keepVisited, otherWindowsRefresh);
    }

    public static ConsoleSettings defaults() {
        return new ConsoleSettings("", Optional.empty(), Optional.empty(), Duration.ofSeconds(5), DEFAULT_REFRESH,
                DEFAULT_READY_TIMEOUT, DEFAULT_READ_LIMIT, DEFAULT_IDLE_AFTER, io.hamiobserve.domain.fleet.Prices.NONE,
                DEFAULT_SUMMARY_REFRESH, java.util.List.of(), DEFAULT_KEEP_VISITED, DEFAULT_OTHER_WINDOWS_REFRESH);
    }

    public ConsoleSettings withRoutePrefix(String prefix) {
        return new ConsoleSettings(prefix, prometheusExternal, banner, fresh, refresh, readyTimeout, readLimit, idleAfter, prices, summaryRefresh, keptWindows, keepVisited, otherWindowsRefresh);
    }

    public ConsoleSettings withPrometheusExternal(Optional<URI> url) {
        return new ConsoleSettings(routePrefix, url, banner, fresh, refresh, readyTimeout, readLimit, idleAfter, prices, summaryRefresh, keptWindows, keepVisited, otherWindowsRefresh);
    }

    public ConsoleSettings withBanner(Optional<String> text) {
        return new ConsoleSettings(routePrefix, prometheusExternal, text, fresh, refresh, readyTimeout, readLimit, idleAfter, prices, summaryRefresh, keptWindows, keepVisited, otherWindowsRefresh);
    }

    public ConsoleSettings withFresh(Duration duration) {
        return new ConsoleSettings(routePrefix, prometheusExternal, banner, duration, refresh,
                readyTimeout, readLimit, idleAfter, prices, summaryRefresh, keptWindows, keepVisited, otherWindowsRefresh);
    }

    /** Refreshes every {@code interval} (the window summaries at least as seldom), ready after at most {@code timeout}. */
    public ConsoleSettings withRefresh(Duration interval, Duration timeout) {
        return new ConsoleSettings(routePrefix, prometheusExternal, banner, fresh, interval, timeout, readLimit, idleAfter,
                prices, notMoreOftenThan(summaryRefresh, interval), keptWindows, keepVisited, otherWindowsRefresh);
    }

    /** {@code summaries}, or the refresh interval where that is longer: summaries are read by a refresh. */
    private static Duration notMoreOftenThan(Duration summaries, Duration refresh) {
        return summaries.compareTo(refresh) < 0 ? refresh : summaries;
    }

    /** Reads the summaries over a window again every {@code interval}, never more often than the refresh. */
    public ConsoleSettings withSummaryRefresh(Duration interval) {
        return new ConsoleSettings(routePrefix, prometheusExternal, banner, fresh, refresh, readyTimeout, readLimit,
                idleAfter, prices, notMoreOftenThan(interval, refresh), keptWindows, keepVisited, otherWindowsRefresh);
    }

    /** Also keeps {@code windows} (besides the pages' defaults) read in the background, every summary interval. */
    public ConsoleSettings withKeptWindows(java.util.List<Duration> windows) {
        return new ConsoleSettings(routePrefix, prometheusExternal, banner, fresh, refresh, readyTimeout, readLimit,
                idleAfter, prices, summaryRefresh, windows, keepVisited, otherWindowsRefresh);
    }

    /** Whether the background refresh keeps each container's use over {@code window} in {@code scope}. */
    boolean usageKept(Duration window, io.hamiobserve.domain.fleet.FleetScope scope) {
        return scope.equals(io.hamiobserve.domain.fleet.FleetScope.EVERYTHING)
                && (window.equals(io.hamiobserve.domain.fleet.RightSizing.DEFAULT_WINDOW) || keptWindows.contains(window));
    }

    /** Whether the background refresh keeps the card-hours over {@code window}. */
    boolean cardHoursKept(Duration window) {
        return window.equals(PageContext.CARD_HOURS_WINDOW) || keptWindows.contains(window);
    }

    /** Goes on reading a window a visitor asked for, with the summaries, for {@code duration} after the last visit. */
    public ConsoleSettings withKeepVisited(Duration duration) {
        return new ConsoleSettings(routePrefix, prometheusExternal, banner, fresh, refresh, readyTimeout, readLimit,
                idleAfter, prices, summaryRefresh, keptWindows, duration, otherWindowsRefresh);
    }

    /** Reads the pages' other windows every {@code interval} (zero: only while visited), never more often than the summaries. */
    public ConsoleSettings withOtherWindowsRefresh(Duration interval) {
        return new ConsoleSettings(routePrefix, prometheusExternal, banner, fresh, refresh, readyTimeout, readLimit,
                idleAfter, prices, summaryRefresh, keptWindows, keepVisited, interval);
    }

    /** A page waits at most {@code limit} for figures being read (three of the source's timeouts is a fair bound). */
    public ConsoleSettings withReadLimit(Duration limit) {
        return new ConsoleSettings(routePrefix, prometheusExternal, banner, fresh, refresh, readyTimeout, limit, idleAfter, prices, summaryRefresh, keptWindows, keepVisited, otherWindowsRefresh);
    }

    /** Shares that launch no kernel for {@code after} or longer are listed idle on the Stuck page. */
    public ConsoleSettings withIdleAfter(Duration after) {
        return new ConsoleSettings(routePrefix, prometheusExternal, banner, fresh, refresh, readyTimeout, readLimit,
                after, prices, summaryRefresh, keptWindows, keepVisited, otherWindowsRefresh);
    }

    /**
     * A route prefix as given on the command line: empty, or a path that starts with "/" and has
     * segments of plain URL characters, none "." or ".." (a browser resolves those away, so the
     * console would be unreachable at it). Throws with a one-line reason otherwise.
     */
    public static String routePrefix(String given) {
        String prefix = given == null ? "" : given;
        if (!prefix.isEmpty() && !prefix.startsWith("/")) {
            throw new IllegalArgumentException("'" + given + "' does not start with /; a route prefix is a path "
                    + "like /gpu or /tools/gpu-console");
        }
        return normalise(prefix);
    }

    /** "/", "", "gpu", "/gpu/" → "" or "/gpu"; only path characters a URL carries plainly. */
    static String normalise(String prefix) {
        String trimmed = prefix == null ? "" : prefix.trim();
        while (trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        if (trimmed.isEmpty()) {
            return "";
        }
        if (!trimmed.startsWith("/")) {
            trimmed = "/" + trimmed;
        }
        if (!trimmed.matches("(/[A-Za-z0-9._~-]+)+") || trimmed.matches(".*/\\.{1,2}(/.*)?")) {
            throw new IllegalArgumentException("a route prefix is a path like /gpu or /tools/gpu-console: " + prefix);
        }
        return trimmed;
    }
}
