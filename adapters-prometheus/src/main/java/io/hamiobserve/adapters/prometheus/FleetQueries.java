package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.adapters.prometheus.PromQl.Template;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Every query the console sends, named. Each reads one of HAMi's series (or one of this project's
 * additions) for the whole fleet at once, so the number of queries per page is fixed whatever the
 * fleet's size; scoped queries (one node, card or workload) fill their label values through
 * {@link PromQl}.
 *
 * <p>Allocation-side series can come from more than one scheduler replica: they are reduced with
 * {@code max by} over the labels that identify the thing, so a replica does not double a total.
 */
final class FleetQueries {
    private FleetQueries() {
    }

    private static final String CARD = "node, device_uuid, device_index, device_type";
    // Per container: the exporter's detail series where a pod has it, else HAMi's pod series
    // (ShareSeries). HAMi v2.10's hami_vgpu_*_allocated_* hold a pod's effective use under
    // container_index 0, right for namespace sums (chargeback), and a container's share only where
    // the pod has one container holding cards (the pods the exporter writes no detail for).
    private static final String ALLOCATION = "namespace, pod, container_index, node, device_uuid";
    private static final String USE = "namespace, pod, container, node, device_uuid";

    // The fleet now.
    // Each card's allocation figures, with the cluster that registers it (the label --cluster-label
    // names; absent from every series of a single cluster, so the grouping is then the card's alone):
    // a read keeps them node by node of each cluster (KeptNodeSeries).
    static final Template CARD_MEMORY_TOTAL = new Template("card_memory_total",
            "max by (${cluster}, " + CARD + ") (hami_gpu_memory_limit_bytes)");
    static final Template CARD_MEMORY_ALLOCATED = new Template("card_memory_allocated",
            "max by (${cluster}, " + CARD + ") (hami_gpu_memory_allocated_bytes)");
    static final Template CARD_CORES_TOTAL = new Template("card_cores_total",
            "max by (${cluster}, " + CARD + ") (hami_gpu_core_limit_ratio)");
    static final Template CARD_CORES_ALLOCATED = new Template("card_cores_allocated",
            "max by (${cluster}, " + CARD + ") (hami_gpu_core_allocated_ratio)");
    static final Template CARD_CORES_ALLOCATED_PERCENT = new Template("card_cores_allocated_percent",
            "max by (${cluster}, " + CARD + ") (hami_observe_gpu_core_allocated_percent)");
    static final Template CARD_SLOTS_USED = new Template("card_slots_used",
            "max by (${cluster}, " + CARD + ") (hami_gpu_shared_count)");
    static final Template CARD_SLOTS_TOTAL = new Template("card_slots_total",
            "max by (${cluster}, " + CARD + ") (hami_observe_gpu_share_limit)");
    static final Template CARD_HEALTH = new Template("card_health",
            "max by (${cluster}, " + CARD + ", mode) (hami_observe_gpu_healthy)");
    static final Template CARD_MEMORY_USED = new Template("card_memory_used",
            "max by (node, device_uuid) (hami_host_gpu_memory_used_bytes)");
    static final Template CARD_UTILISATION = new Template("card_utilisation",
            "max by (node, device_uuid) (hami_host_gpu_utilization_ratio)");
    static final Template CARD_TEMPERATURE = new Template("card_temperature",
            "max by (node, device_uuid) (hami_observe_host_gpu_temperature_celsius)");
    static final Template CARD_POWER = new Template("card_power",
            "max by (node, device_uuid) (hami_observe_host_gpu_power_watts)");
    static final Template CARD_BEYOND_ALLOCATION = new Template("card_memory_beyond_allocation",
            "max by (node, device_uuid) (hami_observe_gpu_memory_beyond_allocation_bytes)");
    /** Each share, per cluster (${cluster}): a read keeps them node by node of each cluster ({@link KeptNodeSeries}). */
    static final Template CONTAINER_MEMORY_ALLOCATED = new Template("container_memory_allocated",
            "max by (${cluster}, " + ALLOCATION + ") " + ShareSeries.byPosition(ShareSeries.Figure.MEMORY, "${cluster}",
                    "${where}", "${where}", null));
    static final Template CONTAINER_CORES_ALLOCATED = new Template("container_cores_allocated",
            "max by (${cluster}, " + ALLOCATION + ") " + ShareSeries.byPosition(ShareSeries.Figure.CORES, "${cluster}",
                    "${where}", "${where}", null));
    /**
     * Each container's name, per cluster (${cluster}): two clusters may run one pod name differently;
     * and per node, so that a read keeps them node by node ({@link KeptNodeSeries}).
     */
    static final Template CONTAINER_NAMES = new Template("container_names",
            "max by (${cluster}, node, namespace, pod, container_index, container, init) "
                    + "(hami_observe_container_info{${where}})");
    /** Every node's allocation fingerprints, as they are: which nodes' container series changed. */
    static final Template NODE_ALLOCATIONS_FINGERPRINTS = new Template("node_allocations_fingerprints",
            "hami_observe_node_allocations_fingerprint");
    /** Every node's cards' fingerprints, as they are: which nodes' cards' allocation series changed. */
    static final Template NODE_CARDS_FINGERPRINTS = new Template("node_cards_fingerprints",
            "hami_observe_node_cards_fingerprint");
    /** The names of the containers holding shares of one card (the info series carries no card). */
    static final Template CONTAINER_NAMES_ON_CARD = new Template("container_names",
            "max by (${cluster}, namespace, pod, container_index, container, init) (hami_observe_container_info"
                    + " and on (${cluster}, namespace, pod, container_index) " + ShareSeries.byPosition(
                    ShareSeries.Figure.MEMORY, "${cluster}", "${where}", "${where}", null) + ")");
    /** Per node of each cluster (${cluster}): two clusters in one engine may both name a node alike. */
    static final Template CONTAINERS_PER_NODE = new Template("containers_per_node",
            "count by (${cluster}, node) (max by (${cluster}, namespace, pod, container_index, node) "
                    + ShareSeries.byPosition(ShareSeries.Figure.MEMORY, "${cluster}", "", "", null) + ")");
    static final Template CONTAINER_MEMORY_USED = new Template("container_memory_used",
            "max by (" + USE + ") (hami_vgpu_memory_used_bytes{${where}})");
    static final Template CONTAINER_UTILISATION = new Template("container_utilisation",
            "max by (" + USE + ") (hami_container_device_utilization_ratio{${where}})");
    static final Template CONTAINER_LAST_KERNEL = new Template("container_last_kernel",
            "min by (" + USE + ") (hami_container_last_kernel_elapsed_seconds{${where}})");
    static final Template CONTAINER_UNMANAGED = new Template("container_unmanaged_memory",
            "max by (node, device_uuid, namespace, pod, container) (hami_observe_unmanaged_memory_bytes{${where}})");
    // What is stuck (the Stuck page): ghost allocations, zombie processes, idle shares, pending pods.
    private static final String GHOST = "namespace, pod, node, device_uuid, reason";
    private static final String ZOMBIE = "node, device_uuid, namespace, pod, container";
    static final Template GHOST_SINCE = new Template("ghost_since",
            "max by (" + GHOST + ") (hami_observe_ghost_allocation_since_timestamp_seconds)");
    static final Template GHOST_CARDS = new Template("ghost_cards",
            "max by (" + GHOST + ") (hami_observe_ghost_allocation_cards)");
    /** Memory outside HAMi-Core that no share of the card covers: HamiZombieGpuProcess's expression. */
    static final Template ZOMBIE_MEMORY = new Template("zombie_memory",
            "max by (" + ZOMBIE + ") (hami_observe_unmanaged_memory_bytes > 0"
                    + " unless on (namespace, pod, device_uuid) hami_vgpu_memory_allocated_bytes)");
    static final Template ZOMBIE_FIRST_SEEN = new Template("zombie_first_seen",
            "min by (" + ZOMBIE + ") (hami_observe_unmanaged_first_seen_timestamp_seconds)");
    static final Template ZOMBIE_CARD_MEMORY = new Template("zombie_card_memory",
            "max by (device_uuid) (hami_gpu_memory_limit_bytes and on (device_uuid) hami_observe_unmanaged_memory_bytes)");
    static final Template IDLE_LAST_KERNEL = new Template("idle_last_kernel",
            "min by (" + USE + ") (hami_container_last_kernel_elapsed_seconds) >= ${seconds}");
    static final Template PENDING_PODS = new Template("pending_pods",
            "max by (namespace, reason) (hami_observe_pending_gpu_pods)");
    static final Template PENDING_OLDEST_WAIT = new Template("pending_oldest_wait",
            "max by (namespace, reason) (hami_observe_pending_gpu_pod_oldest_wait_seconds)");
    static final Template QUOTA_USED = new Template("quota_used",
            "max by (${cluster}, namespace, quota_name) (hami_resource_quota_used)");
    static final Template QUOTA_LIMIT = new Template("quota_limit",
            "max by (${cluster}, namespace, quota_name) (hami_resource_quota_limit)");
    static final Template SOURCE_HEALTH = new Template("source_health",
            "hami_observe_scrape_source_success");
    static final Template LEDGER_AGE = new Template("ledger_age",
            "time() - hami_observe_ledger_last_sync_timestamp_seconds");
    static final Template SKIPPED_INPUTS = new Template("skipped_inputs",
            "sum by (${cluster}, source, kind, reason) (increase(hami_observe_skipped_inputs_total[1h])) > 0");
    static final Template TARGETS_DOWN = new Template("targets_down",
            "(up{} == 0) and on (job) (count by (job) (hami_build_info))");

