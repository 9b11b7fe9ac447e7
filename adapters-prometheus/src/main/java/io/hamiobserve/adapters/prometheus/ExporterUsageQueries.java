package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.adapters.prometheus.PrometheusApi.Sample;
import io.hamiobserve.adapters.prometheus.PromQl.Template;
import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.CardResources;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.UsageOrigin;
import io.hamiobserve.ports.spi.UsageExporterMapping;
import io.hamiobserve.ports.spi.UsageSeries;
import io.hamiobserve.ports.spi.UsageSeries.Kind;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * The queries that read device vendors' own usage exporters, built from the mappings the vendor
 * modules declare ({@link UsageExporterMapping}), and how their answers become the fleet's card
 * and container use, each with where it comes from and what it means.
 *
 * <p>One query per figure whatever the number of mappings or cards: each mapping's series become
 * one term, its labels renamed to HAMi's ({@code device_uuid}, {@code namespace}, {@code pod},
 * {@code container}) and its value scaled to bytes or percent, the terms joined with {@code or}
 * and told apart by a {@value #MAPPING} label. A container label is taken in its
 * {@code exported_*} form first (a scrape that does not honour labels keeps the exporter's own
 * there, and the exporter pod's in the plain name), else as the exporter names it. Every name that
 * goes into a query is checked where the mapping is loaded; a mapping that fails the check is
 * left out and logged, never sent.
 */
final class ExporterUsageQueries {
    /** The label that names the mapping a series came from. */
    static final String MAPPING = "hami_observe_mapping";
    private static final Logger LOG = Logger.getLogger(ExporterUsageQueries.class.getName());
    private static final Pattern METRIC = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    private static final String SHARE = "namespace, pod, container, device_uuid";

    /**
     * Where a container's use comes from when not from HAMi-Core (the node role's series, read
     * beside the vendors'): {@code nvml_process}, the driver's per-process figures.
     */
    static final Template USAGE_SOURCE = new Template("container_usage_source",
            "max by (" + SHARE + ", source) (hami_observe_container_usage_source{${where}})");

    /** The figures over a window, for right-sizing: what each does to a series' range. */
    enum Window {
        MEMORY_PEAK(Measure.EXPORTER_MEMORY_PEAK, Kind.CONTAINER_MEMORY_USED, "max_over_time(", "window"),
        SAMPLES(Measure.EXPORTER_SAMPLES, Kind.CONTAINER_MEMORY_USED, "count_over_time(", "window"),
        SAMPLES_RECENT(Measure.EXPORTER_SAMPLES_RECENT, Kind.CONTAINER_MEMORY_USED, "count_over_time(", "settled"),
        UTILISATION_P95(Measure.EXPORTER_UTILISATION_P95, Kind.CONTAINER_UTILISATION, "quantile_over_time(0.95, ",
                "window"),
        UTILISATION_RECENT_MAX(Measure.EXPORTER_UTILISATION_RECENT_MAX, Kind.CONTAINER_UTILISATION,
                "max_over_time(", "recent");

        final Measure measure;
        final Kind kind;
        final String function;
        final String range;

        Window(Measure measure, Kind kind, String function, String range) {
            this.measure = measure;
            this.kind = kind;
            this.function = function;
            this.range = range;
        }
    }

    private static final Map<Kind, Measure> NOW = new EnumMap<>(Map.of(
            Kind.CARD_MEMORY_USED, Measure.EXPORTER_CARD_MEMORY_USED,
            Kind.CARD_UTILISATION, Measure.EXPORTER_CARD_UTILISATION,
            Kind.CONTAINER_MEMORY_USED, Measure.EXPORTER_CONTAINER_MEMORY_USED,
            Kind.CONTAINER_UTILISATION, Measure.EXPORTER_CONTAINER_UTILISATION));

    private final Map<String, UsageExporterMapping> mappings;
    /** The label that tells clusters apart in one engine: a pod name two clusters run is two pods. */
    private final PromQl.Label clusterLabel;
    /**
     * The mappings' metrics the engine holds now, as last asked ({@link #presence}); null until it
     * has answered, when every mapping's series is asked for. A series the engine does not hold
     * adds only cost to a query of now: a percent-of-allocation figure joins every container's
     * allocation to it (118 ms of Prometheus alone at 10,000 containers, with no vendor exporter
     * scraped at all).
     */
    private final java.util.concurrent.atomic.AtomicReference<Set<String>> held =
            new java.util.concurrent.atomic.AtomicReference<>();

    private ExporterUsageQueries(Map<String, UsageExporterMapping> mappings, PromQl.Label clusterLabel) {
        this.mappings = mappings;
        this.clusterLabel = clusterLabel;
    }

    /** The same mappings, over an engine whose clusters {@code label} tells apart. */
    ExporterUsageQueries clusteredBy(String label) {
        return new ExporterUsageQueries(mappings, new PromQl.Label(label));
    }

    /** The mappings of the vendor modules on the module path (none: no query is sent). */
    static ExporterUsageQueries loaded() {
        List<UsageExporterMapping> found = new ArrayList<>();
        ServiceLoader.load(UsageExporterMapping.class, ExporterUsageQueries.class.getClassLoader())
                .forEach(found::add);
        return of(found);
    }

    /** The given mappings, each checked; one that fails is left out and logged. */
    static ExporterUsageQueries of(Collection<? extends UsageExporterMapping> candidates) {
        Map<String, UsageExporterMapping> valid = new LinkedHashMap<>();
        for (UsageExporterMapping mapping : candidates) {
            Optional<String> problem = problem(mapping);
            if (problem.isPresent()) {
                LOG.warning("usage exporter mapping " + mapping.getClass().getName() + " left out: " + problem.get());
            } else if (valid.putIfAbsent(mapping.name(), mapping) != null) {
                LOG.warning("usage exporter mapping " + mapping.getClass().getName() + " left out: the name "
                        + mapping.name() + " is taken");
            }
        }
        return new ExporterUsageQueries(valid, new PromQl.Label(PrometheusFleetHistory.DEFAULT_CLUSTER_LABEL));
    }

    /** Why a mapping cannot be put into a query, if it cannot. */
    static Optional<String> problem(UsageExporterMapping mapping) {
        if (mapping.name() == null || !NAME.matcher(mapping.name()).matches()) {
            return Optional.of("its name is not [a-z0-9-]: " + mapping.name());
        }
        for (UsageSeries series : mapping.series()) {
            if (!METRIC.matcher(series.metric()).matches()) {
                return Optional.of("not a metric name: " + series.metric());
            }
            if (!series.info().isEmpty() && !METRIC.matcher(series.info()).matches()) {
                return Optional.of("not a metric name: " + series.info());
            }
            List<String> labels = new ArrayList<>(series.matchers().keySet());
            labels.addAll(series.infoOn());
            for (String label : List.of(series.cardLabel(), series.namespaceLabel(), series.podLabel(),
                    series.containerLabel())) {
                if (!label.isEmpty()) {
                    labels.add(label);
                }
            }
            for (String label : labels) {
                if (!LABEL.matcher(label).matches() || label.startsWith("__")) {
                    return Optional.of("not a label name: " + label);
                }
            }
        }
        return Optional.empty();
    }

    /** The mappings' names, in load order. */
    Set<String> names() {
        return mappings.keySet();
    }

    /** Whether any mapping declares a series of {@code kind}. */
    boolean declares(Kind kind) {
        return mappings.values().stream().anyMatch(mapping -> mapping.series().stream()
                .anyMatch(series -> series.kind() == kind));
    }

    /**
     * Which of the mappings' metrics the engine holds now: one query that only looks them up
     * ({@code count by (__name__)} over a selector of their names; every name was checked to be a
     * metric name, so none bends the regular expression), or empty without mappings.
     */
    Optional<PromQl.Query> presence() {
        Set<String> metrics = metrics(series -> true);
        return metrics.isEmpty() ? Optional.empty() : Optional.of(new PromQl.Query("exporter_metrics",
                "count by (__name__) ({__name__=~\"" + String.join("|", metrics) + "\"})"));
    }

    /**
     * Which metrics of the percent-of-allocation series have samples over {@code window}: a window
     * term of theirs joins every container's allocation over the whole window (0.59 CPU s of
     * Prometheus at 10,000 containers over 14 days, docs/benchmarks.md) whether or not the metric
     * has a single series, as an engine evaluates both sides of a join. One count per metric, told
     * apart by the label {@code metric} (a range function drops the name); empty without such series.
     */
    Optional<PromQl.Query> joinedPresence(Duration window) {
        Set<String> metrics = metrics(ExporterUsageQueries::joined);
        String range = "[" + PromQl.duration(window) + "]";
        return metrics.isEmpty() ? Optional.empty() : Optional.of(new PromQl.Query("exporter_joined_metrics",
                String.join(" or ", metrics.stream().map(metric -> "label_replace(count(count_over_time(" + metric
                        + range + ")), \"metric\", \"" + metric + "\", \"\", \"\")").toList())));
    }

    /**
     * The answer to {@link #joinedPresence}: the metrics a window's queries name, every mapping's
     * but the percent-of-allocation ones without a sample in the window.
     */
    Set<String> heldOver(List<Sample> answer) {
        Set<String> found = answer.stream().map(sample -> sample.label("metric"))
                .collect(java.util.stream.Collectors.toSet());
        return metrics(series -> !joined(series) || found.contains(series.metric()));
    }

    /** The metrics of the mappings' series that {@code which} accepts, sorted. */
    private Set<String> metrics(java.util.function.Predicate<UsageSeries> which) {
        Set<String> metrics = new java.util.TreeSet<>();
        mappings.values().forEach(mapping -> mapping.series().stream().filter(which)
                .forEach(series -> metrics.add(series.metric())));
        return metrics;
    }

    /** A series whose window terms join the containers' allocations: a percent of them, the container's own figure. */
    private static boolean joined(UsageSeries series) {
        return series.percentOfAllocation() && series.meaning().isEmpty();
    }

    /** The answer to {@link #presence}: the queries of now ask for these metrics' series only. */
    void held(List<Sample> answer) {
        held.set(answer.stream().map(sample -> sample.label("__name__")).collect(java.util.stream.Collectors.toUnmodifiableSet()));
    }

    /** The measure a figure of now is read under. */
    static Measure measure(Kind kind) {
        return NOW.get(kind);
    }

    /**
     * The query of every mapping's series of {@code kind} now, or empty when none declares one.
     * {@code uuid}, when not empty, narrows the card figures to one card.
     */
    Optional<PromQl.Query> now(Kind kind, String uuid) {
        return query(kind.name().toLowerCase(java.util.Locale.ROOT), kind, selector -> selector, uuid, false, true,
                RecordingRules.LOOKBACK, held.get());
    }

    /**
     * The query of a figure over a window for right-sizing, or empty when no mapping declares one.
     * Only series whose figure is the container's own count (a figure that is the whole card's,
     * or a percent of a virtual share, recommends nothing).
     */
    Optional<PromQl.Query> over(Window window, Duration range, Set<String> held) {
        String duration = PromQl.duration(range);
        // A count of samples is a count in any unit: only figures are scaled.
        return query(window.name().toLowerCase(java.util.Locale.ROOT), window.kind,
                selector -> window.function + selector + "[" + duration + "])", "", true,
                !window.function.startsWith("count_over_time"), duration, held);
    }

    /**
     * {@code held}: the metrics the engine holds (now, or over a window: {@link #heldOver}), the
     * others left out; null for every series.
     */
    private Optional<PromQl.Query> query(String name, Kind kind, Function<String, String> range, String uuid,
                                         boolean ownOnly, boolean scaled, String allocationLookback,
                                         Set<String> held) {
        List<String> terms = new ArrayList<>();
        // The terms given as a percent of the share's allocation, multiplied by it once for all of
        // them (the allocation is the longest part of a query: once per term, five exporters'
        // worth passed 16 KiB), in the place of the first of them.
        List<String> ofAllocation = new ArrayList<>();
        int ofAllocationAt = -1;
        for (UsageExporterMapping mapping : mappings.values()) {
            for (UsageSeries series : mapping.series()) {
                if (series.kind() == kind && (!ownOnly || series.meaning().isEmpty())
                        && (held == null || held.contains(series.metric()))) {
                    String term = "(" + term(mapping.name(), series, range, series.cardLabel().isEmpty() ? "" : uuid,
                            scaled) + ")";
                    if (scaled && series.percentOfAllocation()) {
                        ofAllocationAt = ofAllocation.isEmpty() ? terms.size() : ofAllocationAt;
                        ofAllocation.add(term);
                    } else {
                        terms.add(term);
                    }
                }
            }
        }
        if (!ofAllocation.isEmpty()) {
            terms.add(ofAllocationAt, "((" + String.join(" or ", ofAllocation) + ") / 100 * on (" + SHARE
                    + ") group_left " + allocation(allocationLookback) + ")");
        }
        return terms.isEmpty() ? Optional.empty()
                : Optional.of(new PromQl.Query("exporter_" + name, String.join(" or ", terms)));
    }

    /**
     * One series' term: selected, reduced over a range where asked, joined to its info series,
     * renamed, scaled (a percent of the allocation by {@link #query}, once for every such term).
     */
    private String term(String mapping, UsageSeries series, Function<String, String> range, String uuid,
                        boolean scaled) {
        Map<String, String> matchers = new LinkedHashMap<>(new java.util.TreeMap<>(series.matchers()));
        if (!uuid.isEmpty()) {
            matchers.put(series.cardLabel(), uuid);
        }
        String value = range.apply(series.metric() + "{" + new PromQl.Matchers(matchers).render() + "}");
        List<String> podLabels = new ArrayList<>();
        if (series.kind().container()) {
            for (String label : List.of(series.namespaceLabel(), series.podLabel(), series.containerLabel())) {
                podLabels.add(label);
                podLabels.add("exported_" + label);
            }
        }
        if (!series.info().isEmpty()) {
            List<String> kept = new ArrayList<>(series.infoOn());
            kept.addAll(podLabels);
            if (!series.cardLabel().isEmpty() && !kept.contains(series.cardLabel())) {
                kept.add(series.cardLabel());
            }
            String on = String.join(", ", series.infoOn());
            value = "max by (" + on + ") (" + value + ") * on (" + on + ") group_right max by ("
                    + String.join(", ", kept) + ") (" + series.info() + " > bool -Inf)";
        }
        String renamed = value;
        if (!series.cardLabel().isEmpty()) {
            renamed = relabel(renamed, "device_uuid", series.cardLabel());
        }
        if (series.kind().container()) {
            renamed = named(renamed, "namespace", series.namespaceLabel());
            renamed = named(renamed, "pod", series.podLabel());
            renamed = named(renamed, "container", series.containerLabel());
        }
        String by = series.kind().container() ? SHARE : "device_uuid";
        String figure = "max by (" + by + ") (" + renamed + ")";
        if (scaled && series.scale() != 1 && !series.percentOfAllocation()) {
            figure = figure + " * " + series.scale();
        }
        return "label_replace(" + figure + ", \"" + MAPPING + "\", \"" + mapping + "\", \"\", \"\")";
    }

    /**
     * The memory HAMi allocated each container's share, by its container's name, as last seen within
     * {@code lookback} (a pod's requests do not change, and a window's peak keeps the pods gone
     * since): what a percent-of-allocation figure is a percent of. The name is joined within each
     * cluster: two clusters may run one pod name with containers named differently.
     */
    private String allocation(String lookback) {
        return "max by (" + SHARE + ") " + ShareSeries.named(ShareSeries.Figure.MEMORY, clusterLabel.name(), lookback);
    }

    private static String relabel(String expression, String target, String source) {
        return PromQl.relabelled(expression, target, source);
    }

    /** A workload label: the exporter's own name, then its {@code exported_} form, which wins where present. */
    private static String named(String expression, String target, String source) {
        return relabel(relabel(expression, target, source), target, "exported_" + source);
    }

    // ---- A reading's queries, sent in its batch ----

    /** Sends one query under its measure (the batch's {@code query}). */
    @FunctionalInterface
    interface Asker {
        CompletableFuture<List<Sample>> ask(Measure measure, PromQl.Query query);
    }

    /** What a reading adds from the exporters: cards and containers HAMi's series do not report. */
    record Reading(List<FleetReadings.Host> hosts, List<FleetReadings.Use> uses, List<FleetReadings.Origin> origins,
                   Map<String, CardResources> resources) {
    }

    /** The exporters' queries of one reading, in flight. */
    final class Now {
        private final Map<Kind, CompletableFuture<List<Sample>>> answers = new EnumMap<>(Kind.class);
        private final CompletableFuture<List<Sample>> sources;

        private Now(Asker ask,
                    String uuid, boolean containers, PromQl.Matchers where) {
            for (Kind kind : Kind.values()) {
                if (containers || !kind.container()) {
                    now(kind, uuid).ifPresent(query -> answers.put(kind, ask.ask(measure(kind), query)));
                }
            }
            sources = containers ? ask.ask(Measure.CONTAINER_USAGE_SOURCE, USAGE_SOURCE.bind("where", where))
                    : CompletableFuture.completedFuture(List.of());
        }

        private List<Sample> answer(Kind kind) {
            var answer = answers.get(kind);
            return answer == null ? List.of() : answer.join();
        }

        /**
         * Once the batch is answered: the cards and containers the exporters add (those HAMi's
         * series report come first and are left), where each one's use comes from, and the
         * resource names of the registered card models.
         */
        Reading read(List<FleetReadings.Host> hosts, List<FleetReadings.Use> uses,
                     List<FleetReadings.Registered> registered, List<FleetReadings.Allocation> allocations) {
            Set<String> reportedCards = new java.util.HashSet<>();
            hosts.forEach(host -> reportedCards.add(host.uuid()));
            Set<List<String>> reportedShares = new java.util.HashSet<>();
            uses.forEach(use -> reportedShares.add(List.of(use.namespace(), use.pod(), use.container(), use.uuid())));
            Cards cards = cards(answer(Kind.CARD_MEMORY_USED), answer(Kind.CARD_UTILISATION), reportedCards);
            Containers containers = containers(answer(Kind.CONTAINER_MEMORY_USED),
                    answer(Kind.CONTAINER_UTILISATION), reportedShares);
            List<FleetReadings.Origin> origins = new ArrayList<>(cards.origins());
            origins.addAll(containers.origins());
            origins.addAll(driverProcesses(sources.join()));
            origins.addAll(corelessShares(uses, registered, allocations));
            return new Reading(cards.hosts(), containers.uses(), origins,
                    resources(registered.stream().map(FleetReadings.Registered::model).toList()));
        }
    }

    /** Sends a reading's exporter queries through {@code ask} (the batch's); {@code uuid} narrows to one card. */
    Now now(Asker ask,
            String uuid, boolean containers, PromQl.Matchers where) {
        return new Now(ask, uuid, containers, where);
    }

    /**
     * Sends the window queries of right-sizing through {@code ask}; each window's answer, once in.
     * {@code held}: the metrics with samples in the window ({@link #heldOver}), null when not known.
     */
    Map<Window, CompletableFuture<List<Sample>>> over(
            Asker ask,
            Duration window, Duration settled, Duration recent, Set<String> held) {
        Map<Window, CompletableFuture<List<Sample>>> answers = new EnumMap<>(Window.class);
        for (Window each : Window.values()) {
            Duration range = switch (each.range) {
                case "settled" -> settled;
                case "recent" -> recent;
                default -> window;
            };
            over(each, range, held).ifPresent(query -> answers.put(each, ask.ask(each.measure, query)));
        }
        return answers;
    }

    // ---- Answers ----

    private Optional<UsageSeries> series(Sample sample, Kind kind) {
        UsageExporterMapping mapping = mappings.get(sample.label(MAPPING));
        return mapping == null ? Optional.empty()
                : mapping.series().stream().filter(series -> series.kind() == kind).findFirst();
    }

    private Optional<UsageExporterMapping> mapping(Sample sample) {
        return Optional.ofNullable(mappings.get(sample.label(MAPPING)));
    }

    /** What each card's exporter answers, for the cards HAMi's usage endpoint does not report. */
    record Cards(List<FleetReadings.Host> hosts, List<FleetReadings.Origin> origins) {
    }

    /**
     * Cards from the exporters' answers: one per card whose memory or utilisation an exporter
     * reports, except those in {@code reported} (HAMi's usage endpoint's, which come first).
     */
    Cards cards(List<Sample> memory, List<Sample> utilisation, Set<String> reported) {
        Map<String, Sample> memoryByCard = first(memory, "device_uuid");
        Map<String, Sample> utilisationByCard = first(utilisation, "device_uuid");
        List<String> uuids = new ArrayList<>(memoryByCard.keySet());
        utilisationByCard.keySet().stream().filter(uuid -> !memoryByCard.containsKey(uuid)).forEach(uuids::add);
        List<FleetReadings.Host> hosts = new ArrayList<>();
        List<FleetReadings.Origin> origins = new ArrayList<>();
        Figure none = Figure.missing(Absence.NOT_REPORTED);
        for (String uuid : uuids) {
            if (uuid.isEmpty() || reported.contains(uuid)) {
                continue;
            }
            Sample used = memoryByCard.get(uuid);
            Sample busy = utilisationByCard.get(uuid);
            hosts.add(new FleetReadings.Host("", uuid, figure(used), figure(busy), none, none, none));
            Sample either = used != null ? used : busy;
            mapping(either).ifPresent(mapping -> origins.add(new FleetReadings.Origin(uuid, "", "", "",
                    new UsageOrigin(mapping.exporter(), meaning(used, Kind.CARD_MEMORY_USED),
                            meaning(busy, Kind.CARD_UTILISATION)))));
        }
        return new Cards(hosts, origins);
    }

    /** What each container's exporter answers. */
    record Containers(List<FleetReadings.Use> uses, List<FleetReadings.Origin> origins) {
    }

    /**
     * Containers from the exporters' answers, except those in {@code reported} (HAMi's usage
     * series, keyed namespace, pod, container and card, which come first).
     */
    Containers containers(List<Sample> memory, List<Sample> utilisation, Set<List<String>> reported) {
        Map<List<String>, Sample> memoryByShare = firstByShare(memory);
        Map<List<String>, Sample> utilisationByShare = firstByShare(utilisation);
        List<List<String>> keys = new ArrayList<>(memoryByShare.keySet());
        utilisationByShare.keySet().stream().filter(key -> !memoryByShare.containsKey(key)).forEach(keys::add);
        List<FleetReadings.Use> uses = new ArrayList<>();
        List<FleetReadings.Origin> origins = new ArrayList<>();
        for (List<String> key : keys) {
            if (reported.contains(key) || key.get(1).isEmpty() || key.get(2).isEmpty()) {
                continue;
            }
            Sample used = memoryByShare.get(key);
            Sample busy = utilisationByShare.get(key);
            uses.add(new FleetReadings.Use(key.get(0), key.get(1), key.get(2), "", key.get(3), figure(used),
                    figure(busy), Figure.missing(Absence.NOT_SUPPORTED)));
            Sample either = used != null ? used : busy;
            mapping(either).ifPresent(mapping -> origins.add(new FleetReadings.Origin(key.get(3), key.get(0),
                    key.get(1), key.get(2), new UsageOrigin(mapping.exporter(),
                    meaning(used, Kind.CONTAINER_MEMORY_USED), meaning(busy, Kind.CONTAINER_UTILISATION)))));
        }
        return new Containers(uses, origins);
    }

    /** The containers whose use the driver's processes measure (a whole card without HAMi-Core). */
    static List<FleetReadings.Origin> driverProcesses(List<Sample> sources) {
        return sources.stream().filter(sample -> sample.label("source").equals("nvml_process"))
                .map(sample -> new FleetReadings.Origin(sample.label("device_uuid"), sample.label("namespace"),
                        sample.label("pod"), sample.label("container"), UsageOrigin.DRIVER_PROCESSES))
                .toList();
    }

    /**
     * Each container's use over the window from the exporters' answers (the figures that are the
     * container's own), except the containers HAMi's series already cover.
     */
    static List<UsageHistory.ShareHistory> histories(Map<Window, List<Sample>> answers, Set<List<String>> reported) {
        Map<Window, Map<List<String>, Sample>> byShare = new EnumMap<>(Window.class);
        answers.forEach((window, samples) -> byShare.put(window, firstByShare(samples)));
        List<UsageHistory.ShareHistory> shares = new ArrayList<>();
        for (Map.Entry<List<String>, Sample> peak : byShare.getOrDefault(Window.MEMORY_PEAK, Map.of()).entrySet()) {
            List<String> key = peak.getKey();
            if (reported.contains(key)) {
                continue;
            }
            long samples = count(byShare, Window.SAMPLES, key);
            shares.add(new UsageHistory.ShareHistory(key.get(0), key.get(1), key.get(2), key.get(3),
                    figure(peak.getValue()), figure(byShare.getOrDefault(Window.UTILISATION_P95, Map.of()).get(key),
                    Absence.NOT_SUPPORTED), samples, Math.max(0, samples - count(byShare, Window.SAMPLES_RECENT, key)),
                    figure(byShare.getOrDefault(Window.UTILISATION_RECENT_MAX, Map.of()).get(key),
                            Absence.NOT_REPORTED)));
        }
        return shares;
    }

    /** The resources of each registered card model a vendor module names (HAMi's default names for the rest). */
    /**
     * What a vendor module says of HAMi-named usage on shares that hold no cores of their card
     * ({@link UsageExporterMapping#corelessShare}): one origin per such use, on the cards of a model
     * a mapping names.
     */
    List<FleetReadings.Origin> corelessShares(List<FleetReadings.Use> uses, List<FleetReadings.Registered> registered,
                                              List<FleetReadings.Allocation> allocations) {
        Map<String, String> modelOf = new HashMap<>();
        registered.forEach(card -> modelOf.putIfAbsent(card.uuid(), card.model()));
        Set<List<String>> coreless = new java.util.HashSet<>();
        for (FleetReadings.Allocation allocation : allocations) {
            if (allocation.cores().isKnown() && allocation.cores().orElseThrow() == 0) {
                coreless.add(List.of(allocation.namespace(), allocation.pod(), allocation.uuid()));
            }
        }
        List<FleetReadings.Origin> origins = new ArrayList<>();
        for (FleetReadings.Use use : uses) {
            String model = modelOf.get(use.uuid());
            if (model == null || !coreless.contains(List.of(use.namespace(), use.pod(), use.uuid()))) {
                continue;
            }
            mappings.values().stream().map(mapping -> mapping.corelessShare(model)).flatMap(Optional::stream)
                    .findFirst().ifPresent(origin -> origins.add(new FleetReadings.Origin(use.uuid(), use.namespace(),
                            use.pod(), use.container(), origin)));
        }
        return origins;
    }

    Map<String, CardResources> resources(Collection<String> models) {
        Map<String, CardResources> resources = new HashMap<>();
        for (String model : models) {
            if (model.isEmpty() || resources.containsKey(model)) {
                continue;
            }
            mappings.values().stream().map(mapping -> mapping.resources(model)).flatMap(Optional::stream).findFirst()
                    .ifPresent(names -> resources.put(model, names));
        }
        return resources;
    }

    private String meaning(Sample sample, Kind kind) {
        return sample == null ? "" : series(sample, kind).map(UsageSeries::meaning).orElse("");
    }

    private static long count(Map<Window, Map<List<String>, Sample>> byShare, Window window, List<String> key) {
        Sample sample = byShare.getOrDefault(window, Map.of()).get(key);
        return sample == null || Double.isNaN(sample.value()) ? 0 : Math.round(sample.value());
    }

    static List<String> shareKey(Sample sample) {
        return List.of(sample.label("namespace"), sample.label("pod"), sample.label("container"),
                sample.label("device_uuid"));
    }

    private static Map<List<String>, Sample> firstByShare(List<Sample> samples) {
        Map<List<String>, Sample> first = new LinkedHashMap<>();
        samples.forEach(sample -> first.putIfAbsent(shareKey(sample), sample));
        return first;
    }

    private static Map<String, Sample> first(List<Sample> samples, String label) {
        Map<String, Sample> first = new LinkedHashMap<>();
        samples.forEach(sample -> first.putIfAbsent(sample.label(label), sample));
        return first;
    }

    private static Figure figure(Sample sample) {
        return figure(sample, Absence.NOT_REPORTED);
    }

    private static Figure figure(Sample sample, Absence why) {
        return sample == null || !Double.isFinite(sample.value()) ? Figure.missing(why) : Figure.of(sample.value());
    }
}
