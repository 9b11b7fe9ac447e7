package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.adapters.prometheus.PrometheusApi.Sample;
import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.CardAccrual;
import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.ShareAccrual;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Provenance;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.Showback;
import io.hamiobserve.domain.fleet.Stuck;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.domain.fleet.WorkloadGroup;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;
import io.hamiobserve.ports.spi.UsageSeries;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.OptionalDouble;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import static io.hamiobserve.adapters.prometheus.FleetQueries.*;

/**
 * The fleet's history from a Prometheus that scrapes the exporters (hami-observe's, or HAMi's own
 * for the series they share). Each call sends a fixed set of queries at once and waits for all of
 * them; the first failure fails the call, so a page never shows half an answer as the whole.
 */
public final class PrometheusFleetHistory implements FleetHistory {
    /** How long one query may take unless told otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(
            PrometheusFleetHistory.class.getName());
    /** How long an engine that could not be told is left before it is asked again. */
    static final Duration PROBE_AGAIN_AFTER = Duration.ofMinutes(1);

    private final PrometheusApi api;
    private final RuleCoverage coverage;
    /** The vendors' usage exporters, as the vendor modules on the module path map them. */
    private final ExporterUsageQueries exporters;
    /** Whether the engine was told, and when it was last asked (System.nanoTime). */
    private volatile boolean probed;
    private volatile long lastProbe;

    /** How long the clusters found are kept before they are asked again. */
    static final Duration CLUSTERS_KEPT = Duration.ofMinutes(5);
    /**
     * One read of the whole fleet's now in this many asks for every node's container and card
     * allocation series; the others only for the nodes whose fingerprints moved ({@link KeptNodeSeries}).
     */
    public static final int READS_PER_FULL_READ = KeptNodeSeries.FULL_READ_EVERY;
    /** The label that tells clusters apart unless told. */
    public static final String DEFAULT_CLUSTER_LABEL = "cluster";

    private final String clusterLabel;
    private volatile List<String> clusters = List.of();
    private volatile long clustersAsked;
    /** The first question about the clusters, once asked: completes when it has been answered or has failed. */
    private volatile CompletableFuture<Void> clustersFirstAsked;
    /** What to tell about the console's recording rules in this engine ({@link RuleAdvice}); empty while they run. */
    private volatile String rulesAdvice = "";
    /** The last question about the rules: completes once its advice is set (tests wait for it). */
    private volatile CompletableFuture<Void> rulesAsked = CompletableFuture.completedFuture(null);
    /** The engine's whole history: itself, or the one a narrowed history shares its engine and clusters with. */
    private final PrometheusFleetHistory whole;
    /** The cluster every read is narrowed to; empty for the whole engine. */
    private final Optional<String> cluster;
    /** The wall clock: a rule run stamped after it was written by a replay, not by a run (showback). */
    private final Clock clock;

    private PrometheusFleetHistory(PrometheusApi api, String clusterLabel) {
        this(api, new RuleCoverage(api), checked(clusterLabel), ExporterUsageQueries.loaded().clusteredBy(clusterLabel),
                null,
                Optional.empty(), Clock.systemUTC());
    }

    /** {@code whole} null: this history is the engine's whole history. */
    private PrometheusFleetHistory(PrometheusApi api, RuleCoverage coverage, String clusterLabel,
                                   ExporterUsageQueries exporters, PrometheusFleetHistory whole,
                                   Optional<String> cluster, Clock clock) {
        this.api = api;
        this.coverage = coverage;
        this.clusterLabel = clusterLabel;
        this.exporters = exporters;
        this.whole = whole == null ? this : whole;
        this.cluster = cluster;
        this.clock = clock;
    }

    private static String checked(String clusterLabel) {
        FleetQueries.clusters(clusterLabel);
        return clusterLabel;
    }

    /** The same history read as if the wall clock said {@code clock}'s time (tests of what lies ahead of it). */
    PrometheusFleetHistory readingTheWallClock(Clock clock) {
        return new PrometheusFleetHistory(api, coverage, clusterLabel, exporters, whole == this ? null : whole,
                cluster, clock);
    }