    // Each container's use over a window (right-sizing), from the raw series. Every figure of a
    // container, and every owner, is kept apart by the cluster label (${cluster}, named by a flag):
    // several clusters in one engine may run the same namespace/pod/container names, and one
    // cluster's history must not lend another its peak. A label the series lack groups as if not
    // named (Prometheus's by), so one cluster without the label reads as before.
    static final Template MEMORY_PEAK = new Template("container_memory_peak",
            "max by (${cluster}, namespace, pod, container, device_uuid) (max_over_time(hami_vgpu_memory_used_bytes{${where}}[${window}]))");
    // Compute's p95 and median are of each hour's (recorded, or computed from the raw series at
    // each hour, so both read the same figure): a percentile of every sample of 14 days reads every
    // sample, 20,160 a container at a scrape a minute, about 50 CPU s of Prometheus at 10,000
    // containers and longer than a query may take (docs/benchmarks.md, "At a scrape's interval").
    static final Template UTILISATION_P95 = hourlyPercentileOfUtilisation("container_utilisation_p95", "0.95");
    static final Template MEMORY_SAMPLES = new Template("container_memory_samples",
            "max by (${cluster}, namespace, pod, container, device_uuid) (count_over_time(hami_vgpu_memory_used_bytes{${where}}[${window}]))");
    // The same from the hourly recorded series (alerts/hami-observe-console.rules.yml): 336 samples
    // per container over 14 days whatever the scrape interval. The last hour, not recorded yet, is
    // read raw beside the peak.
    static final Template RECORDED_MEMORY_PEAK = new Template("container_memory_peak",
            "max by (${cluster}, namespace, pod, container, device_uuid) (max_over_time("
                    + RecordingRules.CONTAINER_MEMORY_PEAK_HOURLY + "{${where}}[${window}])"
                    + " or max_over_time(hami_vgpu_memory_used_bytes{${where}}[1h]))");
    static final Template RECORDED_MEMORY_SAMPLES = new Template("container_memory_samples",
            "max by (${cluster}, namespace, pod, container, device_uuid) (sum_over_time("
                    + RecordingRules.CONTAINER_MEMORY_SAMPLES_HOURLY + "{${where}}[${window}]))");
    // Samples in the window minus those of its last hours: whether history goes back that far. A
    // short range, where an offset range over the whole window costs as much as the window again.
    static final Template MEMORY_SAMPLES_RECENT = new Template("container_memory_samples_recent",
            "max by (${cluster}, namespace, pod, container, device_uuid) "
                    + "(count_over_time(hami_vgpu_memory_used_bytes{${where}}[${settled}]))");
    static final Template UTILISATION_RECENT_MAX = new Template("container_utilisation_recent_max",
            "max by (${cluster}, namespace, pod, container, device_uuid) "
                    + "(max_over_time(hami_container_device_utilization_ratio{${where}}[${recent}]))");

