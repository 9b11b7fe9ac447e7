package io.hamiobserve.console;

import io.hamiobserve.console.view.Link;
import io.hamiobserve.console.view.Note;
import io.hamiobserve.console.view.Page;
import io.hamiobserve.console.view.QueryView;
import io.hamiobserve.console.view.Section;
import io.hamiobserve.console.view.Tiles;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Provenance;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What every page shares: its request, its frame, its list of queries, and its headline tiles. */
final class PageKit {
    /** The windows a page's {@code window} parameter may name. */
    static final List<String> WINDOWS = List.of("24h", "7d", "14d", "30d");
    /** The same windows as durations. */
    static final List<Duration> WINDOW_DURATIONS = WINDOWS.stream().map(PageKit::window).flatMap(Optional::stream)
            .toList();

    private PageKit() {
    }

    /** A page request: its path under the prefix, its query parameters (first value each), its instant. */
    record Request(String path, Map<String, String> parameters, Instant at) {
        String get(String name) {
            return parameters.getOrDefault(name, "");
        }

        /** The table export this request asks for ({@code export=workloads.csv}), if any. */
        Optional<String[]> export() {
            String export = get("export");
            int dot = export.lastIndexOf('.');
            if (dot <= 0) {
                return Optional.empty();
            }
            String format = export.substring(dot + 1);
            return format.equals("csv") || format.equals("json")
                    ? Optional.of(new String[] {export.substring(0, dot), format}) : Optional.empty();
        }
    }

    /** What a page answers: HTML, or one of its tables as a file. */
    sealed interface Result {
        record Html(Page page, int status) implements Result {
        }

        record Export(String body, String contentType, String fileName) implements Result {
        }
    }

    /**
     * Assembles one page: sections in order, and every query behind them once; and the state of its
     * figures, in one of four wordings (docs/console.md): fresh (only the status line), stale and
     * being read again, a read that failed (with its query and error), or no data at all.
     */
    static final class Builder {
        /**
         * Figures older than this many refresh intervals are stale: the background refresh keeps
         * its answers fresh for two intervals, so a fleet-wide page is never older unless a read is late.
         */
        private static final int STALE_REFRESHES = 2;

        private final String title;
        private final String path;
        private final Links links;
        private final ConsoleSettings settings;
        private final String source;
        private Instant at;
        private Duration refreshEvery;
        /** How often the summaries over a window are read again in the background. */
        private Duration summariesEvery;
        /** When the summaries over a window this page shows were read; null when it shows none. */
        private Instant summariesAt;
        private Instant requested;
        private java.util.function.Supplier<Optional<FleetCache.Failure>> failure = Optional::empty;
        private boolean noData;
        private final List<Link> crumbs = new ArrayList<>();
        private final List<Section> sections = new ArrayList<>();
        private final Map<String, QueryView> queries = new LinkedHashMap<>();
        private final Map<Measure, String> anchors = new EnumMap<>(Measure.class);

        Builder(String title, String path, Links links, ConsoleSettings settings, String source, Instant at) {
            this.title = title;
            this.path = path;
            this.links = links;
            this.settings = settings;
            this.source = source;
            this.at = at;
        }

        /**
         * The page also shows a summary over a window read at {@code other}: it says the older of
         * its instants. One the background refresh keeps ({@code readEvery}: how often it reads it
         * again, the summary interval for the default window of every container) is judged old
         * against that interval, any other against the refresh's.
         */
        Builder describes(Instant other, Optional<Duration> readEvery) {
            if (readEvery.isEmpty()) {
                if (other.isBefore(at)) {
                    at = other;
                }
                return this;
            }
            if (summariesAt == null || other.isBefore(summariesAt)) {
                summariesAt = other;
            }
            if (summariesEvery == null || readEvery.get().compareTo(summariesEvery) > 0) {
                summariesEvery = readEvery.get();
            }
            return this;
        }

        /**
         * The figures are read again every {@code every} in the background, the summaries over a
         * window every {@code summaries}; the page is asked at {@code now}.
         */
        Builder refreshed(Duration every, Duration summaries, Instant now) {
            this.refreshEvery = every;
            if (summariesEvery == null || summaries.compareTo(summariesEvery) > 0) {
                this.summariesEvery = summaries;
            }
            this.requested = now;
            return this;
        }

        /** The last failure among the reads behind this page, if the last attempt of one failed. */
        Builder failures(java.util.function.Supplier<Optional<FleetCache.Failure>> lastFailure) {
            this.failure = lastFailure;
            return this;
        }

        /** Prometheus answered every query, and holds none of the exporters' series. */
        Builder noData(boolean none) {
            this.noData = none;
            return this;
        }

        Builder crumb(String text, String href) {
            crumbs.add(new Link(text, href, false));
            return this;
        }