    /**
     * The same engine's history of one cluster: every series every query reads carries the
     * matcher {@code <cluster label>="<cluster>"} ({@link PromQl#narrowed}), the value quoted like
     * every label value, so any text selects at most that cluster's series and never bends a query.
     *
     * @throws IllegalArgumentException for an empty name
     */
    @Override
    public PrometheusFleetHistory inCluster(String name) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a cluster has a name");
        }
        return new PrometheusFleetHistory(api, coverage, clusterLabel, exporters, whole, Optional.of(name), clock);
    }

    /** The clusters found by the cluster label (sorted), asked with the fleet now at most every 5 minutes. */
    @Override
    public List<String> clusters() {
        return whole.clusters;
    }

    /**
     * Whether the hourly records of each container's use cover the window for this read. For one
     * cluster of several, or for several at once, only runs that keep the cluster under the label
     * this console reads count ({@link RecordingRules.Group#HOURLY_BY_CLUSTER}): earlier rule files
     * summed by namespace and container only, which run together two clusters' pods of the same
     * name. A single cluster read whole is served by either.
     */
    private boolean hourlyRecordsCover(Instant at, Duration window) throws SourceUnavailableException {
        if (cluster.isEmpty() && clustersForRecords(at).size() < 2) {
            return coverage.covers(RecordingRules.Group.HOURLY, at, window);
        }
        return clusterLabel.equals(RecordingRules.CLUSTER_LABEL)
                && coverage.covers(RecordingRules.Group.HOURLY_BY_CLUSTER, at, window);
    }

    /**
     * Whether the records of {@code group}, which keep the rules' cluster label from their first run,
     * cover the window for this read: under that label they serve one cluster's read and several
     * clusters' at once; under another the label is summed away in them, so they serve one cluster
     * read whole only.
     */
    private boolean clusterKeepingRecordsCover(RecordingRules.Group group, Instant at, Duration window)
            throws SourceUnavailableException {
        return (clusterLabel.equals(RecordingRules.CLUSTER_LABEL) || (cluster.isEmpty()
                && clustersForRecords(at).size() < 2)) && coverage.covers(group, at, window);
    }

    /** {@code query}, narrowed to this history's cluster when it has one. */
    private PromQl.Query scoped(PromQl.Query query) {
        return cluster.map(name -> new PromQl.Query(query.name(),
                PromQl.narrowed(query.expression(), clusterLabel, name))).orElse(query);
    }

    /**
     * What the engine holds, asked with the fleet now at most every {@link #CLUSTERS_KEPT}: the
     * clusters, by {@link #clusterLabel} (one engine behind several clusters is said on every page,
     * as the figures are summed across them; each node, card and workload row is one cluster's),
     * which vendors' usage exporters' metrics it has now (the next reads of now ask for those
     * only, {@link ExporterUsageQueries#held}), and whether it runs the console's recording rules
     * (said on every page where it does not: {@link RuleAdvice}).
     */
    private void askWhatTheEngineHolds(Instant at) {
        if (whole != this) {
            whole.askWhatTheEngineHolds(at);
            return;
        }
        long now = System.nanoTime();
        if (clustersAsked != 0 && now - clustersAsked < CLUSTERS_KEPT.toNanos()) {
            return;
        }
        clustersAsked = now;
        // Beside the fleet's queries, not before them: the answer is for the next page's header.
        // A failure is left to the fleet's own queries to report; the clusters are asked again later.
        CompletableFuture<Void> answered = api.instant(FleetQueries.clusters(clusterLabel).plain(), at)
                .thenAccept(answer -> {
                    List<String> found = answer.stream().map(sample -> sample.label(clusterLabel))
                            .filter(name -> !name.isEmpty()).sorted().toList();
                    if (!found.equals(clusters)) {
                        clusters = found;
                        LOG.info("query backend " + api.base() + ": " + clusterNote());
                    }
                });
        if (clustersFirstAsked == null) {
            clustersFirstAsked = answered;
        }
        exporters.presence().ifPresent(query -> api.instant(query, at).thenAccept(exporters::held));
        // Whether the console's rules run here: the rules the engine lists, else their runs' markers.
        CompletableFuture<Optional<Boolean>> ranLately = api.instant(RuleAdvice.RAN, at).handle((answer, failed) ->
                failed != null ? Optional.empty() : Optional.of(!answer.isEmpty() && answer.getFirst().value() > 0));
        rulesAsked = api.rules().thenCombine(ranLately, (rules, ran) -> RuleAdvice.advice(rules.flatMap(RuleAdvice::listed), ran))
                .thenAccept(advice -> {
                    String told = advice.orElse("");
                    if (!told.equals(rulesAdvice)) {
                        rulesAdvice = told;
                        LOG.log(told.isEmpty() ? java.util.logging.Level.INFO : java.util.logging.Level.WARNING,
                                "query backend " + api.base() + ": " + (told.isEmpty()
                                        ? "the console's recording rules run" : told));
                    }
                });
    }

    /**
     * The clusters found, for a read whose choice of queries depends on their number (records that
     * serve one cluster read whole, and not several, {@link #hourlyRecordsCover}): asked first where
     * they never were, and the first answer waited for. A read of now asks beside its own queries
     * and does not wait; a read of use that came right after it (rightsize, a console's start)
     * took the engine for one cluster before that answer came back.
     */
    private List<String> clustersForRecords(Instant at) {
        askWhatTheEngineHolds(at);
        CompletableFuture<Void> first = whole.clustersFirstAsked;
        if (first != null) {
            try {
                first.join();
            } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException failed) {
                // The read's own queries report an engine that fails; the clusters are asked again later.
            }
        }
        return whole.clusters;
    }

    /** The clusters found, for the description; empty for one cluster without the label. */
    private String clusterNote() {
        List<String> found = clusters;
        if (found.isEmpty()) {
            return "";
        }
        String names = String.join(", ", found.subList(0, Math.min(5, found.size())))
                + (found.size() > 5 ? " and " + (found.size() - 5) + " more" : "");
        return found.size() == 1 ? "cluster " + names + " (label " + clusterLabel + ")"
                : found.size() + " clusters by label " + clusterLabel + " (" + names + "): figures are summed across "
                + "them, and each node, card and workload is one cluster's";
    }

    /**
     * On the first read (and until it answers, once a minute): which engine serves the API, said
     * in the log and in {@link #description()}, its adaptations applied to the queries after.
     */
    private void probeOnce() {
        if (whole != this) {
            whole.probeOnce();
            return;
        }
        if (probed) {
            return;
        }
        synchronized (this) {
            long now = System.nanoTime();
            if (probed || (lastProbe != 0 && now - lastProbe < PROBE_AGAIN_AFTER.toNanos())) {
                return;
            }
            lastProbe = now;
            api.probe().ifPresent(engine -> {
                api.backend().adapt(engine);
                probed = true;
                LOG.info("query backend " + api.backend().config() + ": " + engine.summary(api.base()));
            });
        }
    }

    /** The last question about the console's rules, once its advice is set. */
    CompletableFuture<Void> rulesAsked() {
        return whole.rulesAsked;
    }

    /** The engine told from the backend's buildinfo ({@link Engine#UNKNOWN} before it answered). */
    Engine engine() {
        return api.backend().engine();
    }

    /**
     * The history in the Prometheus at {@code url} (user info in the URL is sent as basic auth).
     *
     * @param timeout how long one query may take before the call fails with a clear message
     */
    public static PrometheusFleetHistory at(URI url, Duration timeout) {
        return at(BackendConfig.of(url), timeout);
    }

    /** As {@link #at(URI, Duration)}, with {@code budgetBytes} for the answers read at once. */
    static PrometheusFleetHistory at(URI url, Duration timeout, long budgetBytes) {
        return new PrometheusFleetHistory(new PrometheusApi(new QueryBackend(BackendConfig.of(url)), timeout,
                budgetBytes), DEFAULT_CLUSTER_LABEL);
    }

    /** The queries in flight to Prometheus now. */
    int queriesInFlight() {
        return api.inFlight();
    }

    /**
     * The history in the engine {@code backend} describes: Prometheus, VictoriaMetrics, Thanos
     * Query, Mimir or Cortex behind a base URL with a path, with credentials, TLS, headers and
     * query parameters.
     */
    public static PrometheusFleetHistory at(BackendConfig backend, Duration timeout) {
        return at(backend, timeout, DEFAULT_CLUSTER_LABEL);
    }

    /**
     * As {@link #at(BackendConfig, Duration)}, with the label that tells clusters apart
     * ({@code cluster} unless told): which clusters the engine holds is said beside the engine.
     *
     * @throws IllegalArgumentException when {@code clusterLabel} is not a label name
     */
    public static PrometheusFleetHistory at(BackendConfig backend, Duration timeout, String clusterLabel) {
        return new PrometheusFleetHistory(new PrometheusApi(new QueryBackend(backend), timeout), clusterLabel);
    }

    /**
     * "Prometheus at URL" until the engine answered, then the engine and what is adapted for it;
     * what to do about the console's recording rules where they do not run there ({@link RuleAdvice});
     * and the clusters it holds, when its series carry the cluster label.
     */
    @Override
    public String description() {
        String engine = (whole.probed ? engine().summary(api.base()) : "Prometheus at " + api.base())
                + (whole.rulesAdvice.isEmpty() ? "" : " · " + whole.rulesAdvice);
        if (whole != this) {
            return engine + " · cluster " + cluster.orElseThrow() + " (label " + clusterLabel + ")";
        }
        String note = clusterNote();
        return engine + (note.isEmpty() ? "" : " · " + note);
    }

    /** A batch of instant queries sent together; each measure remembers its query. */
    private final class Batch {
        private final Instant at;
        private final Map<Measure, Provenance> provenance = new EnumMap<>(Measure.class);
        private final List<CompletableFuture<?>> pending = new ArrayList<>();

        Batch(Instant at) {
            this.at = at;
        }

        /** Nothing to ask: an empty answer, and no query listed. */
        CompletableFuture<List<Sample>> none() {
            return CompletableFuture.completedFuture(List.of());
        }

        CompletableFuture<List<Sample>> query(Measure measure, PromQl.Query template) {
            return query(measure, template, at);
        }

        /** A query asked at its own time (showback's integrals at the run after a past window). */
        CompletableFuture<List<Sample>> query(Measure measure, PromQl.Query template, Instant time) {
            PromQl.Query query = scoped(template);
            provenance.put(measure, new Provenance(query.name(), query.expression()));
            CompletableFuture<List<Sample>> answer = api.instant(query, time);
            pending.add(answer);
            return answer;
        }

        /**
         * {@code query}'s answer for the series of the plan's changed nodes alone, one query a group
         * of nodes ({@code node=~"…"} on every series it reads, {@link PromQl#narrowedToAny}; a
         * group no longer than {@link #MOST_QUERY_BYTES} whatever the names), listed as
         * {@code query}: the figures are its answer, part of it asked now and the rest kept.
         */
        CompletableFuture<List<Sample>> onNodes(Measure measure, PromQl.Query query, KeptNodeSeries.Plan plan) {
            PromQl.Query scopedQuery = scoped(query);
            provenance.put(measure, new Provenance(scopedQuery.name(), scopedQuery.expression()));
            List<CompletableFuture<List<Sample>>> parts = new ArrayList<>();
            for (List<String> group : plan.nodes(names -> PromQl.narrowedToAny(scopedQuery.expression(), "node",
                    names).getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= MOST_QUERY_BYTES)) {
                CompletableFuture<List<Sample>> part = api.instant(new PromQl.Query(scopedQuery.name(),
                        PromQl.narrowedToAny(scopedQuery.expression(), "node", group)), at);
                pending.add(part);
                parts.add(part);
            }
            return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(done -> {
                List<Sample> answer = new ArrayList<>();
                parts.forEach(part -> answer.addAll(part.join()));
                return answer;
            });
        }

        /**
         * {@code query}'s answer for every node where {@code plan} is null or reads every node, else
         * for the plan's changed nodes alone ({@link #onNodes}).
         */
        CompletableFuture<List<Sample>> kept(Measure measure, PromQl.Query query, KeptNodeSeries.Plan plan) {
            return plan == null || plan.readsAll() ? query(measure, query) : onNodes(measure, query, plan);
        }

        /** Waits for every query; fails with the first failure that says why ({@link PrometheusApi#awaitAll}). */
        void await() throws SourceUnavailableException {
            PrometheusApi.awaitAll(pending);
        }
    }

    /**
     * The longest query a group of nodes makes: VictoriaMetrics refuses one over 16 KiB
     * ({@code -search.maxQueryLen}), and the templates themselves stay under it (QuerySizeTest).
     */
    static final int MOST_QUERY_BYTES = 16 * 1024 - 1;

    /** The whole fleet's container series as the last read of now left them ({@link KeptNodeSeries}). */
    private volatile KeptNodeSeries keptContainers;
    /** The whole fleet's cards' allocation series as the last read of now left them ({@link KeptNodeSeries}). */
    private volatile KeptNodeSeries keptCards;

    /** Which containers a scope reads: matchers for allocation, usage and name series. */
    private record Where(PromQl.Matchers allocation, PromQl.Matchers use, PromQl.Matchers names, boolean containers) {
        /**
         * Which cards DCGM's series are read for: one card's page reads that card's ({@code UUID});
         * every other page all of them, one query per figure whatever the fleet's size.
         */
        PromQl.Matchers dcgm() {
            String uuid = allocation.labels().get("device_uuid");
            return uuid == null ? PromQl.Matchers.NONE : PromQl.Matchers.of("UUID", uuid);
        }

        /**
         * Which pods' owners are read: the owner series names a pod and its node, not a card or a
         * container, so a card's scope reads every pod's (one query whatever the fleet's size).
         */
        PromQl.Matchers owners() {
            return allocation.labels().containsKey("device_uuid") ? PromQl.Matchers.NONE : names;
        }

        /** The same cards in the node role's series ({@code device_uuid}). */
        PromQl.Matchers hostCards() {
            String uuid = allocation.labels().get("device_uuid");
            return uuid == null ? PromQl.Matchers.NONE : PromQl.Matchers.of("device_uuid", uuid);
        }

        static Where of(FleetScope scope) {
            return switch (scope) {
                case FleetScope.Everything all -> new Where(PromQl.Matchers.NONE, PromQl.Matchers.NONE,
                        PromQl.Matchers.NONE, true);
                case FleetScope.CardsOnly cards -> new Where(PromQl.Matchers.NONE, PromQl.Matchers.NONE,
                        PromQl.Matchers.NONE, false);
                case FleetScope.OnNode node -> {
                    PromQl.Matchers matchers = PromQl.Matchers.of("node", node.node());
                    yield new Where(matchers, matchers, matchers, true);
                }
                case FleetScope.OnCard card -> {
                    PromQl.Matchers matchers = PromQl.Matchers.of("device_uuid", card.uuid());
                    yield new Where(matchers, matchers, matchers, true);
                }
                case FleetScope.OfWorkload workload -> {
                    PromQl.Matchers pod = PromQl.Matchers.of("namespace", workload.workload().namespace(), "pod",
                            workload.workload().pod());
                    yield new Where(pod, PromQl.Matchers.of("namespace", workload.workload().namespace(), "pod",
                            workload.workload().pod(), "container", workload.workload().container()), pod, true);
                }
            };
        }
    }

    @Override
    public FleetReadings readings(Instant at, FleetScope scope) throws SourceUnavailableException {
        probeOnce();
        Where where = Where.of(scope);
        Batch batch = new Batch(at);
        // The whole fleet's cards' and containers' allocation series are read again only where a
        // node's fingerprints moved: both fingerprints asked at once, before the rest. Their query
        // failing fails the read, saying why, before any other query is sent: an engine that cannot
        // answer one selector of a series a node would answer none of the read's.
        KeptNodeSeries.Plan cardsPlan = null;
        KeptNodeSeries.Plan containersPlan = null;
        if (scope instanceof FleetScope.Everything) {
            var cardMarks = api.instant(scoped(NODE_CARDS_FINGERPRINTS.plain()), at);
            var containerMarks = api.instant(scoped(NODE_ALLOCATIONS_FINGERPRINTS.plain()), at);
            cardsPlan = KeptNodeSeries.plan(keptCards, PrometheusApi.await(cardMarks), clusterLabel);
            containersPlan = KeptNodeSeries.plan(keptContainers, PrometheusApi.await(containerMarks), clusterLabel);
        }
        PromQl.Label cluster = new PromQl.Label(clusterLabel);
        var memoryTotal = batch.kept(Measure.CARD_MEMORY_TOTAL, CARD_MEMORY_TOTAL.bind("cluster", cluster), cardsPlan);
        var memoryAllocated = batch.kept(Measure.CARD_MEMORY_ALLOCATED, CARD_MEMORY_ALLOCATED.bind("cluster", cluster),
                cardsPlan);
        var coresTotal = batch.kept(Measure.CARD_CORES_TOTAL, CARD_CORES_TOTAL.bind("cluster", cluster), cardsPlan);
        var coresAllocated = batch.kept(Measure.CARD_CORES_ALLOCATED, CARD_CORES_ALLOCATED.bind("cluster", cluster),
                cardsPlan);
        var coresPercent = batch.kept(Measure.CARD_CORES_ALLOCATED_PERCENT, CARD_CORES_ALLOCATED_PERCENT.bind(
                "cluster", cluster), cardsPlan);
        var slotsUsed = batch.kept(Measure.CARD_SLOTS_USED, CARD_SLOTS_USED.bind("cluster", cluster), cardsPlan);
        var slotsTotal = batch.kept(Measure.CARD_SLOTS_TOTAL, CARD_SLOTS_TOTAL.bind("cluster", cluster), cardsPlan);
        var health = batch.kept(Measure.CARD_HEALTH, CARD_HEALTH.bind("cluster", cluster), cardsPlan);
        var used = batch.query(Measure.CARD_MEMORY_USED, CARD_MEMORY_USED.plain());
        var utilisation = batch.query(Measure.CARD_UTILISATION, CARD_UTILISATION.plain());
        var temperature = batch.query(Measure.CARD_TEMPERATURE, CARD_TEMPERATURE.plain());
        var power = batch.query(Measure.CARD_POWER, CARD_POWER.plain());
        var beyond = batch.query(Measure.CARD_MEMORY_BEYOND_ALLOCATION, CARD_BEYOND_ALLOCATION.plain());
        boolean containers = where.containers();
        PromQl.Query memoryQuery = CONTAINER_MEMORY_ALLOCATED.bind("where", where.allocation(), "cluster", cluster);
        PromQl.Query coresQuery = CONTAINER_CORES_ALLOCATED.bind("where", where.allocation(), "cluster", cluster);
        PromQl.Query namesQuery = (scope instanceof FleetScope.OnCard ? CONTAINER_NAMES_ON_CARD : CONTAINER_NAMES)
                .bind("where", where.names(), "cluster", cluster);
        var shareMemory = containers ? batch.kept(Measure.CONTAINER_MEMORY_ALLOCATED, memoryQuery, containersPlan)
                : batch.none();
        var shareCores = containers ? batch.kept(Measure.CONTAINER_CORES_ALLOCATED, coresQuery, containersPlan)
                : batch.none();
        var names = containers ? batch.kept(Measure.CONTAINER_NAMES, namesQuery, containersPlan) : batch.none();
        var useMemory = containers ? batch.query(Measure.CONTAINER_MEMORY_USED,
                CONTAINER_MEMORY_USED.bind("where", where.use())) : batch.none();
        var useUtilisation = containers ? batch.query(Measure.CONTAINER_UTILISATION,
                CONTAINER_UTILISATION.bind("where", where.use())) : batch.none();
        var lastKernel = containers ? batch.query(Measure.CONTAINER_LAST_KERNEL,
                CONTAINER_LAST_KERNEL.bind("where", where.use())) : batch.none();
        var unmanaged = containers ? batch.query(Measure.CONTAINER_UNMANAGED_MEMORY,
                CONTAINER_UNMANAGED.bind("where", where.use())) : batch.none();
        var counted = containers ? batch.none()
                : batch.query(Measure.CONTAINER_COUNT, CONTAINERS_PER_NODE.bind("cluster",
                        new PromQl.Label(clusterLabel)));
        var quotaUsed = batch.query(Measure.QUOTA_USED, QUOTA_USED.bind("cluster", new PromQl.Label(clusterLabel)));
        var quotaLimit = batch.query(Measure.QUOTA_LIMIT, QUOTA_LIMIT.bind("cluster", new PromQl.Label(clusterLabel)));
        var sources = batch.query(Measure.SOURCE_HEALTH, SOURCE_HEALTH.plain());
        var ledger = batch.query(Measure.LEDGER_AGE, LEDGER_AGE.plain());
        var skips = batch.query(Measure.SKIPPED_INPUTS, SKIPPED_INPUTS.bind("cluster", new PromQl.Label(clusterLabel)));
        var down = batch.query(Measure.TARGETS_DOWN, TARGETS_DOWN.plain());
        Map<Measure, CompletableFuture<List<Sample>>> dcgm = new EnumMap<>(Measure.class);
        DcgmQueries.ALL.forEach((measure, template) -> dcgm.put(measure, batch.query(measure,
                template.bind("where", where.dcgm(), "hami", where.hostCards()))));
        var exporter = exporters.now(batch::query, where.allocation().labels().getOrDefault("device_uuid", ""),
                containers, where.use());
        // Asked once this read's queries are sent, so that what this read asks never depends on how
        // fast an answer to the last question came back. Not waited for: a question that waits for a
        // slot behind stalled queries must not make the read itself longer.
        askWhatTheEngineHolds(at);
        batch.await();

        KeptNodeSeries.Series cards = new KeptNodeSeries.Series(List.of(memoryTotal.join(), memoryAllocated.join(),
                coresTotal.join(), coresAllocated.join(), coresPercent.join(), slotsUsed.join(), slotsTotal.join(),
                health.join()));
        if (cardsPlan != null) {
            KeptNodeSeries.Outcome outcome = cardsPlan.outcome(cards);
            cards = outcome.series();
            keptCards = outcome.kept();
        }
        Map<String, Double> allocatedByCard = byKey(cards.figure(1), "device_uuid");
        Map<String, Double> coresTotalByCard = byKey(cards.figure(2), "device_uuid");
        Map<String, Double> coresAllocatedByCard = byKey(cards.figure(3), "device_uuid");
        Map<String, Double> coresPercentByCard = byKey(cards.figure(4), "device_uuid");
        Map<String, Double> slotsUsedByCard = byKey(cards.figure(5), "device_uuid");
        Map<String, Double> slotsTotalByCard = byKey(cards.figure(6), "device_uuid");
        Map<String, Sample> healthByCard = new HashMap<>();
        cards.figure(7).forEach(sample -> healthByCard.putIfAbsent(sample.label("device_uuid"), sample));
        List<FleetReadings.Registered> registered = new ArrayList<>();
        for (Sample card : cards.figure(0)) {
            String uuid = card.label("device_uuid");
            Sample healthy = healthByCard.get(uuid);
            registered.add(new FleetReadings.Registered(card.label("node"), uuid, index(card.label("device_index")),
                    card.label("device_type"), healthy == null ? "" : healthy.label("mode"),
                    healthy == null ? Figure.missing(Absence.NOT_REPORTED) : figure(healthy.value()),
                    figure(card.value()), figure(allocatedByCard.get(uuid)), figure(coresTotalByCard.get(uuid)),
                    figure(coresAllocatedByCard.get(uuid)), figure(slotsUsedByCard.get(uuid)),
                    figure(slotsTotalByCard.get(uuid)), figure(coresPercentByCard.get(uuid)),
                    card.label(clusterLabel)));
        }

        Map<String, Double> utilisationByCard = byKey(utilisation.join(), "device_uuid");
        Map<String, Double> temperatureByCard = byKey(temperature.join(), "device_uuid");
        Map<String, Double> powerByCard = byKey(power.join(), "device_uuid");
        Map<String, Double> beyondByCard = byKey(beyond.join(), "device_uuid");
        Map<String, String> hostNodes = new LinkedHashMap<>();
        Map<String, Double> usedByCard = new HashMap<>();
        for (Sample sample : used.join()) {
            hostNodes.putIfAbsent(sample.label("device_uuid"), sample.label("node"));
            usedByCard.putIfAbsent(sample.label("device_uuid"), sample.value());
        }
        for (Sample sample : utilisation.join()) {
            hostNodes.putIfAbsent(sample.label("device_uuid"), sample.label("node"));
        }
        List<FleetReadings.Host> hosts = new ArrayList<>();
        hostNodes.forEach((uuid, node) -> hosts.add(new FleetReadings.Host(node, uuid,
                figure(usedByCard.get(uuid), Absence.NOT_SUPPORTED),
                figure(utilisationByCard.get(uuid), Absence.NOT_SUPPORTED),
                figure(temperatureByCard.get(uuid), Absence.NOT_SUPPORTED),
                figure(powerByCard.get(uuid), Absence.NOT_SUPPORTED),
                figure(beyondByCard.get(uuid), Absence.NOT_REPORTED))));

        KeptNodeSeries.Series read = new KeptNodeSeries.Series(List.of(shareMemory.join(), shareCores.join(),
                names.join()));
        if (containersPlan != null) {
            KeptNodeSeries.Outcome outcome = containersPlan.outcome(read);
            read = outcome.series();
            keptContainers = outcome.kept();
        }
        Map<String, Double> coresByShare = byKey(read.figure(1), "namespace", "pod", "container_index",
                "device_uuid");
        List<FleetReadings.Allocation> allocations = new ArrayList<>();
        for (Sample share : read.figure(0)) {
            allocations.add(new FleetReadings.Allocation(share.label("namespace"), share.label("pod"),
                    index(share.label("container_index")), share.label("node"), share.label("device_uuid"),
                    figure(share.value()), figure(coresByShare.get(key(share, "namespace", "pod", "container_index",
                    "device_uuid"))), share.label(clusterLabel)));
        }
        // A pod seen on two nodes within the lookback (recreated elsewhere under its name) names its
        // containers once, as it did before the names were read node by node.
        List<FleetReadings.ContainerName> containerNames = read.figure(2).stream()
                .map(name -> new FleetReadings.ContainerName(name.label("namespace"), name.label("pod"),
                        index(name.label("container_index")), name.label("container"),
                        name.label("init").equals("true"), name.label(clusterLabel)))
                .distinct()
                .toList();

        String[] useKey = {"namespace", "pod", "container", "device_uuid"};
        Map<String, Double> utilisationByUse = byKey(useUtilisation.join(), useKey);
        Map<String, Double> kernelByUse = byKey(lastKernel.join(), useKey);
        List<FleetReadings.Use> uses = new ArrayList<>();
        for (Sample use : useMemory.join()) {
            String id = key(use, useKey);
            uses.add(new FleetReadings.Use(use.label("namespace"), use.label("pod"), use.label("container"),
                    use.label("node"), use.label("device_uuid"), figure(use.value()),
                    figure(utilisationByUse.get(id), Absence.NOT_SUPPORTED),
                    figure(kernelByUse.get(id), Absence.NOT_REPORTED)));
        }
        List<FleetReadings.Unmanaged> outside = unmanaged.join().stream()
                .filter(sample -> !Double.isNaN(sample.value()))
                .map(sample -> new FleetReadings.Unmanaged(sample.label("node"), sample.label("device_uuid"),
                        sample.label("namespace"), sample.label("pod"), sample.label("container"), sample.value()))
                .toList();

        Map<String, Double> limits = byKey(quotaLimit.join(), "namespace", "quota_name", clusterLabel);
        List<FleetReadings.Quota> quotas = new ArrayList<>();
        TreeSet<String> quotaKeys = new TreeSet<>(limits.keySet());
        Map<String, Double> usedQuota = byKey(quotaUsed.join(), "namespace", "quota_name", clusterLabel);
        quotaKeys.addAll(usedQuota.keySet());
        for (String id : quotaKeys) {
            String[] parts = id.split("\u0000", -1);
            quotas.add(new FleetReadings.Quota(parts[0], parts[1], figure(usedQuota.get(id)),
                    figure(limits.get(id)), parts[2]));
        }

        List<FleetReadings.SourceStatus> statuses = sources.join().stream()
                .map(sample -> new FleetReadings.SourceStatus(sample.label("instance"), sample.label("node"),
                        sample.label("source"), sample.value() == 1, sample.label(clusterLabel)))
                .toList();
        List<FleetReadings.LedgerAge> ages = ledger.join().stream()
                .filter(sample -> !Double.isNaN(sample.value()))
                .map(sample -> new FleetReadings.LedgerAge(sample.label("instance"), sample.value(),
                        sample.label(clusterLabel)))
                .toList();
        List<FleetReadings.Skip> skipped = skips.join().stream()
                .map(sample -> new FleetReadings.Skip(sample.label("source"), sample.label("kind"),
                        sample.label("reason"), sample.value(), sample.label(clusterLabel)))
                .toList();
        List<FleetReadings.TargetDown> targetsDown = down.join().stream()
                .map(sample -> new FleetReadings.TargetDown(sample.label("job"), sample.label("instance"),
                        sample.label(clusterLabel)))
                .toList();
        Map<FleetReadings.ClusterNode, Long> perNode = new LinkedHashMap<>();
        counted.join().forEach(sample -> perNode.put(new FleetReadings.ClusterNode(sample.label(clusterLabel),
                sample.label("node")), count(sample.value())));
        Map<Measure, List<Sample>> physical = new EnumMap<>(Measure.class);
        dcgm.forEach((measure, answer) -> physical.put(measure, answer.join()));
        ExporterUsageQueries.Reading exported = exporter.read(hosts, uses, registered, allocations);
        hosts.addAll(exported.hosts());
        uses.addAll(exported.uses());
        return new FleetReadings(at, registered, hosts, allocations, containerNames, uses, outside, quotas, statuses,
                ages, skipped, targetsDown, perNode, batch.provenance, DcgmQueries.physical(physical),
                exported.origins(), exported.resources());
    }

    @Override
    public UsageHistory usage(Instant at, Duration window, Duration settledAfter, FleetScope scope)
            throws SourceUnavailableException {
        probeOnce();
        Where scoped = Where.of(scope);
        PromQl.Matchers where = scoped.use();
        PromQl.Matchers owners = scoped.owners();
        Batch batch = new Batch(at);
        PromQl.Label by = new PromQl.Label(clusterLabel);
        // What reads only raw series goes first: Prometheus works on it while the coverage of the
        // recorded series is looked up.
        Duration recentPart = settledAfter.compareTo(window) < 0 ? settledAfter : window;
        var recentSamples = batch.query(Measure.CONTAINER_SAMPLES_RECENT,
                MEMORY_SAMPLES_RECENT.bind(Map.of("where", where, "settled", recentPart, "cluster", by)));
        var recent = batch.query(Measure.CONTAINER_UTILISATION_RECENT_MAX,
                UTILISATION_RECENT_MAX.bind(Map.of("where", where, "recent", RightSizing.IDLE_AFTER, "cluster", by)));
        // The vendors' percent-of-allocation figures join every container's allocation over the
        // window whatever they hold: asked for only where their metric has a sample in it (looked up
        // beside the coverage; unknown, when the lookup fails, asks for all).
        CompletableFuture<Set<String>> heldOver = exporters.joinedPresence(window)
                .map(query -> api.instant(query, at).thenApply(exporters::heldOver).exceptionally(failed -> null))
                .orElse(CompletableFuture.completedFuture(null));
        boolean recorded = hourlyRecordsCover(at, window);
        Map<String, Object> overWindow = Map.of("where", where, "window", window, "cluster", by);
        boolean percentilesRecorded = clusterKeepingRecordsCover(RecordingRules.Group.HOURLY_UTILISATION, at, window);
        var p95 = batch.query(Measure.CONTAINER_UTILISATION_P95,
                (percentilesRecorded ? RECORDED_UTILISATION_P95 : UTILISATION_P95).bind(overWindow));
        var peaks = batch.query(Measure.CONTAINER_MEMORY_PEAK, (recorded ? RECORDED_MEMORY_PEAK : MEMORY_PEAK)
                .bind(overWindow));
        var samples = batch.query(Measure.CONTAINER_SAMPLES, (recorded ? RECORDED_MEMORY_SAMPLES : MEMORY_SAMPLES)
                .bind(overWindow));
        var memoryMedian = batch.query(Measure.CONTAINER_MEMORY_MEDIAN, (recorded ? RECORDED_MEMORY_MEDIAN
                : MEMORY_MEDIAN).bind(overWindow));
        var utilisationMedian = batch.query(Measure.CONTAINER_UTILISATION_MEDIAN,
                (percentilesRecorded ? RECORDED_UTILISATION_MEDIAN : UTILISATION_MEDIAN).bind(overWindow));
        boolean ownersRecorded = clusterKeepingRecordsCover(RecordingRules.Group.OWNERS, at, window);
        var podOwners = batch.query(Measure.CONTAINER_OWNER, podOwnersOverWindow(ownersRecorded)
                .bind(Map.of("owners", owners, "window", window, "cluster", by)));
        var shareHours = batch.query(Measure.CONTAINER_HOURS, containerHours(recorded)
                .bind(overWindow));
        // The workload record keeps no pod, node or card: a narrowed read joins at each hour itself.
        var groupHours = batch.query(Measure.WORKLOAD_HOURS, workloadHours(ownersRecorded && where.labels().isEmpty())
                .bind(Map.of("where", where, "owners", owners, "window", window, "cluster", by)));
        // Last, so that waiting for the lookup holds back no other query.
        var exported = exporters.over(batch::query, window, recentPart, RightSizing.IDLE_AFTER, heldOver.join());
        batch.await();

        String[] shareKey = {clusterLabel, "namespace", "pod", "container", "device_uuid"};
        Map<String, Double> p95ByShare = byKey(p95.join(), shareKey);
        Map<String, Double> samplesByShare = byKey(samples.join(), shareKey);
        Map<String, Double> recentByShareCount = byKey(recentSamples.join(), shareKey);
        Map<String, Double> recentByShare = byKey(recent.join(), shareKey);
        Map<String, Double> memoryMedianByShare = byKey(memoryMedian.join(), shareKey);
        Map<String, Double> utilisationMedianByShare = byKey(utilisationMedian.join(), shareKey);
        Map<String, Double> hoursByShare = byKey(shareHours.join(), shareKey);
        Map<String, Sample> ownerByPod = new HashMap<>();
        podOwners.join().forEach(owner -> ownerByPod.putIfAbsent(key(owner, clusterLabel, "namespace", "pod"), owner));
        List<UsageHistory.ShareHistory> shares = new ArrayList<>();
        for (Sample peak : peaks.join()) {
            String id = key(peak, shareKey);
            Sample owner = ownerByPod.get(key(peak, clusterLabel, "namespace", "pod"));
            String inCluster = peak.label(clusterLabel);
            // A pod no owner series names (an exporter before the series, a pod gone before it) is its own workload.
            WorkloadGroup workload = owner == null || owner.label("owner_kind").isEmpty()
                    ? WorkloadGroup.barePod(inCluster, peak.label("namespace"), peak.label("pod"), peak.label("container"))
                    : new WorkloadGroup(inCluster, peak.label("namespace"), owner.label("owner_kind"),
                    owner.label("owner_name"), peak.label("container"));
            Double hours = hoursByShare.get(id);
            shares.add(new UsageHistory.ShareHistory(peak.label("namespace"), peak.label("pod"),
                    peak.label("container"), peak.label("device_uuid"), figure(peak.value()),
                    figure(p95ByShare.get(id), Absence.NOT_SUPPORTED), count(samplesByShare.get(id)),
                    Math.max(0, count(samplesByShare.get(id)) - count(recentByShareCount.get(id))),
                    figure(recentByShare.get(id), Absence.NOT_REPORTED), workload,
                    figure(memoryMedianByShare.get(id)), figure(utilisationMedianByShare.get(id),
                    Absence.NOT_SUPPORTED), hours == null || hours.isNaN() ? -1 : count(hours)));
        }
        Set<List<String>> reported = new HashSet<>();
        shares.forEach(share -> reported.add(List.of(share.namespace(), share.pod(), share.container(), share.uuid())));
        Map<ExporterUsageQueries.Window, List<Sample>> windows = new EnumMap<>(ExporterUsageQueries.Window.class);
        exported.forEach((window1, answer) -> windows.put(window1, answer.join()));
        shares.addAll(ExporterUsageQueries.histories(windows, reported));
        Map<WorkloadGroup, Long> workloadHours = new HashMap<>();
        for (Sample hours : groupHours.join()) {
            if (!Double.isNaN(hours.value()) && !hours.label("owner_kind").isEmpty()) {
                workloadHours.putIfAbsent(new WorkloadGroup(hours.label(clusterLabel), hours.label("namespace"), hours.label("owner_kind"),
                        hours.label("owner_name"), hours.label("container")), count(hours.value()));
            }
        }
        return new UsageHistory(at, window, settledAfter, shares, workloadHours, batch.provenance);
    }

    @Override
    public Stuck stuck(Instant at, Duration idleAfter) throws SourceUnavailableException {
        probeOnce();
        Batch batch = new Batch(at);
        var ghostSince = batch.query(Measure.GHOST_SINCE, GHOST_SINCE.plain());
        var ghostCards = batch.query(Measure.GHOST_CARDS, GHOST_CARDS.plain());
        var zombieMemory = batch.query(Measure.ZOMBIE_MEMORY, ZOMBIE_MEMORY.plain());
        var zombieSeen = batch.query(Measure.ZOMBIE_FIRST_SEEN, ZOMBIE_FIRST_SEEN.plain());
        var cardMemory = batch.query(Measure.ZOMBIE_CARD_MEMORY, ZOMBIE_CARD_MEMORY.plain());
        var idle = batch.query(Measure.IDLE_LAST_KERNEL, IDLE_LAST_KERNEL.bind("seconds", idleAfter.toSeconds()));
        var pendingPods = batch.query(Measure.PENDING_PODS, PENDING_PODS.plain());
        var pendingWait = batch.query(Measure.PENDING_OLDEST_WAIT, PENDING_OLDEST_WAIT.plain());
        batch.await();
        String[] ghostKey = {"namespace", "pod", "node", "device_uuid", "reason"};
        Map<String, Double> cards = byKey(ghostCards.join(), ghostKey);
        List<Stuck.GhostShare> ghosts = new ArrayList<>();
        for (Sample sample : ghostSince.join()) {
            if (Double.isFinite(sample.value())) {
                Double size = cards.get(key(sample, ghostKey));
                ghosts.add(new Stuck.GhostShare(sample.label("namespace"), sample.label("pod"), sample.label("node"),
                        sample.label("device_uuid"), sample.label("reason"), sample.value(),
                        size == null || !Double.isFinite(size) ? OptionalDouble.empty() : OptionalDouble.of(size)));
            }
        }
        String[] zombieKey = {"node", "device_uuid", "namespace", "pod", "container"};
        Map<String, Double> seen = byKey(zombieSeen.join(), zombieKey);
        Map<String, Double> totals = byKey(cardMemory.join(), "device_uuid");
        List<Stuck.Zombie> zombies = new ArrayList<>();
        for (Sample sample : zombieMemory.join()) {
            Double first = seen.get(key(sample, zombieKey));
            Double total = totals.get(sample.label("device_uuid"));
            zombies.add(new Stuck.Zombie(sample.label("node"), sample.label("device_uuid"), sample.label("namespace"),
                    sample.label("pod"), sample.label("container"), sample.value(),
                    first == null || !Double.isFinite(first) ? OptionalDouble.empty() : OptionalDouble.of(first),
                    total == null ? OptionalDouble.empty() : OptionalDouble.of(total)));
        }
        List<Stuck.Idle> idles = new ArrayList<>();
        for (Sample sample : idle.join()) {
            idles.add(new Stuck.Idle(sample.label("namespace"), sample.label("pod"), sample.label("container"),
                    sample.label("node"), sample.label("device_uuid"), sample.value()));
        }
        String[] pendingKey = {"namespace", "reason"};
        Map<String, Double> waits = byKey(pendingWait.join(), pendingKey);
        List<Stuck.PendingGroup> pending = new ArrayList<>();
        for (Sample sample : pendingPods.join()) {
            if (Double.isFinite(sample.value()) && sample.value() > 0) {
                pending.add(new Stuck.PendingGroup(sample.label("namespace"), sample.label("reason"),
                        (long) sample.value(), waits.getOrDefault(key(sample, pendingKey), 0.0)));
            }
        }
        return new Stuck(at, idleAfter, ghosts, zombies, idles, pending, batch.provenance);
    }

    @Override
    public CardHours cardHours(Instant from, Instant to) throws SourceUnavailableException {
        if (!from.isBefore(to)) {
            throw new IllegalArgumentException("the window's start " + from + " is not before its end " + to);
        }
        probeOnce();
        Duration window = Duration.ofSeconds(Math.max(60, Duration.between(from, to).toSeconds() / 60 * 60));
        Duration step = Showback.step(window);
        Map<String, Object> values = Map.of("window", window, "step", step, "stepSeconds", step.toSeconds());
        CardHourQueries queries = FleetQueries.cardHours(clusterLabel);
        Batch batch = new Batch(to);
        Optional<Instant> lastRun = showbackLastRun(to, window);
        Optional<Instant> nextRun = lastRun.isPresent() && lastRun.get().isBefore(to)
                ? showbackRunAfter(lastRun.get(), to) : Optional.empty();
        Function<FleetQueries.Integral, PromQl.Query> integral = integrals(to, window, values, lastRun, nextRun);
        Instant integralsAt = nextRun.orElse(to);
        var seen = batch.query(Measure.CARD_SECONDS_SEEN, integral.apply(queries.seen()), integralsAt);
        var unavailable = batch.query(Measure.CARD_SECONDS_UNAVAILABLE, integral.apply(queries.unavailable()),
                integralsAt);
        var models = batch.query(Measure.CARD_MODELS, (lastRun.isPresent() ? queries.recordedModels()
                : queries.models()).bind(values));
        var allocated = batch.query(Measure.SHARE_CARD_SECONDS_ALLOCATED, integral.apply(queries.allocated()),
                integralsAt);
        var used = batch.query(Measure.SHARE_CARD_SECONDS_USED, integral.apply(queries.used()), integralsAt);
        var memory = batch.query(Measure.SHARE_MEMORY_SECONDS, integral.apply(queries.memory()), integralsAt);
        var cores = batch.query(Measure.SHARE_CORE_SECONDS, integral.apply(queries.cores()), integralsAt);
        // Each pod's owner as right-sizing reads it: from the hourly owner records when they cover
        // the window and keep this console's cluster label, so a month reads 720 samples a pod.
        boolean ownersRecorded = clusterLabel.equals(RecordingRules.CLUSTER_LABEL)
                && coverage.covers(RecordingRules.Group.OWNERS, to, window);
        var owners = batch.query(Measure.POD_OWNERS, podOwnersOverWindow(ownersRecorded).bind(Map.of(
                "owners", PromQl.Matchers.NONE, "window", window, "cluster", new PromQl.Label(clusterLabel))));
        var active = batch.query(Measure.SHARE_ACTIVE, queries.active().plain());
        batch.await();
        String[] card = {clusterLabel, "node", "device_uuid"};
        String[] share = {clusterLabel, "namespace", "pod", "container", "node", "device_uuid"};
        Map<String, Double> unavailableSeconds = byKey(unavailable.join(), card);
        Map<String, String> modelOf = new HashMap<>();
        models.join().forEach(sample -> modelOf.putIfAbsent(key(sample, card), sample.label("device_type")));
        List<CardAccrual> cards = new ArrayList<>();
        for (Sample sample : seen.join()) {
            String id = key(sample, card);
            cards.add(new CardAccrual(sample.label(clusterLabel), sample.label("node"), sample.label("device_uuid"),
                    modelOf.getOrDefault(id, ""), sample.value(), unavailableSeconds.getOrDefault(id, 0.0)));
        }
        Map<String, Sample> ownerOf = new HashMap<>();
        owners.join().forEach(sample -> ownerOf.putIfAbsent(key(sample, clusterLabel, "namespace", "pod"), sample));
        Map<String, Double> usedSeconds = byKey(used.join(), share);
        Map<String, Double> memorySeconds = byKey(memory.join(), share);
        Map<String, Double> coreSeconds = byKey(cores.join(), share);
        Map<String, Double> activeShares = byKey(active.join(), share);
        List<ShareAccrual> shares = new ArrayList<>();
        for (Sample sample : allocated.join()) {
            String id = key(sample, share);
            Sample owner = ownerOf.get(key(sample, clusterLabel, "namespace", "pod"));
            shares.add(new ShareAccrual(sample.label(clusterLabel), sample.label("namespace"),
                    owner == null ? "Pod" : owner.label("owner_kind"),
                    owner == null ? sample.label("pod") : owner.label("owner_name"), sample.label("pod"),
                    sample.label("container"), sample.label("node"), sample.label("device_uuid"), sample.value(),
                    usedSeconds.getOrDefault(id, 0.0), memorySeconds.getOrDefault(id, 0.0),
                    coreSeconds.getOrDefault(id, 0.0), activeShares.containsKey(id)));
        }
        return new CardHours(to.minus(window), to, cards, shares, batch.provenance);
    }

    /**
     * When showback's hourly records were last written, where they can serve a read over
     * {@code (to - window, to]}: they cover the window, keep the cluster label this console reads,
     * and the group's last run is at least a whole hour into the window and not after its end.
     * Empty: everything is read from the raw series.
     */
    private Optional<Instant> showbackLastRun(Instant to, Duration window) throws SourceUnavailableException {
        if (!clusterLabel.equals(RecordingRules.CLUSTER_LABEL)
                || !coverage.covers(RecordingRules.Group.SHOWBACK, to, window)) {
            return Optional.empty();
        }
        Instant from = to.minus(window);
        return coverage.lastRun(RecordingRules.Group.SHOWBACK, to, window)
                .filter(run -> !run.isAfter(to) && Duration.between(from, run).toHours() >= 1);
    }

    /**
     * The showback group's run an hour after {@code lastRun}, where it happened and lies after
     * {@code to}: its records hold the minutes of {@code (lastRun, to]}, as for a report of a past
     * month. Empty for a window that ends within the last hour (no such run yet), and where the
     * coverage's last run is not the last before {@code to} (asked at most minutes ago).
     */
    private Optional<Instant> showbackRunAfter(Instant lastRun, Instant to) throws SourceUnavailableException {
        Instant next = lastRun.plus(Duration.ofHours(1));
        // A run stamped after the wall clock is no run that read the minutes it records: a replay
        // wrote it (vmalert -replay and promtool's backfill evaluate up to the end they are given),
        // over series that had not happened yet.
        if (!next.isAfter(to) || next.isAfter(clock.instant())) {
            return Optional.empty();
        }
        // Not narrowed to a cluster, as the coverage is not: the group's own series carry no cluster.
        List<Sample> ran = PrometheusApi.await(api.instant(FleetQueries.RULE_RAN.bind("group",
                RecordingRules.Group.SHOWBACK.label), next));
        return ran.stream().anyMatch(sample -> sample.value() >= 1) ? Optional.of(next) : Optional.empty();
    }

    /**
     * How showback's integrals are read over {@code (to - window, to]}: from the hourly records
     * (docs/console.md "Recording rules") when {@code lastRun} says they serve it, otherwise every
     * integral from the raw series at the window's step.
     *
     * <p>From the records: the whole hours up to that run; the minutes before them (under an hour)
     * as the record of the hour that holds them, scaled to their part of it; the minutes after the
     * run as the next run's record, scaled likewise, where {@code nextRun} says it happened (the
     * queries are then asked at that run), else from the raw series: as they stand at the window's
     * end where they are no longer than the window's own step ({@link Showback#step}), else at
     * each step. Each raw instant
     * evaluates the expression that sizes every share (about a CPU second of Prometheus's at 10,000
     * shares, docs/benchmarks.md), so a window ending now costs one such instant and one that ended
     * before the last run none. A share that starts or stops within the ends is counted to their
     * hour's average or to the nearest step; every figure is read the same way, so a report's rows
     * still add up exactly.
     */
    private Function<FleetQueries.Integral, PromQl.Query> integrals(Instant to, Duration window,
                                                                   Map<String, Object> values,
                                                                   Optional<Instant> lastRun,
                                                                   Optional<Instant> nextRun) {
        Instant from = to.minus(window);
        if (lastRun.isEmpty()) {
            return part -> scoped(part.raw().bind(values));
        }
        long last = lastRun.get().toEpochMilli();
        long hours = (last - from.toEpochMilli()) / 3_600_000;
        long recordedFrom = last - hours * 3_600_000;
        long head = recordedFrom - from.toEpochMilli();
        long tail = to.toEpochMilli() - last;
        long askedAt = nextRun.map(Instant::toEpochMilli).orElse(to.toEpochMilli());
        long tailStepMs = Math.max(1, Math.min(tail, Showback.step(window).toMillis()));
        Map<String, Object> parts = Map.of("recordedMs", hours * 3_600_000 - 1, "recordedOffsetMs", askedAt - last,
                "headOffsetMs", askedAt - recordedFrom, "headFraction", head / 3_600_000.0,
                "tailMs", Math.max(1, tail - 1), "tailStepMs", tailStepMs, "tailStepSeconds", tailStepMs / 1000.0,
                "tailSeconds", tail / 1000.0, "tailFraction", tail / 3_600_000.0);
        FleetQueries.Tail ends = tail <= 0 ? FleetQueries.Tail.NONE
                : nextRun.isPresent() ? FleetQueries.Tail.RECORDED
                : tailStepMs < tail ? FleetQueries.Tail.STEPS : FleetQueries.Tail.INSTANT;
        return part -> scoped(part.recorded(head > 0, ends).bind(parts));
    }

    @Override
    public TrendSet trends(TrendScope scope, Instant end, Duration range, Duration step)
            throws SourceUnavailableException {
        probeOnce();
        TrendSet.Grid grid = TrendSet.Grid.of(end, range, step);
        long stepSeconds = grid.step();
        int steps = grid.steps();
        long first = grid.first();
        long last = grid.at(steps - 1);
        Map<Measure, PromQl.Query> queries = new LinkedHashMap<>();
        // The cluster's lines that a rule group records: each read from the records at the steps
        // they serve, raw at the others (RecordedSteps).
        Map<Measure, Recorded> recorded = new HashMap<>();
        switch (scope) {
            case TrendScope.Cluster cluster -> {
                // Each step the card lines' group (a run a minute) served shows the cards at its
                // last run before the step, as a raw step shows them at its instant: one series a
                // cluster rather than every card, at an hour's 15-second steps (a run's figure
                // repeated over four) as at a month's three hours.
                CompletableFuture<RecordedSteps> linesAsked = recordedSteps(RecordingRules.Group.CARD_LINES, grid);
                CompletableFuture<RecordedSteps> funnelAsked = recordedSteps(this.cluster.isEmpty()
                        ? RecordingRules.Group.FUNNEL : RecordingRules.Group.FUNNEL_BY_CLUSTER, grid);
                RecordedSteps lines = PrometheusApi.await(linesAsked);
                RecordedSteps funnel = PrometheusApi.await(funnelAsked);
                recorded.put(Measure.TREND_MEMORY_TOTAL, new Recorded(RECORDED_CLUSTER_MEMORY_TOTAL.plain(), lines));
                recorded.put(Measure.TREND_MEMORY_ALLOCATED,
                        new Recorded(RECORDED_CLUSTER_MEMORY_ALLOCATED.plain(), lines));
                recorded.put(Measure.TREND_MEMORY_USED, new Recorded(RECORDED_CLUSTER_MEMORY_USED.plain(), lines));
                recorded.put(Measure.TREND_CORES_ALLOCATED,
                        new Recorded(RECORDED_CLUSTER_CORES_ALLOCATED.plain(), lines));
                recorded.put(Measure.TREND_UTILISATION, new Recorded(RECORDED_CLUSTER_UTILISATION.plain(), lines));
                queries.put(Measure.TREND_MEMORY_TOTAL, CLUSTER_MEMORY_TOTAL.plain());
                queries.put(Measure.TREND_MEMORY_ALLOCATED, CLUSTER_MEMORY_ALLOCATED.plain());
                queries.put(Measure.TREND_MEMORY_USED, CLUSTER_MEMORY_USED.plain());
                queries.put(Measure.TREND_CORES_ALLOCATED, CLUSTER_CORES_ALLOCATED.plain());
                queries.put(Measure.TREND_UTILISATION, CLUSTER_UTILISATION.plain());
                Map<String, Object> by = Map.of("cluster", new PromQl.Label(clusterLabel));
                recorded.put(Measure.TREND_FUNNEL_TOTAL, new Recorded(RECORDED_FUNNEL_TOTAL.bind(by), funnel));
                recorded.put(Measure.TREND_FUNNEL_ALLOCATED, new Recorded(RECORDED_FUNNEL_ALLOCATED.bind(by), funnel));
                recorded.put(Measure.TREND_FUNNEL_ACTIVE, new Recorded(RECORDED_FUNNEL_ACTIVE.bind(by), funnel));
                recorded.put(Measure.TREND_FUNNEL_EFFECTIVE, new Recorded(RECORDED_FUNNEL_EFFECTIVE.bind(by), funnel));
                queries.put(Measure.TREND_FUNNEL_TOTAL, FUNNEL_TOTAL.bind(by));
                queries.put(Measure.TREND_FUNNEL_ALLOCATED, FUNNEL_ALLOCATED.bind(by));
                queries.put(Measure.TREND_FUNNEL_ACTIVE, FUNNEL_ACTIVE.bind(by));
                queries.put(Measure.TREND_FUNNEL_EFFECTIVE, FUNNEL_EFFECTIVE.bind(by));
            }
            case TrendScope.Node node -> {
                queries.put(Measure.TREND_MEMORY_TOTAL, NODE_MEMORY_TOTAL.bind("node", node.name()));
                queries.put(Measure.TREND_MEMORY_ALLOCATED, NODE_MEMORY_ALLOCATED.bind("node", node.name()));
                queries.put(Measure.TREND_MEMORY_USED, NODE_MEMORY_USED.bind("node", node.name()));
                queries.put(Measure.TREND_CORES_ALLOCATED, NODE_CORES_ALLOCATED.bind("node", node.name()));
                queries.put(Measure.TREND_UTILISATION, NODE_UTILISATION.bind("node", node.name()));
            }
            case TrendScope.OneCard card -> {
                queries.put(Measure.TREND_MEMORY_TOTAL, CARD_TREND_MEMORY_TOTAL.bind("uuid", card.uuid()));
                queries.put(Measure.TREND_MEMORY_ALLOCATED, CARD_TREND_MEMORY_ALLOCATED.bind("uuid", card.uuid()));
                queries.put(Measure.TREND_MEMORY_USED, orExported(CARD_TREND_MEMORY_USED.bind("uuid", card.uuid()),
                        UsageSeries.Kind.CARD_MEMORY_USED, card.uuid()));
                queries.put(Measure.TREND_CORES_ALLOCATED, CARD_TREND_CORES_ALLOCATED.bind("uuid", card.uuid()));
                queries.put(Measure.TREND_UTILISATION, orExported(CARD_TREND_UTILISATION.bind("uuid", card.uuid()),
                        UsageSeries.Kind.CARD_UTILISATION, card.uuid()));
                queries.put(Measure.TREND_TEMPERATURE, CARD_TREND_TEMPERATURE.bind("uuid", card.uuid()));
                queries.put(Measure.TREND_POWER, CARD_TREND_POWER.bind("uuid", card.uuid()));
            }
            case TrendScope.OneWorkload workload -> {
                Map<String, Object> byName = Map.of("namespace", workload.ref().namespace(),
                        "pod", workload.ref().pod(), "container", workload.ref().container(),
                        "step", Duration.ofSeconds(stepSeconds));
                queries.put(Measure.TREND_MEMORY_USED, WORKLOAD_MEMORY_USED.bind(byName));
                queries.put(Measure.TREND_UTILISATION, WORKLOAD_UTILISATION.bind(byName));
                if (workload.containerIndex() >= 0) {
                    Map<String, Object> byIndex = Map.of("namespace", workload.ref().namespace(),
                            "pod", workload.ref().pod(), "index", Integer.toString(workload.containerIndex()),
                            "cluster", new PromQl.Label(clusterLabel));
                    queries.put(Measure.TREND_MEMORY_ALLOCATED, WORKLOAD_MEMORY_ALLOCATED.bind(byIndex));
                    queries.put(Measure.TREND_CORES_ALLOCATED, WORKLOAD_CORES_ALLOCATED.bind(byIndex));
                }
            }
        }
        Map<Measure, CompletableFuture<List<PrometheusApi.Series>>> answers = new LinkedHashMap<>();
        queries.replaceAll((measure, query) -> scoped(query));
        recorded.replaceAll((measure, from) -> new Recorded(scoped(from.query()), from.served()));
        Recorded none = new Recorded(null, RecordedSteps.none(grid));
        queries.forEach((measure, query) -> answers.put(measure, recorded.getOrDefault(measure, none).served()
                .read(api, query, recorded.getOrDefault(measure, none).query())));
        List<Trend> trends = new ArrayList<>();
        for (Map.Entry<Measure, CompletableFuture<List<PrometheusApi.Series>>> answer : answers.entrySet()) {
            Recorded from = recorded.getOrDefault(answer.getKey(), none);
            Provenance provenance = from.served().provenance(queries.get(answer.getKey()), from.query());
            List<PrometheusApi.Series> series = PrometheusApi.await(answer.getValue());
            if (series.isEmpty()) {
                trends.add(Trend.aligned(answer.getKey(), "", provenance, first, stepSeconds, steps, List.of()));
            }
            for (PrometheusApi.Series each : series) {
                trends.add(Trend.aligned(answer.getKey(), each.labels().getOrDefault("device_uuid", ""), provenance,
                        first, stepSeconds, steps, each.points()));
            }
        }
        return new TrendSet(scope, first, stepSeconds, steps, trends);
    }

    /**
     * The steps of {@code grid} that {@code group}'s records serve ({@link RecordedSteps}), asked now.
     * One cluster's chart of several trusts them only where the console's cluster label is the
     * records' own, and then only the runs that wrote them by cluster ({@code *_BY_CLUSTER}); the
     * fleet's chart adds every cluster's up, which the records of earlier rule files (one series for
     * the whole engine) serve as well.
     */
    private CompletableFuture<RecordedSteps> recordedSteps(RecordingRules.Group group, TrendSet.Grid grid) {
        if (cluster.isPresent() && !clusterLabel.equals(RecordingRules.CLUSTER_LABEL)) {
            return CompletableFuture.completedFuture(RecordedSteps.none(grid));
        }
        return RecordedSteps.asked(api, group, grid);
    }

    /** A chart line's records ({@code query}, null where none) and the steps they serve. */
    private record Recorded(PromQl.Query query, RecordedSteps served) {
    }

    /**
     * A card's trend from the node role's series, or at the steps it has none from the vendor's
     * own exporter (the card's figure of that kind, as the card page reads it now): a card that only
     * its vendor's exporter reports still draws its use.
     */
    private PromQl.Query orExported(PromQl.Query own, UsageSeries.Kind kind, String uuid) {
        return exporters.now(kind, uuid).map(exported -> new PromQl.Query(own.name(),
                "(" + own.expression() + ") or max(" + exported.expression() + ")")).orElse(own);
    }

    private static Figure figure(Double value) {
        return figure(value, Absence.NOT_REPORTED);
    }

    private static Figure figure(Double value, Absence why) {
        return value == null || value.isNaN() || value.isInfinite() ? Figure.missing(why) : Figure.of(value);
    }

    private static long count(Double value) {
        return value == null || value.isNaN() ? 0 : Math.round(value);
    }

    private static int index(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException notIndex) {
            return -1;
        }
    }

    private static String key(Sample sample, String... labels) {
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < labels.length; i++) {
            // One separator between every two labels, empty values included: a key always splits in as many parts.
            if (i > 0) {
                key.append('\u0000');
            }
            key.append(sample.label(labels[i]));
        }
        return key.toString();
    }

    /** The first value per key (label values joined by NUL, which no label value holds). */
    private static Map<String, Double> byKey(List<Sample> samples, String... labels) {
        Map<String, Double> values = new HashMap<>();
        samples.forEach(sample -> values.putIfAbsent(key(sample, labels), sample.value()));
        return values;
    }
}