    // Each container's medians (the VPA's lower-bound percentile). Memory's is of its hourly peaks
    // (the VPA's memory histogram holds peaks too), recorded or computed from the raw series at
    // each hour, so both read the same figure; compute's is of the samples.
    static final Template MEMORY_MEDIAN = new Template("container_memory_median",
            "max by (${cluster}, namespace, pod, container, device_uuid) (quantile_over_time(0.5, (max by (${cluster}, namespace, pod, "
                    + "container, device_uuid) (max_over_time(hami_vgpu_memory_used_bytes{${where}}[1h])))"
                    + "[${window}:1h]))");
    static final Template RECORDED_MEMORY_MEDIAN = new Template("container_memory_median",
            "max by (${cluster}, namespace, pod, container, device_uuid) (quantile_over_time(0.5, "
                    + RecordingRules.CONTAINER_MEMORY_PEAK_HOURLY + "{${where}}[${window}]))");
    static final Template UTILISATION_MEDIAN = hourlyPercentileOfUtilisation("container_utilisation_median", "0.5");
    static final Template RECORDED_UTILISATION_P95 = new Template("container_utilisation_p95",
            "max by (${cluster}, namespace, pod, container, device_uuid) (quantile_over_time(0.95, "
                    + RecordingRules.CONTAINER_UTILISATION_P95_HOURLY + "{${where}}[${window}]))");
    static final Template RECORDED_UTILISATION_MEDIAN = new Template("container_utilisation_median",
            "max by (${cluster}, namespace, pod, container, device_uuid) (quantile_over_time(0.5, "
                    + RecordingRules.CONTAINER_UTILISATION_MEDIAN_HOURLY + "{${where}}[${window}]))");

    /**
     * The {@code quantile} of each container's hourly {@code quantile}s of utilisation over the
     * window, from the raw series: the hours are the recording rules' (each an hour less a
     * millisecond, so no sample counts in two), at the subquery's whole hours.
     */
    private static Template hourlyPercentileOfUtilisation(String name, String quantile) {
        return new Template(name, "max by (${cluster}, namespace, pod, container, device_uuid) (quantile_over_time("
                + quantile + ", (max by (${cluster}, namespace, pod, container, device_uuid) (quantile_over_time("
                + quantile + ", hami_container_device_utilization_ratio{${where}}["
                + RecordingRules.HOUR_LESS_A_MILLISECOND + "])))[${window}:1h]))");
    }

    // Every pod's top controller in the window (the scheduler role names it on each container's
    // hami_observe_container_info, and on hami_observe_pod_owner where that family is opted in or a
    // history holds it from before; ownersSeen), looked up once an hour: a pod that ran only on
    // day 2 still names its Deployment. The owner of a pod does not change, so an hourly look is
    // enough. Each look reaches back the whole hour, as the hourly record does
    // (RecordingRules.POD_OWNER_HOURLY): a pod that ended at half past still names its owner for
    // the hour it ran in.
    private static final String OWNER_AT_EACH_HOUR = "max by (${cluster}, namespace, pod, owner_kind, owner_name) "
            + "(" + ownersSeen("1h") + ")";

    /**
     * Each pod's owner as last seen within {@code range}, from either series that names it, for the
     * pods {@code ${owners}} picks. The info series of a history written before they named the owner
     * are left out ({@code owner_kind!=""}): an owner "" beside the real one would make a pod's owner
     * two series, and every join on it fail.
     */
    private static String ownersSeen(String range) {
        return "last_over_time(hami_observe_container_info{owner_kind!=\"\", ${owners}}[" + range + "])"
                + " or last_over_time(hami_observe_pod_owner{${owners}}[" + range + "])";
    }

    /**
     * Each pod's owner over the window: from the hourly owner records when they cover it (336
     * samples a pod over 14 days, where joining at every hour cost Prometheus tens of CPU seconds a
     * refresh at 10,000 pods: docs/benchmarks.md), the hour not recorded yet read raw beside them.
     */
    static Template podOwnersOverWindow(boolean recorded) {
        return new Template("pod_owners", recorded
                ? "max by (${cluster}, namespace, pod, owner_kind, owner_name) (max_over_time("
                + RecordingRules.POD_OWNER_HOURLY + "{${owners}}[${window}])"
                + " or " + ownersSeen("1h") + ")"
                : "max_over_time((" + OWNER_AT_EACH_HOUR + ")[${window}:1h])");
    }

    // The hours of the window with samples: of each container (bare pods, pods no owner names),
    // and of each workload across all its pods, joined to the owner at each hour (rollouts and
    // CronJob runs add up; concurrent replicas count once). From the hourly records when they
    // cover the window, else from the raw series.
    static Template containerHours(boolean recorded) {
        return new Template("container_hours", recorded
                ? "max by (${cluster}, namespace, pod, container, device_uuid) (count_over_time("
                + RecordingRules.CONTAINER_MEMORY_PEAK_HOURLY + "{${where}}[${window}]))"
                : "count_over_time((max by (${cluster}, namespace, pod, container, device_uuid) "
                + "(last_over_time(hami_vgpu_memory_used_bytes{${where}}[1h])))[${window}:1h])");
    }

    /**
     * A workload's hours: recorded, the hours of its hourly record (the join made once an hour by
     * the rules, over every pod: only the fleet-wide read can use it, as it keeps no pod, node or
     * card); raw, the join at each hour of the window.
     */
    static Template workloadHours(boolean recorded) {
        return new Template("workload_hours", recorded
                ? "max by (${cluster}, namespace, owner_kind, owner_name, container) (count_over_time("
                + RecordingRules.WORKLOAD_MEMORY_PEAK_HOURLY + "[${window}]))"
                : "count_over_time((max by (${cluster}, namespace, owner_kind, owner_name, container) "
                + "(max by (${cluster}, namespace, pod, container) (last_over_time(hami_vgpu_memory_used_bytes{${where}}[1h]))"
                + " * on (${cluster}, namespace, pod) group_left (owner_kind, owner_name) " + OWNER_AT_EACH_HOUR
                + "))[${window}:1h])");
    }

