package io.hamiobserve.adapters.prometheus;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The console's recording rules: the series they record and the expressions they record, which
 * are also the console's fallback queries. The rule file itself is
 * {@code alerts/hami-observe-console.rules.yml}, packaged into this module ({@link #file()}) so
 * the Prometheus the demo starts loads the same rules an operator deploys.
 */
final class RecordingRules {
    private RecordingRules() {
    }

    /** The file's name, as packaged beside this class. */
    static final String FILE = "hami-observe-console.rules.yml";

    /** One sample per evaluation of each group, labelled {@code group}: which windows the rules cover. */
    static final String EVALUATED = "hami_observe:console_rules:evaluated";
    static final String CONTAINER_MEMORY_PEAK_HOURLY = "container:hami_vgpu_memory_used_bytes:max_1h";
    static final String CONTAINER_MEMORY_SAMPLES_HOURLY = "container:hami_vgpu_memory_used_bytes:count_1h";
    static final String CONTAINER_UTILISATION_P95_HOURLY = "container:hami_container_device_utilization_ratio:p95_1h";
    static final String CONTAINER_UTILISATION_MEDIAN_HOURLY = "container:hami_container_device_utilization_ratio:p50_1h";
    static final String POD_OWNER_HOURLY = "pod:hami_observe_pod_owner:last_1h";
    static final String WORKLOAD_MEMORY_PEAK_HOURLY = "workload:hami_vgpu_memory_used_bytes:max_1h";

    /**
     * The label every console record keeps clusters apart by ({@code by (cluster, ...)}): the
     * console's default --cluster-label. A console told another label reads showback from the raw
     * series, and right-sizing and one cluster's funnel chart too wherever its engine holds
     * several clusters.
     */
    static final String CLUSTER_LABEL = "cluster";
    /** An hour less a millisecond: an hourly rule's range, open at its left end whatever the engine. */
    static final String HOUR_LESS_A_MILLISECOND = "59m59s999ms";
    /**
     * The step of showback's hourly integrals: twelve an hour. Each step sizes every share (its memory
     * over its card's, joined, and its cores), which at a step a minute made the showback group
     * 0.76 CPU second of Prometheus a console refresh at 10,000 shares scraped every minute, most
     * of what a refresh costs (docs/benchmarks.md). A step reads each series' last sample within
     * the {@link #LOOKBACK}, as long as the step, so a share is counted from its first sample to its
     * last and a lookback after, as at a step a minute, to the nearest five minutes instead of the
     * nearest minute; the raw reads a report falls back to integrate a week at hourly steps.
     */
    static final java.time.Duration SHOWBACK_STEP = java.time.Duration.ofMinutes(5);
    // Showback's hourly integrals (FleetQueries.Integral): each card's seconds seen and unavailable,
    // each share's card-seconds allocated and used, memory byte-seconds and core-percent-seconds.
    static final String CARD_SECONDS_SEEN = "cluster_card:hami_observe_card_seconds_seen:sum_1h";
    static final String CARD_SECONDS_UNAVAILABLE = "cluster_card:hami_observe_card_seconds_unavailable:sum_1h";
    static final String SHARE_CARD_SECONDS_ALLOCATED = "cluster_share:hami_observe_share_card_seconds_allocated:sum_1h";
    static final String SHARE_CARD_SECONDS_USED = "cluster_share:hami_observe_share_card_seconds_used:sum_1h";
    static final String SHARE_MEMORY_BYTE_SECONDS = "cluster_share:hami_observe_share_memory_byte_seconds:sum_1h";
    static final String SHARE_CORE_PERCENT_SECONDS = "cluster_share:hami_observe_share_core_percent_seconds:sum_1h";
    /** Each card's model (its memory limit, labelled {@code device_type}) at each hour, for showback by model. */
    static final String CARD_MODEL_HOURLY = "cluster_card:hami_gpu_memory_limit_bytes:last_1h";

    // The fleet funnel every five minutes (FleetQueries.FUNNEL_*): the overview's charts read these
    // rather than joining every share with its card at each step.
    static final String FUNNEL_HEALTHY = "hami_observe:funnel_cards_healthy:count";
    static final String FUNNEL_ALLOCATED = "hami_observe:funnel_cards_allocated:sum";
    static final String FUNNEL_ACTIVE = "hami_observe:funnel_cards_active:sum";
    static final String FUNNEL_EFFECTIVE = "hami_observe:funnel_cards_effective:sum";
    // The overview's other lines, each card series summed (or counted) by cluster, recorded every
    // minute by a group of their own (FleetQueries.CardLine): a chart reads one series a cluster at
    // each step instead of every card.
    static final String LINE_MEMORY_TOTAL = "cluster:hami_gpu_memory_limit_bytes:sum";
    static final String LINE_MEMORY_ALLOCATED = "cluster:hami_gpu_memory_allocated_bytes:sum";
    static final String LINE_MEMORY_USED = "cluster:hami_host_gpu_memory_used_bytes:sum";
    static final String LINE_CORES_PERCENT_SUM = "cluster:hami_observe_gpu_core_allocated_percent:sum";
    static final String LINE_CORES_PERCENT_COUNT = "cluster:hami_observe_gpu_core_allocated_percent:count";
    static final String LINE_CORES_ALLOCATED = "cluster:hami_gpu_core_allocated_ratio:sum";
    static final String LINE_CORES_LIMIT = "cluster:hami_gpu_core_limit_ratio:sum";
    static final String LINE_UTILISATION_SUM = "cluster:hami_host_gpu_utilization_ratio:sum";
    static final String LINE_UTILISATION_COUNT = "cluster:hami_host_gpu_utilization_ratio:count";
    /**
     * How often the funnel group runs (its {@code interval} in the rule file): each run joins every
     * share with its card three times, about 1.1 CPU seconds of Prometheus at 10,000 shares, so a
     * run a minute would cost more than the charts it serves (docs/benchmarks.md).
     */
    static final java.time.Duration FUNNEL_INTERVAL = java.time.Duration.ofMinutes(5);
    /**
     * How far back a chart's step looks for the funnel's last run: two intervals and a minute, so
     * that one missed run is bridged by the run before it. Runs do go missing: Prometheus skips an
     * iteration whose evaluation overran, and promtool's backfill skips the run that falls in the
     * last second of each of its two-hour blocks (a group whose hashed offset lands there: 1 in 300).
     */
    static final long FUNNEL_LOOKBACK_SECONDS = java.time.Duration.ofMinutes(11).toSeconds();
    /** {@link #FUNNEL_LOOKBACK_SECONDS} as PromQL writes a range: {@code 11m}. */
    static final String FUNNEL_LOOKBACK = FUNNEL_LOOKBACK_SECONDS / 60 + "m";
    /** How long one of promtool's backfilled blocks is: it may miss one run of a group in each. */
    static final java.time.Duration BACKFILL_BLOCK = java.time.Duration.ofHours(2);

    /**
     * A rule group, by the {@code group} label of its {@link #EVALUATED} series. The hourly and
     * funnel groups write a second one, {@code <group>-by-cluster}: their records keep the cluster
     * label since it was written, so a read of one cluster of several trusts only the runs that
     * carry it (records from before group every cluster's pods of the same name together). The
     * hourly group's {@code hourly-utilisation} says which runs recorded each container's hourly
     * percentiles of utilisation too (those of earlier files did not). The card lines' group's
     * {@code card-lines} says when the overview's other lines ({@code LINE_*}, by cluster) were
     * recorded: every minute, or every five where earlier rule files recorded them with the funnel.
     */
    enum Group {
        HOURLY("hourly"), HOURLY_BY_CLUSTER("hourly-by-cluster"), HOURLY_UTILISATION("hourly-utilisation"),
        SHOWBACK("showback"), OWNERS("owners"), FUNNEL("funnel"), FUNNEL_BY_CLUSTER("funnel-by-cluster"),
        CARD_LINES("card-lines");

        final String label;

        Group(String label) {
            this.label = label;
        }
    }

    /** The lookback written into subqueries: Prometheus's default, stated so every engine uses it. */
    static final String LOOKBACK = "5m";

    /** The rule file's text. */
    static String file() {
        try (InputStream in = RecordingRules.class.getResourceAsStream(FILE)) {
            if (in == null) {
                throw new IllegalStateException(FILE + " is not packaged beside " + RecordingRules.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
    }
}
