package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.console.PageKit.Builder;
import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.console.view.Choices;
import io.hamiobserve.console.view.Facts;
import io.hamiobserve.console.view.Link;
import io.hamiobserve.console.view.TableView;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Recommendation;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.TimeRange;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.Workload;
import io.hamiobserve.ports.SourceUnavailableException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the pages over the fleet share, written once: the page frame over a {@link FleetState}, the
 * window and trend-range choices, the charts of a trend set, tables and their CSV/JSON export,
 * and the recommendations behind a workload table. A page extends it and implements
 * {@link #build}; it is declared by a {@link ConsolePage} and listed in {@link ConsolePages}.
 */
abstract class FleetPage implements ConsolePage.Handler {
    final FleetCache fleet;
    final Links links;
    final ConsoleSettings settings;
    private final PageContext context;

    FleetPage(PageContext context) {
        this.context = context;
        this.fleet = context.fleet();
        this.links = context.links();
        this.settings = context.settings();
    }

    /** What this page is built over: the whole source, or one cluster of it. */
    PageContext context() {
        return context;
    }

    /**
     * {@code table} with each row's cluster first where this page spans several clusters (a source
     * that tells them apart, no cluster selected), each row's links carrying its cluster so that
     * they open that cluster's node, card or workload (a row named by two clusters, whose card
     * UUID both register, links as the page does); unchanged for one cluster or a page of one.
     */
    <R> Table<R> withCluster(Table<R> table, java.util.function.Function<R, String> cluster) {
        if (!spansClusters()) {
            return table;
        }
        return Columns.withCluster(table, cluster, (href, name) -> context.clusters().contains(name)
                ? links.inCluster(href, name) : href);
    }

    /**
     * {@code table}, whose rows name their cluster in a column of their own ({@code cluster}, as the
     * per-workload recommendations, which {@code rightsize} prints with a fixed set of fields), with
     * that column only where this page spans several clusters, as {@link #withCluster} adds one.
     */
    <R> Table<R> clusterColumnWhereSpanning(Table<R> table) {
        return spansClusters() ? table : table.without(Columns.CLUSTER);
    }

    /** Whether this page lists the rows of several clusters: a source that tells them apart, none selected. */
    private boolean spansClusters() {
        return context.clusters().size() >= 2 && context.cluster().isEmpty();
    }

    /**
     * A page over {@code state}, whose figures describe its instant (earlier than the request when
     * served from the cache); it says when the source holds none of the exporters' series.
     */
    Builder page(String title, Request request, FleetState state) {
        Builder page = new Builder(title, request.path(), links, settings, fleet.history().description(), state.at())
                .failures(fleet::failureOfThisRequest)
                .noData(state.cards().isEmpty() && state.workloads().isEmpty() && !state.health().reported());
        if (context.clusters().size() > 1 || context.cluster().isPresent()) {
            page.add(clusterChoices(request));
        }
        return context.refreshing() ? page.refreshed(settings.refresh(), settings.summaryRefresh(), request.at()) : page;
    }

    /** The cluster selector: all of them, or one; each keeps the rest of the page's state. */
    private Choices clusterChoices(Request request) {
        List<Link> options = new ArrayList<>();
        options.add(new Link("All", links.to(request.path(), with(request.parameters(), Links.CLUSTER, "")),
                context.cluster().isEmpty()));
        for (String cluster : context.clusters()) {
            options.add(new Link(cluster, links.to(request.path(), with(request.parameters(), Links.CLUSTER, cluster)),
                    context.cluster().filter(cluster::equals).isPresent()));
        }
        return new Choices("Cluster", options);
    }

    /**
     * Each of {@code workloads}' recommendation, by the row itself: two clusters' rows of one
     * namespace/pod/container are two workloads (their own cards), each with its own advice.
     */
    Map<Workload, Recommendation> recommendations(Request request, List<Workload> workloads, Builder page,
                                                  FleetScope scope) throws SourceUnavailableException {
        UsageHistory usage = fleet.usage(request.at(), window(request), RightSizing.MIN_HISTORY, scope);
        page.describes(usage.at(), context().usageKept(window(request), scope)).queries(usage.provenance());
        List<Recommendation> advice = RightSizing.recommendAll(workloads, usage);
        Map<Workload, Recommendation> byRow = new LinkedHashMap<>();
        for (int i = 0; i < workloads.size(); i++) {
            byRow.put(workloads.get(i), advice.get(i));
        }
        return byRow;
    }

    static Duration window(Request request) {
        return window(request, RightSizing.DEFAULT_WINDOW);
    }

    static Duration window(Request request, Duration fallback) {
        return PageKit.window(request.get("window")).orElse(fallback);
    }

    static String windowLabel(Request request) {
        return Format.duration(window(request));
    }

    Choices windowChoices(Request request) {
        return windowChoices(request, Format.duration(RightSizing.DEFAULT_WINDOW));
    }

    Choices windowChoices(Request request, String fallback) {
        String current = request.get("window").isEmpty() ? fallback : request.get("window");
        return new Choices("Window", PageKit.WINDOWS.stream().map(label -> new Link(label,
                links.to(request.path(), with(request.parameters(), "window", label)), label.equals(current)))
                .toList());
    }

    static TimeRange range(Request request, TimeRange fallback) {
        return TimeRange.parse(request.get("range")).orElse(fallback);
    }

    Choices rangeChoices(Request request, TimeRange current) {
        List<Link> options = new ArrayList<>();
        for (TimeRange range : TimeRange.values()) {
            options.add(new Link(range.label(), links.to(request.path(), with(request.parameters(), "range",
                    range.label())), range == current));
        }
        return new Choices("Trend range", options);
    }

    static Map<String, String> with(Map<String, String> parameters, String key, String value) {
        Map<String, String> copy = new LinkedHashMap<>(parameters);
        copy.put(key, value);
        copy.remove("export");
        return copy;
    }

    /** Memory and compute charts (plus temperature and power for a card) of a trend set. */
    void charts(Builder page, String id, TrendSet trends, String note) {
        long[] times = times(trends);
        page.add(Charts.chart(id + "-memory", "Memory: allocated vs used", Charts.Unit.BYTES, times,
                lines(trends, Measure.TREND_MEMORY_TOTAL, "total", "total", Measure.TREND_MEMORY_ALLOCATED,
                        "allocated", "allocated", Measure.TREND_MEMORY_USED, "used", "used"), List.of(),
                anchors(page, trends, Measure.TREND_MEMORY_TOTAL, Measure.TREND_MEMORY_ALLOCATED,
                        Measure.TREND_MEMORY_USED), note));
        page.add(Charts.chart(id + "-compute", "Compute: allocated vs used", Charts.Unit.PERCENT, times,
                lines(trends, Measure.TREND_CORES_ALLOCATED, "allocated", "allocated", Measure.TREND_UTILISATION,
                        "used", "used"), List.of(),
                anchors(page, trends, Measure.TREND_CORES_ALLOCATED, Measure.TREND_UTILISATION), ""));
        if (!trends.of(Measure.TREND_TEMPERATURE).isEmpty()) {
            page.add(Charts.chart(id + "-temperature", "Temperature", Charts.Unit.CELSIUS, times,
                    lines(trends, Measure.TREND_TEMPERATURE, "temperature", "temperature"), List.of(),
                    anchors(page, trends, Measure.TREND_TEMPERATURE), ""));
            page.add(Charts.chart(id + "-power", "Power", Charts.Unit.WATTS, times,
                    lines(trends, Measure.TREND_POWER, "power", "power"), List.of(),
                    anchors(page, trends, Measure.TREND_POWER), ""));
        }
    }

    /** Lines of a trend set: triples of measure, label and style. */
    static List<Charts.Line> lines(TrendSet trends, Object... triples) {
        List<Charts.Line> lines = new ArrayList<>();
        for (int i = 0; i < triples.length; i += 3) {
            for (Trend trend : trends.of((Measure) triples[i])) {
                lines.add(new Charts.Line((String) triples[i + 1], (String) triples[i + 2], trend));
            }
        }
        return lines;
    }

    static List<String> anchors(Builder page, TrendSet trends, Measure... measures) {
        List<String> anchors = new ArrayList<>();
        for (Measure measure : measures) {
            trends.of(measure).stream().findFirst().ifPresent(trend -> anchors.add(page.anchor(trend.provenance())));
        }
        return anchors;
    }

    static long[] times(TrendSet trends) {
        long[] times = new long[trends.steps()];
        for (int i = 0; i < times.length; i++) {
            times[i] = trends.start() + i * trends.step();
        }
        return times;
    }

    static Facts.Fact fact(String label, String value, String href) {
        return new Facts.Fact(label, value, href, null, "");
    }

    static Facts.Fact figureFact(String label, Figure figure, Kind kind, String suffix) {
        if (figure instanceof Figure.Missing missing) {
            return new Facts.Fact(label, "no data — " + missing.why().explanation(), null, null, "missing");
        }
        return new Facts.Fact(label, kind.format(figure.orElseThrow()) + suffix, null, null, "");
    }

    <R> TableView view(Table<R> table, List<R> rows, Request request, Map<Measure, String> queries,
                               String caption, String empty) {
        return table.view(rows, request.parameters(), links, request.path(), queries, caption, empty);
    }

    /** The funnel section: its grouping's choices, the funnel and where it loses the most. */
    void funnel(Builder page, Request request, ShowbackView.FunnelSection section) {
        page.add(new Choices("Funnel by", ShowbackView.FunnelSection.GROUPS.stream().map(by -> new Link(by.label(),
                links.to(request.path(), with(request.parameters(), "funnel", by.label())), by == section.by()))
                .toList()));
        page.add(view(section.table(), section.funnel(), request, page.anchors(), "", "No card was seen in the window."));
        page.add(view(section.lossTable(), section.losses(), request, page.anchors(), "",
                "Nothing lost: every allocation is active and effective."));
    }

    /** A table and its rows, for export. */
    record Rows<R>(Table<R> table, List<R> rows) {
        String export(String format, Map<String, String> parameters) {
            return format.equals("csv") ? table.csv(rows, parameters) : table.json(rows, parameters);
        }
    }

    static <R> Rows<R> rows(Table<R> table, List<R> rows) {
        return new Rows<>(table, rows);
    }

    /** The export the request asks for, when it names one of the page's tables. */
    static Optional<Result> export(Request request, Map<String, Rows<?>> tables) {
        return request.export().flatMap(export -> Optional.ofNullable(tables.get(export[0])).map(rows ->
                new Result.Export(rows.export(export[1], request.parameters()), export[1].equals("csv")
                        ? "text/csv; charset=utf-8" : "application/json", export[0] + "." + export[1])));
    }
}