    /**
     * Showback's queries (card-hours, docs/console.md "Showback"), each integrated over the window
     * at a fixed step, grouped by {@code cluster} (the label named by --cluster-label) so clusters
     * in one engine stay apart. Every selector inside a subquery states its lookback.
     *
     * <p>A share's size at each step is the larger of its memory fraction (its memory ÷ its card's)
     * and its core fraction (HAMi's core percent ÷ 100): ShareSize, the rule written in PromQL
     * ({@link #shareSize}, which the funnel trend reads too). Its use is its utilisation of the card,
     * at most its size.
     */
    record CardHourQueries(Integral seen, Integral unavailable, Template models, Template recordedModels,
                           Integral allocated, Integral used, Integral memory, Integral cores, Template active) {
        List<Integral> integrals() {
            return List.of(seen, unavailable, allocated, used, memory, cores);
        }
    }

    /**
     * One figure integrated over a window: {@code atEachStep} (grouped by {@code by}, or by a
     * share's position where {@code naming} names it) summed at each step times the step. The
     * hourly rule group {@code hami-observe-console-showback} records the same integral of each
     * hour, at five-minute steps, as {@code record}; {@link #recorded} reads those hours and the
     * minutes at the window's ends that no whole record holds.
     *
     * <p>A share's allocation needs no name at each step: it is integrated by the share's position
     * and named once, at the end ({@link Naming}), so the join with the containers' names is made
     * once per integral instead of once per step (sixty times an hour). A position whose container
     * was renamed within the integral is counted under one of its names for the whole of it.
     */
    record Integral(String name, String record, String by, String atEachStep, Naming naming) {
        Integral(String name, String record, String by, String atEachStep) {
            this(name, record, by, atEachStep, Naming.NONE);
        }

        /** From the raw series over the whole window. */
        Template raw() {
            return new Template(name, naming.named("sum_over_time(" + atEachStep + "[${window}:${step}]) * ${stepSeconds}",
                    "${window}:${step}"));
        }

        /**
         * The rule's expression: the hour up to its evaluation, left end open (a millisecond less
         * than an hour: consecutive evaluations count no step twice), one step every
         * {@link RecordingRules#SHOWBACK_STEP}.
         */
        String rule() {
            String steps = RecordingRules.HOUR_LESS_A_MILLISECOND + ":" + RecordingRules.SHOWBACK_STEP.toMinutes() + "m";
            return naming.named("sum_over_time(" + atEachStep + "[" + steps + "]) * "
                    + RecordingRules.SHOWBACK_STEP.toSeconds(), steps);
        }

        /**
         * The records of the hours {@code (t - offset - hours, t - offset]} before the query's time
         * {@code t} (placeholders {@code recordedMs}, {@code recordedOffsetMs}; no offset without a
         * tail: the records then end at {@code t}, and PromQL refuses "offset 0ms"); where
         * {@code head}, the minutes before them as the record of the hour holding them says, scaled
         * to their part of it (the record at {@code headOffsetMs} before {@code t}, times
         * {@code headFraction}); and the minutes after them as {@code tail} says. The parts cover
         * the window without a gap or a minute counted twice. Each part is labelled apart before
         * the sum (label {@code part}, which no grouped series carries), as {@code or} would keep
         * only the first of two series with the same labels.
         */
        Template recorded(boolean head, Tail tail) {
            StringBuilder parts = new StringBuilder("label_replace(sum_over_time(" + record + "[${recordedMs}ms]"
                    + (tail == Tail.NONE ? "" : " offset ${recordedOffsetMs}ms")
                    + "), \"part\", \"recorded\", \"\", \"\")");
            if (head) {
                parts.append(" or label_replace(last_over_time(").append(record)
                        .append("[" + RecordingRules.HOUR_LESS_A_MILLISECOND + "] offset ${headOffsetMs}ms)")
                        .append(" * ${headFraction}, \"part\", \"head\", \"\", \"\")");
            }
            switch (tail) {
                case INSTANT -> parts.append(" or label_replace(").append(naming.named("(" + atEachStep
                        + ") * ${tailSeconds}", null)).append(", \"part\", \"tail\", \"\", \"\")");
                case STEPS -> parts.append(" or label_replace(").append(naming.named("sum_over_time(" + atEachStep
                        + "[${tailMs}ms:${tailStepMs}ms]) * ${tailStepSeconds}", "${tailMs}ms:${tailStepMs}ms"))
                        .append(", \"part\", \"tail\", \"\", \"\")");
                case RECORDED -> parts.append(" or label_replace(last_over_time(").append(record)
                        .append("[" + RecordingRules.HOUR_LESS_A_MILLISECOND + "]) * ${tailFraction}, ")
                        .append("\"part\", \"tail\", \"\", \"\")");
                case NONE -> {
                }
            }
            return new Template(name, "sum by (" + by + ") (" + parts + ")");
        }
    }

    /**
     * How an integral by a share's position gets its container's name once integrated: the
     * integral and its subquery's steps ({@code range:step}, or {@code null} for an instant), at
     * which the names are read too, to the expression grouped by the share.
     */
    @FunctionalInterface
    interface Naming {
        /** For figures that carry their labels at each step (cards, and a share's use, named by the node role). */
        Naming NONE = (integral, steps) -> integral;

        String named(String integral, String steps);
    }

    /**
     * The minutes of a window after the records it reads, which no record holds yet unless the next
     * run has happened:
     * <ul>
     *   <li>{@code NONE}: there are none, the window ends at a run;</li>
     *   <li>{@code INSTANT}: no longer than the window's step, so read as they stand at the query's
     *       time, times their length ({@code tailSeconds}). At the query's own time, not at a
     *       subquery's step: engines place a subquery's one step differently within the minutes
     *       (Prometheus at a multiple of the step from the epoch, VictoriaMetrics at the end), so a
     *       share that came or went there counted for one engine and not the other;</li>
     *   <li>{@code STEPS}: longer than the window's step, read at each step ({@code tailMs} up to
     *       the query's time, at {@code tailStepMs}, in seconds {@code tailStepSeconds});</li>
     *   <li>{@code RECORDED}: where the next run has recorded their hour (a window that ended
     *       before it, such as last month's), that record scaled to them ({@code tailFraction}), the
     *       query then asked at that run.</li>
     * </ul>
     */
    enum Tail {
        NONE, INSTANT, STEPS, RECORDED
    }

