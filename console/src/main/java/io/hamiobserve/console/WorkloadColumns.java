package io.hamiobserve.console;

import io.hamiobserve.console.Format.Kind;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.WorkloadRecommendation;

import java.util.List;
import java.util.Map;

import static io.hamiobserve.console.Table.column;

/**
 * The right-sizing table per workload (a controller's container across every pod it had in the
 * window). Every memory and compute column is per card, as the requests are; the title says so.
 */
final class WorkloadColumns {
    private WorkloadColumns() {
    }

    /** What the table is, for its caption. */
    static final String CAPTION = "Per workload: one row per controller (Deployment, StatefulSet, CronJob, ...) and "
            + "container, over every pod it had in the window (replicas, rollouts, finished Jobs). Every figure is per "
            + "card. Lower and upper bounds as Kubernetes' VPA gives them, widened by (1 + 1/days of history); a "
            + "peak at 98 % of the limit raises the target; pods that differ are said. Open the workload for its "
            + "pods; rightsize --format patch prints the patches.";

    static Table<WorkloadRecommendation> recommendations(Links links) {
        return new Table<>("byworkload", "Recommendations per workload", List.of(
                column("severity", "Severity", (WorkloadRecommendation r) -> new Value.Graded(r.severity())),
                column(Columns.CLUSTER, "Cluster", (WorkloadRecommendation r) -> Value.text(r.workload().cluster())),
                column("namespace", "Namespace", (WorkloadRecommendation r) -> Value.text(r.workload().namespace())),
                column("owner_kind", "Kind", (WorkloadRecommendation r) -> Value.text(r.workload().ownerKind())),
                // Drill down: the pods of the workload that hold shares now, in the workloads table.
                Table.<WorkloadRecommendation>column("owner_name", "Workload", r -> Value.text(r.workload().ownerName()))
                        .linked(r -> links.to("/workloads", inCluster(r, Map.of("workloads.q",
                                r.workload().ownerName()))))
                        .from(Measure.CONTAINER_OWNER),
                column("container", "Container", (WorkloadRecommendation r) -> Value.text(r.workload().container())),
                Table.<WorkloadRecommendation>column("pods", "Pods", r -> Value.of(r.pods().size(), Kind.COUNT))
                        .explained("pods of the workload with samples in the window or a share now"),
                column("pods_now", "Pods now", (WorkloadRecommendation r) -> Value.of(r.podsNow().size(), Kind.COUNT)),
                column("cards", "Cards per pod", (WorkloadRecommendation r) -> Value.of(r.cards(), Kind.COUNT)),
                Table.<WorkloadRecommendation>column("memory_now", "gpumem now per card",
                        r -> Value.of(r.currentMemoryMib(), Kind.MIB)).from(Measure.CONTAINER_MEMORY_ALLOCATED),
                Table.<WorkloadRecommendation>column("memory_lower", "gpumem lower per card",
                        r -> Value.of(r.memoryLowerMib(), Kind.MIB)).from(Measure.CONTAINER_MEMORY_MEDIAN)
                        .explained("median × 1.15 × (1 + 0.001/days)^-2 (the VPA's lower bound)"),
                Table.<WorkloadRecommendation>column("memory_recommended", "gpumem recommended per card",
                        r -> Value.of(r.memoryMib(), Kind.MIB)).from(Measure.CONTAINER_MEMORY_PEAK)
                        .explained("peak × 1.15, at least peak + 300 MiB, rounded up to 256 MiB; raised after a "
                                + "limit hit"),
                Table.<WorkloadRecommendation>column("memory_upper", "gpumem upper per card",
                        r -> Value.of(r.memoryUpperMib(), Kind.MIB))
                        .explained("the target's rule on peak × (1 + 1/days) (the VPA's upper bound)"),
                column("memory_change", "Change per card", (WorkloadRecommendation r) ->
                        Value.of(r.memoryChangeMib(), Kind.MIB_CHANGE)),
                Table.<WorkloadRecommendation>column("cores_now", "gpucores now per card",
                        r -> Value.of(r.currentCores(), Kind.PERCENT)).from(Measure.CONTAINER_CORES_ALLOCATED),
                Table.<WorkloadRecommendation>column("cores_lower", "gpucores lower per card",
                        r -> Value.of(r.coresLower(), Kind.PERCENT)).from(Measure.CONTAINER_UTILISATION_MEDIAN),
                Table.<WorkloadRecommendation>column("cores_recommended", "gpucores recommended per card",
                        r -> Value.of(r.cores(), Kind.PERCENT)).from(Measure.CONTAINER_UTILISATION_P95)
                        .explained("p95 of utilisation of the hottest pod, rounded up to 5, between 5 and 100"),
                column("cores_upper", "gpucores upper per card", (WorkloadRecommendation r) ->
                        Value.of(r.coresUpper(), Kind.PERCENT)),
                Table.<WorkloadRecommendation>column("memory_peak", "Peak per card",
                        r -> Value.of(r.memoryPeak(), Kind.BYTES)).from(Measure.CONTAINER_MEMORY_PEAK)
                        .explained("the highest use of any card of any pod in the window"),
                Table.<WorkloadRecommendation>column("utilisation_p95", "p95 used per card",
                        r -> Value.of(r.utilisationP95(), Kind.PERCENT)).from(Measure.CONTAINER_UTILISATION_P95),
                Table.<WorkloadRecommendation>column("history_days", "Days of history",
                        r -> Value.of(r.historyDays(), Kind.DECIMAL)).from(Measure.WORKLOAD_HOURS)
                        .explained("days of the window with samples of any of its pods: the bounds' confidence"),
                Table.<WorkloadRecommendation>column("samples", "Samples", r -> Value.of(r.samples(), Kind.COUNT))
                        .from(Measure.CONTAINER_SAMPLES).explained("memory samples of all its pods together"),
                column("note", "Note", (WorkloadRecommendation r) -> Value.text(note(r)))),
                "severity", true);
    }

    /**
     * A row's link parameters with the row's cluster, when its series name one: from all clusters'
     * page, a workload opens in the cluster it runs in.
     */
    static Map<String, String> inCluster(WorkloadRecommendation r, Map<String, String> parameters) {
        if (r.workload().cluster().isEmpty()) {
            return parameters;
        }
        Map<String, String> carried = new java.util.LinkedHashMap<>(parameters);
        carried.put(Links.CLUSTER, r.workload().cluster());
        return carried;
    }

    /** Why there is no target, a limit hit, pods that differ: each said, in one cell. */
    static String note(WorkloadRecommendation r) {
        List<String> parts = new java.util.ArrayList<>();
        r.notEnoughData().ifPresent(why -> parts.add("not enough data: " + why));
        r.limitBump().ifPresent(parts::add);
        r.replicasDiffer().ifPresent(parts::add);
        return String.join("; ", parts);
    }

    /** A figure or the empty string, for patches and notes. */
    static String plain(Figure figure) {
        return figure.isKnown() ? Long.toString(Math.round(figure.orElseThrow())) : "";
    }
}