        Builder add(Section section) {
            sections.add(section);
            return this;
        }

        Builder note(String tone, String text) {
            return add(new Note(tone, text));
        }

        /** Lists the queries behind a set of measures; returns their anchors. */
        Map<Measure, String> queries(Map<Measure, Provenance> provenance) {
            provenance.forEach((measure, query) -> anchors.put(measure, anchor(query)));
            return anchors;
        }

        Map<Measure, String> anchors() {
            return anchors;
        }

        /** Lists one query; returns its anchor. */
        String anchor(Provenance query) {
            String anchor = "q-" + query.name().replaceAll("[^A-Za-z0-9_-]", "_");
            queries.computeIfAbsent(anchor, key -> new QueryView(key, query.name(), query.expression(),
                    settings.prometheusExternal().map(url -> prometheusLink(url, query.expression())).orElse(null)));
            return anchor;
        }

        Result html() {
            return html(200);
        }

        Result html(int status) {
            List<Link> nav = ConsolePages.NAVIGATION.stream().map(page -> new Link(page.navigation().orElseThrow(),
                    links.to(page), page.covers(path))).toList();
            List<Section> shown = new ArrayList<>(sections);
            String refreshed = "";
            Instant oldest = summariesAt != null && summariesAt.isBefore(at) ? summariesAt : at;
            if (refreshEvery != null) {
                refreshed = "refreshed every " + Format.duration(refreshEvery) + (summariesAt != null
                        && !summariesEvery.equals(refreshEvery) ? ", its summaries over a window every "
                        + Format.duration(summariesEvery) : "");
                Duration age = Duration.between(oldest, requested);
                // Each kind of figure is old past two of its own intervals.
                boolean stale = Duration.between(at, requested).compareTo(refreshEvery.multipliedBy(STALE_REFRESHES)) > 0
                        || (summariesAt != null && Duration.between(summariesAt, requested)
                        .compareTo(summariesEvery.multipliedBy(STALE_REFRESHES)) > 0);
                String old = Format.duration(age.isNegative() ? Duration.ZERO : age.truncatedTo(ChronoUnit.SECONDS));
                Optional<FleetCache.Failure> failed = failure.get();
                if (failed.isPresent()) {
                    // The last attempt to read these figures again failed: say which query, and why.
                    shown.addFirst(new Note("warning", "These figures are " + old + " old: reading them again "
                            + "from Prometheus failed (last at " + failed.get().at().truncatedTo(ChronoUnit.SECONDS)
                            + "): " + failed.get().message() + ". The console keeps these and retries every "
                            + Format.duration(refreshEvery) + "."));
                } else if (stale) {
                    // Old, and no read has failed: they are being read again; nothing to blame.
                    shown.addFirst(new Note("info", "These figures are " + old + " old and are being read "
                            + "again; every read so far has succeeded. Reload in a moment for newer ones."));
                }
            }
            if (noData) {
                shown.addFirst(new Note("info", "No data: " + (source.isEmpty() ? "the source" : source)
                        + " answered every query, but holds none of the exporters' series (no card, no "
                        + "container, no exporter reporting its sources). Check that it scrapes the "
                        + "hami-observe (or HAMi) endpoints; docs/console.md lists what it needs."));
            }
            return new Result.Html(new Page(title, nav, List.copyOf(crumbs), settings.banner().orElse(null),
                    List.copyOf(shown), List.copyOf(queries.values()), source,
                    oldest.truncatedTo(ChronoUnit.SECONDS).toString(), links.asset(""), refreshed), status);
        }
    }

    /** Prometheus's graph page with the expression filled in, in its table tab. */
    static String prometheusLink(URI external, String expression) {
        String base = external.toString();
        return (base.endsWith("/") ? base : base + "/") + "graph?g0.expr=" + Links.encode(expression)
                + "&g0.tab=1";
    }

    static Tiles.Tile tile(String label, Figure figure, Format.Kind kind, String detail, String tone, String query) {
        return new Tiles.Tile(label, Format.figure(figure, kind), detail, figure.isKnown() ? tone : "",
                figure instanceof Figure.Missing missing ? missing.why().explanation() : null, query);
    }

    /** "24h", "7d", "14d" and the like; empty for anything else. */
    static Optional<Duration> window(String text) {
        if (text == null || !text.matches("[1-9][0-9]{0,3}[hd]")) {
            return Optional.empty();
        }
        long amount = Long.parseLong(text.substring(0, text.length() - 1));
        Duration duration = text.endsWith("d") ? Duration.ofDays(amount) : Duration.ofHours(amount);
        return duration.compareTo(Duration.ofDays(90)) <= 0 ? Optional.of(duration) : Optional.empty();
    }
}