    /**
     * Each share's size in cards at an instant: the larger of its memory and core fractions, each at
     * most 1 (either alone where the share has one). The larger is a {@code max} over the two told
     * apart by a label ({@code fraction}, which no share series carries), so each fraction is
     * evaluated once: PromQL shares no subexpression, and a comparison that keeps one or the other
     * names each twice.
     *
     * <p>The figures are not grouped before: a share's series from several scheduler replicas each
     * give a fraction, and the one {@code max by} keeps one size a share (grouping each figure first
     * cost two more aggregations of every share at every step).
     *
     * @param kept   the labels the size is kept by
     * @param memory each share's memory series
     * @param cores  each share's cores series (percent of the card)
     */
    private static String shareSize(String kept, String memory, String cores, String registered, String card) {
        String memoryFraction = "clamp_max(" + memory + " / on (" + card + ") group_left " + registered + ", 1)";
        String coreFraction = "clamp_max(" + cores + " / 100, 1)";
        return "max by (" + kept + ") (label_replace(" + memoryFraction + ", \"fraction\", \"memory\", \"\", \"\")"
                + " or label_replace(" + coreFraction + ", \"fraction\", \"cores\", \"\", \"\"))";
    }

    /** Every share's {@code figure}, one series a position ({@link ShareSeries#position}). */
    private static String everyShareByPosition(ShareSeries.Figure figure, String cluster, String lookback) {
        return "max by (" + ShareSeries.position(cluster) + ") " + ShareSeries.byPosition(figure, cluster, "", "",
                lookback);
    }

    /**
     * Each share's size by its position ({@link #shareSize}): what is integrated and named once,
     * or summed, where no use is met.
     *
     * @param cluster  the cluster label, or empty where the figure keeps none
     * @param lookback as {@link ShareSeries#byPosition}
     */
    private static String shareSizeByPosition(String cluster, String lookback, String registered, String card) {
        return shareSize(ShareSeries.position(cluster), ShareSeries.byPosition(ShareSeries.Figure.MEMORY, cluster, "",
                "", lookback), ShareSeries.byPosition(ShareSeries.Figure.CORES, cluster, "", "", lookback), registered, card);
    }

    /** How a share's size meets its container's use at a step: the use, the size and the matching ({@code on (...)}). */
    @FunctionalInterface
    interface Meeting {
        String meet(String use, String size, String on);
    }

    /** The smaller of the use and the size (the size's labels): u - max(u - size, 0), the size read once. */
    private static final Meeting AT_MOST_SIZE = (use, size, on) -> "(" + use + " - " + on + " group_right clamp_min("
            + use + " - " + on + " group_right " + size + ", 0))";

    /**
     * Each share's size met at each step with its container's use, by the share's position (and,
     * for the detail's shares, the container's name): the shares of pods with the detail meet their
     * use by their name, the others by their pod and card ({@link ShareSeries.Source#meeting}), so
     * no name is joined at each step. The two parts are kept apart, never one position in both.
     *
     * @param use the use series grouped by the labels given ({@code max by}), one a share or a pod's card;
     *            not in parentheses, which after {@code group_left} would read as its label list
     */
    private static String sizeMetWithUse(String cluster, String lookback, String registered, String card,
                                         Function<String, String> use, Meeting meeting) {
        List<String> parts = new ArrayList<>();
        for (ShareSeries.Source source : ShareSeries.Source.values()) {
            String size = shareSize(source.kept(cluster), ShareSeries.from(source, ShareSeries.Figure.MEMORY, cluster,
                    "", "", lookback), ShareSeries.from(source, ShareSeries.Figure.CORES, cluster, "", "", lookback),
                    registered, card);
            String on = source.meeting(cluster);
            parts.add(meeting.meet(use.apply(on), size, "on (" + on + ")"));
        }
        return "(" + String.join(" or ", parts) + ")";
    }

    static CardHourQueries cardHours(String cluster) {
        clusters(cluster);
        String lookback = "[" + RecordingRules.LOOKBACK + "]";
        String card = cluster + ", node, device_uuid";
        String share = cluster + ", namespace, pod, container, node, device_uuid";
        String registered = "max by (" + card + ") (last_over_time(hami_gpu_memory_limit_bytes" + lookback + "))";
        String seen = "(" + registered + " * 0 + 1 or max by (" + card
                + ") (last_over_time(hami_host_gpu_memory_used_bytes" + lookback + ")) * 0 + 1)";
        String healthy = "(" + registered + " unless on (" + card + ") (max by (" + card
                + ") (last_over_time(hami_observe_gpu_healthy" + lookback + ")) == 0))";
        String unavailable = "(" + seen + " unless on (" + card + ") " + healthy + ")";
        String memory = everyShareByPosition(ShareSeries.Figure.MEMORY, cluster, RecordingRules.LOOKBACK);
        String cores = everyShareByPosition(ShareSeries.Figure.CORES, cluster, RecordingRules.LOOKBACK);
        Naming named = (integral, steps) -> "max by (" + share + ") " + ShareSeries.namedAtSteps(integral, cluster,
                RecordingRules.LOOKBACK, steps);
        // The smaller of its utilisation and its size where it has both, by the share's position,
        // named once as its allocation is. Where u exceeds the size the difference may round by an
        // ulp; Showback holds a share's use to its allocation.
        String used = sizeMetWithUse(cluster, RecordingRules.LOOKBACK, registered, card, by -> "max by (" + by
                + ") (last_over_time(hami_container_device_utilization_ratio" + lookback + ")) / 100", AT_MOST_SIZE);
        return new CardHourQueries(
                new Integral("card_seconds_seen", RecordingRules.CARD_SECONDS_SEEN, card, seen),
                new Integral("card_seconds_unavailable", RecordingRules.CARD_SECONDS_UNAVAILABLE, card, unavailable),
                new Template("card_models", "max by (" + card + ", device_type) "
                        + "(last_over_time(hami_gpu_memory_limit_bytes[${window}]))"),
                // Recorded: each card's model at each hour (a card gone on day 2 still has its
                // model), and the hour not recorded yet read raw beside them.
                new Template("card_models", "max by (" + card + ", device_type) (max_over_time("
                        + RecordingRules.CARD_MODEL_HOURLY + "[${window}])) or max by (" + card
                        + ", device_type) (last_over_time(hami_gpu_memory_limit_bytes[1h]))"),
                new Integral("share_card_seconds_allocated", RecordingRules.SHARE_CARD_SECONDS_ALLOCATED, share,
                        shareSizeByPosition(cluster, RecordingRules.LOOKBACK, registered, card), named),
                new Integral("share_card_seconds_used", RecordingRules.SHARE_CARD_SECONDS_USED, share,
                        "max by (" + ShareSeries.position(cluster) + ") " + used, named),
                new Integral("share_memory_byte_seconds", RecordingRules.SHARE_MEMORY_BYTE_SECONDS, share,
                        "(" + memory + ")", named),
                new Integral("share_core_percent_seconds", RecordingRules.SHARE_CORE_PERCENT_SECONDS, share,
                        "(" + cores + ")", named),
                // The funnel's "active": any use in the window's last 15 minutes (Funnel.ACTIVE).
                new Template("share_active", "max by (" + share + ") (max_over_time("
                        + "hami_container_device_utilization_ratio[15m])) > 0"));
    }

    // Whether the recorded series cover a window: the hours in it during which each rule group ran,
    // and the hours in it with any raw history (card totals, which every exporter setup reports).
    static final Template RULE_HOURS = new Template("console_rules_hours",
            "count_over_time((max by (group) (last_over_time(" + RecordingRules.EVALUATED
                    + "[1h])))[${window}:1h])");
    // Whether a group ran in the hour up to the query's time, its evaluation in (t - 1 h, t]: asked at
    // the run an hour after the last one a window holds, whether that run happened yet.
    static final Template RULE_RAN = new Template("console_rules_ran", "count_over_time(" + RecordingRules.EVALUATED
            + "{group=${group}}[" + RecordingRules.HOUR_LESS_A_MILLISECOND + "])");
    // When each group last ran within two hours: its evaluation's own timestamp (a record carries
    // the time of the evaluation that wrote it), looked up at each minute.
    static final Template RULES_LAST_RUN = new Template("console_rules_last_run",
            "max by (group) (max_over_time(timestamp(" + RecordingRules.EVALUATED + ")[2h:1m]))");
    // Inside a subquery every selector states its lookback (a bare selector in a subquery looks back Prometheus's 5 minutes but VictoriaMetrics' up to a whole step).
    static final Template HISTORY_HOURS = new Template("history_hours",
            "count_over_time((count(last_over_time(hami_gpu_memory_limit_bytes[" + RecordingRules.LOOKBACK
                    + "])) > 0)[${window}:1h])");

    /**
     * The clusters the engine holds cards of, by the label that tells them apart (Prometheus's
     * external labels or a relabeling put it there): a label name from a flag, checked.
     */
    static Template clusters(String label) {
        if (!label.matches("[a-zA-Z_][a-zA-Z0-9_]*")) {
            throw new IllegalArgumentException("not a label name: " + label);
        }
        return new Template("clusters", "count by (" + label + ") (hami_gpu_memory_limit_bytes)");
    }

    // Trends: the cluster, one node, one card, one workload.
    static final Template CLUSTER_MEMORY_TOTAL = new Template("trend_memory_total",
            "sum(max by (device_uuid) (hami_gpu_memory_limit_bytes))");
    static final Template CLUSTER_MEMORY_ALLOCATED = new Template("trend_memory_allocated",
            "sum(max by (device_uuid) (hami_gpu_memory_allocated_bytes))");
    static final Template CLUSTER_MEMORY_USED = new Template("trend_memory_used",
            "sum(max by (device_uuid) (hami_host_gpu_memory_used_bytes))");
    // Compute allocated across cards: the mean of each card's allocated percent (as the Grafana
    // dashboard takes it), never a sum of allocated cores over a sum of card cores, which adds an
    // Ascend card's AI cores to an NVIDIA card's percents. Only where no exporter publishes the
    // percent (HAMi's own exporter alone) the raw sums, right when every card counts in percent.
    private static String coresAllocatedPercent(String where) {
        return "avg(max by (device_uuid) (hami_observe_gpu_core_allocated_percent" + where + "))"
                + " or (100 * sum(max by (device_uuid) (hami_gpu_core_allocated_ratio" + where + "))"
                + " / sum(max by (device_uuid) (hami_gpu_core_limit_ratio" + where + ")))";
    }

    static final Template CLUSTER_CORES_ALLOCATED = new Template("trend_cores_allocated_percent",
            coresAllocatedPercent(""));
    static final Template CLUSTER_UTILISATION = new Template("trend_utilisation_percent",
            "avg(max by (device_uuid) (hami_host_gpu_utilization_ratio))");
    // The fleet funnel at each step of a range, in cards' worth (Funnel): registered healthy cards,
    // what shares block (each the larger of its memory and core fractions, ShareSize), the part of
    // that whose share used its card in the last 15 minutes (Funnel.ACTIVE), and the part whose
    // share uses at least half of it at the step (Funnel.EFFECTIVE). A fixed four queries whatever
    // the fleet; the window's funnel (showback's card-hours) counts "effective" over the window.
    // Each figure is one series a cluster (by the console's cluster label, bound as ${cluster}; one
    // series where the engine has no such label), every join kept within its cluster: what the
    // funnel's rule group records, under the label "cluster", so that one cluster's chart of
    // several reads its own records. A chart reads them summed (FUNNEL_*): the fleet's, or one
    // cluster's where the query is narrowed to it.
    private static final String FUNNEL_CARD = "${cluster}, node, device_uuid";
    private static final String FUNNEL_REGISTERED = "max by (" + FUNNEL_CARD + ") (hami_gpu_memory_limit_bytes)";

    static final Template FUNNEL_TOTAL_BY_CLUSTER = new Template("trend_funnel_total",
            "count by (${cluster}) (" + FUNNEL_REGISTERED + " unless on (" + FUNNEL_CARD + ") (max by ("
                    + FUNNEL_CARD + ") (hami_observe_gpu_healthy) == 0))");
    // The sum of every share's size needs no container's name: by position, without the join.
    static final Template FUNNEL_ALLOCATED_BY_CLUSTER = new Template("trend_funnel_allocated", "sum by (${cluster}) ("
            + shareSizeByPosition("${cluster}", null, FUNNEL_REGISTERED, FUNNEL_CARD) + ")");
    static final Template FUNNEL_ACTIVE_BY_CLUSTER = new Template("trend_funnel_active",
            funnelSizeMetWithUse(by -> "max by (" + by + ") (max_over_time(hami_container_device_utilization_ratio[15m]))"
                    + " > 0", (use, size, on) -> "(" + size + " and " + on + " " + use + ")"));
    /**
     * A share used at least half: its utilisation ÷ 100 ≥ its size ÷ 2, written as size ≤ utilisation
     * ÷ 50 (the same figure to the last bit: halving and doubling are exact) so that the comparison
     * keeps the size and reads it once.
     */
    static final Template FUNNEL_EFFECTIVE_BY_CLUSTER = new Template("trend_funnel_effective",
            funnelSizeMetWithUse(by -> "max by (" + by + ") (hami_container_device_utilization_ratio) / 50",
                    (use, size, on) -> "(" + size + " <= " + on + " group_left " + use + ")"));

    static final Template FUNNEL_TOTAL = new Template("trend_funnel_total", summed(FUNNEL_TOTAL_BY_CLUSTER));
    static final Template FUNNEL_ALLOCATED = new Template("trend_funnel_allocated", summed(FUNNEL_ALLOCATED_BY_CLUSTER));
    static final Template FUNNEL_ACTIVE = new Template("trend_funnel_active", summed(FUNNEL_ACTIVE_BY_CLUSTER));
    static final Template FUNNEL_EFFECTIVE = new Template("trend_funnel_effective", summed(FUNNEL_EFFECTIVE_BY_CLUSTER));

    private static String summed(Template byCluster) {
        return "sum(" + byCluster.text() + ")";
    }

    /**
     * Each cluster's sum of every share's size at an instant met with its use as {@code meeting} says
     * ({@link #sizeMetWithUse}).
     */
    static String funnelSizeMetWithUse(Function<String, String> use, Meeting meeting) {
        return "sum by (${cluster}) (" + sizeMetWithUse("${cluster}", null, FUNNEL_REGISTERED, FUNNEL_CARD, use,
                meeting) + ")";
    }

    // The same four from their records (alerts/hami-observe-console.rules.yml, group funnel, every
    // five minutes): one series a step instead of every share joined with its card at each step. A
    // step reads the group's last run before it (at most its interval and a minute before); summed,
    // as engines that hold several Prometheus servers' records add them up.
    static final Template RECORDED_FUNNEL_TOTAL = new Template("trend_funnel_total",
            lastRecorded(RecordingRules.FUNNEL_HEALTHY));
    static final Template RECORDED_FUNNEL_ALLOCATED = new Template("trend_funnel_allocated",
            lastRecorded(RecordingRules.FUNNEL_ALLOCATED));
    static final Template RECORDED_FUNNEL_ACTIVE = new Template("trend_funnel_active",
            lastRecorded(RecordingRules.FUNNEL_ACTIVE));
    static final Template RECORDED_FUNNEL_EFFECTIVE = new Template("trend_funnel_effective",
            lastRecorded(RecordingRules.FUNNEL_EFFECTIVE));

    private static String lastRecorded(String record) {
        return "sum(last_over_time(" + record + "[" + RecordingRules.FUNNEL_LOOKBACK + "]))";
    }

    /**
     * One cluster-wide sum (or count) of a card series, recorded every minute by the card lines'
     * group ({@link RecordingRules.Group#CARD_LINES}): what the overview's other lines add up at each
     * step, one series a cluster instead of every card. {@code rule()} is the recorded expression,
     * every card reduced with max over the exporter's instance as the raw lines do, kept apart by
     * cluster; {@code recorded()} the chart's read of it, as the funnel's are read. In the rule
     * file's order.
     */
    enum CardLine {
        MEMORY_TOTAL(RecordingRules.LINE_MEMORY_TOTAL, "hami_gpu_memory_limit_bytes", "sum"),
        MEMORY_ALLOCATED(RecordingRules.LINE_MEMORY_ALLOCATED, "hami_gpu_memory_allocated_bytes", "sum"),
        MEMORY_USED(RecordingRules.LINE_MEMORY_USED, "hami_host_gpu_memory_used_bytes", "sum"),
        CORES_PERCENT_SUM(RecordingRules.LINE_CORES_PERCENT_SUM, "hami_observe_gpu_core_allocated_percent", "sum"),
        CORES_PERCENT_COUNT(RecordingRules.LINE_CORES_PERCENT_COUNT, "hami_observe_gpu_core_allocated_percent", "count"),
        CORES_ALLOCATED(RecordingRules.LINE_CORES_ALLOCATED, "hami_gpu_core_allocated_ratio", "sum"),
        CORES_LIMIT(RecordingRules.LINE_CORES_LIMIT, "hami_gpu_core_limit_ratio", "sum"),
        UTILISATION_SUM(RecordingRules.LINE_UTILISATION_SUM, "hami_host_gpu_utilization_ratio", "sum"),
        UTILISATION_COUNT(RecordingRules.LINE_UTILISATION_COUNT, "hami_host_gpu_utilization_ratio", "count");

        final String record;
        final String operation;
        private final String metric;

        CardLine(String record, String metric, String operation) {
            this.record = record;
            this.metric = metric;
            this.operation = operation;
        }

        String rule() {
            return operation + " by (" + RecordingRules.CLUSTER_LABEL + ") (max by (" + RecordingRules.CLUSTER_LABEL
                    + ", device_uuid) (" + metric + "))";
        }

        String recorded() {
            return lastRecorded(record);
        }
    }

    // The cluster's five lines from those records: each the raw line's figure at the group's last
    // run before the step. A mean is the sum of the clusters' sums over the sum of their counts, the
    // mean over every card of every cluster, as the raw line takes it.
    static final Template RECORDED_CLUSTER_MEMORY_TOTAL = new Template(CLUSTER_MEMORY_TOTAL.name(),
            CardLine.MEMORY_TOTAL.recorded());
    static final Template RECORDED_CLUSTER_MEMORY_ALLOCATED = new Template(CLUSTER_MEMORY_ALLOCATED.name(),
            CardLine.MEMORY_ALLOCATED.recorded());
    static final Template RECORDED_CLUSTER_MEMORY_USED = new Template(CLUSTER_MEMORY_USED.name(),
            CardLine.MEMORY_USED.recorded());
    static final Template RECORDED_CLUSTER_CORES_ALLOCATED = new Template(CLUSTER_CORES_ALLOCATED.name(),
            CardLine.CORES_PERCENT_SUM.recorded() + " / " + CardLine.CORES_PERCENT_COUNT.recorded() + " or (100 * "
                    + CardLine.CORES_ALLOCATED.recorded() + " / " + CardLine.CORES_LIMIT.recorded() + ")");
    static final Template RECORDED_CLUSTER_UTILISATION = new Template(CLUSTER_UTILISATION.name(),
            CardLine.UTILISATION_SUM.recorded() + " / " + CardLine.UTILISATION_COUNT.recorded());

    // How many times a group ran within a record's lookback before each step of a chart: which of
    // its steps the group's records serve (RecordedSteps).
    static final Template RULE_RUNS = new Template("console_rules_runs", "count_over_time(" + RecordingRules.EVALUATED
            + "{group=${group}}[${range}])");
    static final Template NODE_MEMORY_TOTAL = new Template("node_trend_memory_total",
            "sum(max by (device_uuid) (hami_gpu_memory_limit_bytes{node=${node}}))");
    static final Template NODE_MEMORY_ALLOCATED = new Template("node_trend_memory_allocated",
            "sum(max by (device_uuid) (hami_gpu_memory_allocated_bytes{node=${node}}))");
    static final Template NODE_MEMORY_USED = new Template("node_trend_memory_used",
            "sum(max by (device_uuid) (hami_host_gpu_memory_used_bytes{node=${node}}))");
    static final Template NODE_CORES_ALLOCATED = new Template("node_trend_cores_allocated_percent",
            coresAllocatedPercent("{node=${node}}"));
    static final Template NODE_UTILISATION = new Template("node_trend_utilisation_percent",
            "avg(max by (device_uuid) (hami_host_gpu_utilization_ratio{node=${node}}))");
    static final Template CARD_TREND_MEMORY_TOTAL = new Template("card_trend_memory_total",
            "max(hami_gpu_memory_limit_bytes{device_uuid=${uuid}})");
    static final Template CARD_TREND_MEMORY_ALLOCATED = new Template("card_trend_memory_allocated",
            "max(hami_gpu_memory_allocated_bytes{device_uuid=${uuid}})");
    static final Template CARD_TREND_MEMORY_USED = new Template("card_trend_memory_used",
            "max(hami_host_gpu_memory_used_bytes{device_uuid=${uuid}})");
    static final Template CARD_TREND_CORES_ALLOCATED = new Template("card_trend_cores_allocated_percent",
            coresAllocatedPercent("{device_uuid=${uuid}}"));
    static final Template CARD_TREND_UTILISATION = new Template("card_trend_utilisation_percent",
            "max(hami_host_gpu_utilization_ratio{device_uuid=${uuid}})");
    // A card's temperature and power: DCGM's where its exporter reports the card, at each step, else
    // the node role's (NVML): one line, as the card's facts show one figure.
    static final Template CARD_TREND_TEMPERATURE = new Template("card_trend_temperature",
            "max(DCGM_FI_DEV_GPU_TEMP{UUID=${uuid}}) or max(hami_observe_host_gpu_temperature_celsius{device_uuid=${uuid}})");
    static final Template CARD_TREND_POWER = new Template("card_trend_power",
            "max(DCGM_FI_DEV_POWER_USAGE{UUID=${uuid}}) or max(hami_observe_host_gpu_power_watts{device_uuid=${uuid}})");
    static final Template WORKLOAD_MEMORY_ALLOCATED = new Template("workload_trend_memory_allocated",
            "max by (device_uuid) " + ShareSeries.byPosition(ShareSeries.Figure.MEMORY, "${cluster}",
                    "namespace=${namespace}, pod=${pod}, container_index=${index}", "namespace=${namespace}, pod=${pod}",
                    null));
    // A workload's use at each step is the most it used since the previous step, memory and compute
    // alike: a short peak between two steps is not lost from the explanation graph, and the plotted
    // compute line reaches the p95 line drawn across it wherever the samples did.
    static final Template WORKLOAD_MEMORY_USED = new Template("workload_trend_memory_used",
            "max by (device_uuid) (max_over_time(hami_vgpu_memory_used_bytes{namespace=${namespace}, pod=${pod},"
                    + " container=${container}}[${step}]))");
    static final Template WORKLOAD_CORES_ALLOCATED = new Template("workload_trend_cores_allocated",
            "max by (device_uuid) " + ShareSeries.byPosition(ShareSeries.Figure.CORES, "${cluster}",
                    "namespace=${namespace}, pod=${pod}, container_index=${index}", "namespace=${namespace}, pod=${pod}",
                    null));
    static final Template WORKLOAD_UTILISATION = new Template("workload_trend_utilisation",
            "max by (device_uuid) (max_over_time(hami_container_device_utilization_ratio{namespace=${namespace},"
                    + " pod=${pod}, container=${container}}[${step}]))");
}
