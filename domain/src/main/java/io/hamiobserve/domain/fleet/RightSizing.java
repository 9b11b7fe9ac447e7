package io.hamiobserve.domain.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The right-sizing rules for HAMi's per-card resources. The reasons for each number are in
 * docs/console.md; in short:
 * <ul>
 *   <li>memory = peak × {@value #MEMORY_MARGIN}, never below peak + {@value #CONTEXT_FLOOR_MIB} MiB,
 *       rounded up to {@value #MEMORY_STEP_MIB} MiB — KRR's margin over the maximum, plus room for
 *       one more CUDA context, which HAMi-Core lets a container exceed its limit by (HAMi #1026);</li>
 *   <li>cores = the 95th percentile of utilisation, rounded up to {@value #CORES_STEP}, at least
 *       {@value #CORES_STEP} (HAMi reads 0 as "no limit") and at most 100;</li>
 *   <li>no recommendation with fewer than {@value #MIN_SAMPLES} samples or less than three hours
 *       of history (KRR's thresholds).</li>
 * </ul>
 */
public final class RightSizing {
    public static final double MEMORY_MARGIN = 1.15;
    public static final long CONTEXT_FLOOR_MIB = 300;
    public static final long MEMORY_STEP_MIB = 256;
    public static final double CORES_PERCENTILE = 0.95;
    public static final long CORES_STEP = 5;
    public static final long MIN_SAMPLES = 100;
    public static final Duration MIN_HISTORY = Duration.ofHours(3);
    public static final Duration DEFAULT_WINDOW = Duration.ofDays(14);
    /** No kernel activity this long marks a workload idle (a commercial console uses 3 h too). */
    public static final Duration IDLE_AFTER = Duration.ofHours(3);

    /**
     * The VPA recommender's confidence multipliers (kubernetes/autoscaler,
     * vertical-pod-autoscaler/pkg/recommender/logic/recommender.go): the upper bound is multiplied
     * by (1 + {@value #UPPER_CONFIDENCE_MULTIPLIER}/days)^{@value #UPPER_CONFIDENCE_EXPONENT}, the lower
     * bound by (1 + {@value #LOWER_CONFIDENCE_MULTIPLIER}/days)^{@value #LOWER_CONFIDENCE_EXPONENT}.
     */
    public static final double UPPER_CONFIDENCE_MULTIPLIER = 1.0;
    public static final double UPPER_CONFIDENCE_EXPONENT = 1.0;
    public static final double LOWER_CONFIDENCE_MULTIPLIER = 0.001;
    public static final double LOWER_CONFIDENCE_EXPONENT = -2.0;
    /** A peak at this fraction of the {@code gpumem} limit or above is a limit hit (HAMi-Core refuses past it). */
    public static final double LIMIT_HIT_FRACTION = 0.98;
    /** The VPA's bump after an out-of-memory event (recommender flags oom-bump-up-ratio, oom-min-bump-up-bytes). */
    public static final double LIMIT_BUMP_RATIO = 1.2;
    public static final long LIMIT_BUMP_MIN_MIB = 100;
    /** Replicas differ when the coolest pod's peak is below this fraction of the hottest's. */
    public static final double REPLICAS_DIFFER_BELOW = 0.5;

    private static final double MIB = 1024 * 1024;

    private RightSizing() {
    }

    /** The recommended per-card memory for a peak use in bytes, in MiB. */
    public static long memoryMib(double peakBytes) {
        double peakMib = peakBytes / MIB;
        double wanted = Math.max(peakMib * MEMORY_MARGIN, peakMib + CONTEXT_FLOOR_MIB);
        long steps = (long) Math.ceil(wanted / MEMORY_STEP_MIB - 1e-9);
        return Math.max(1, steps) * MEMORY_STEP_MIB;
    }

    /** The recommended per-card compute for a 95th percentile of utilisation, percent of a card. */
    public static long cores(double utilisationP95) {
        long steps = (long) Math.ceil(Math.max(0, utilisationP95) / CORES_STEP - 1e-9);
        return Math.min(100, Math.max(1, steps) * CORES_STEP);
    }

    /** Why a share's history is too thin for a recommendation, or empty when it suffices. */
    public static Optional<String> insufficiency(UsageHistory.ShareHistory history) {
        if (!history.memoryPeak().isKnown() || history.samples() == 0) {
            return Optional.of("no usage samples in the window");
        }
        if (history.samples() < MIN_SAMPLES) {
            return Optional.of(history.samples() + " samples, fewer than " + MIN_SAMPLES);
        }
        if (history.settledSamples() == 0) {
            return Optional.of("less than " + MIN_HISTORY.toHours() + " h of history");
        }
        return Optional.empty();
    }

    /**
     * The recommendation for one workload: per card, the rules above; over its cards, the largest
     * (one request applies to every card of the container).
     */
    public static Recommendation recommend(Workload workload, UsageHistory history) {
        return recommend(workload, share -> history.shares().stream().filter(each -> each.matches(share)).findFirst());
    }

    /** Recommendations for every workload, in the workloads' order. */
    public static List<Recommendation> recommendAll(List<Workload> workloads, UsageHistory history) {
        Map<ShareKey, UsageHistory.ShareHistory> index = new HashMap<>();
        history.shares().forEach(share -> index.putIfAbsent(new ShareKey(container(share), share.uuid()), share));
        Function<WorkloadShare, Optional<UsageHistory.ShareHistory>> lookup = share -> Optional.ofNullable(index.get(
                new ShareKey(share.workload(), share.uuid())))
                .or(() -> Optional.ofNullable(index.get(new ShareKey(share.workload(), ""))));
        return workloads.stream().map(workload -> recommend(workload, lookup)).toList();
    }

    /**
     * A container's share of a card, as the history and the fleet now both name it (the card ""
     * where the history does not tell cards apart): the key of tens of thousands of lookups a
     * page, which records hash and compare without the iterators a list of names needs.
     */
    private record ShareKey(WorkloadRef container, String card) {
    }

    /** The container {@code share}'s history is of. */
    private static WorkloadRef container(UsageHistory.ShareHistory share) {
        return new WorkloadRef(share.namespace(), share.pod(), share.container());
    }

    private static Recommendation recommend(Workload workload,
                                            Function<WorkloadShare, Optional<UsageHistory.ShareHistory>> history) {
        Figure currentMemory = Figure.missing(Absence.NOT_REPORTED);
        Figure currentCores = Figure.missing(Absence.NOT_REPORTED);
        Figure peak = Figure.missing(Absence.NOT_ENOUGH_HISTORY);
        Figure p95 = Figure.missing(Absence.NOT_ENOUGH_HISTORY);
        long fewestSamples = Long.MAX_VALUE;
        Optional<String> insufficient = Optional.empty();
        boolean idle = true;
        List<String> uuids = new ArrayList<>();
        for (WorkloadShare share : workload.shares()) {
            uuids.add(share.uuid());
            currentMemory = currentMemory.max(share.memoryAllocated().map(bytes -> Math.round(bytes / MIB)));
            currentCores = currentCores.max(share.coresAllocated());
            if (share.origin().isPresent() && !share.origin().get().memoryIsOwn()) {
                // The exporter's memory figure is not the container's (the whole card's): no peak of it is.
                insufficient = insufficient.or(() -> Optional.of("no usage samples of its own: "
                        + share.origin().get().memoryMeaning()));
                fewestSamples = 0;
                idle = false;
                continue;
            }
            Optional<UsageHistory.ShareHistory> found = history.apply(share);
            if (found.isEmpty()) {
                // No samples at all: say why there is no usage now, when the join knows (outside
                // HAMi-Core, a MIG instance, a failing source), rather than only "no samples".
                String why = share.memoryUsed() instanceof Figure.Missing missing
                        && missing.why() != Absence.NO_USAGE_YET && missing.why() != Absence.NOT_REPORTED
                        ? "no usage samples in the window: " + missing.why().explanation()
                        : "no usage samples in the window";
                insufficient = insufficient.or(() -> Optional.of(why));
                fewestSamples = 0;
                idle = false;
                continue;
            }
            UsageHistory.ShareHistory each = found.get();
            fewestSamples = Math.min(fewestSamples, each.samples());
            insufficient = insufficient.or(() -> insufficiency(each));
            peak = peak.max(each.memoryPeak());
            p95 = share.origin().isPresent() && !share.origin().get().utilisationIsOwn()
                    ? Figure.missing(Absence.DIFFERENT_MEANING) : p95.max(each.utilisationP95());
            idle &= each.utilisationRecentMax().isKnown() && each.utilisationRecentMax().orElseThrow() == 0;
        }
        long samples = fewestSamples == Long.MAX_VALUE ? 0 : fewestSamples;
        Figure memory;
        Figure cores;
        if (insufficient.isPresent()) {
            memory = Figure.missing(Absence.NOT_ENOUGH_HISTORY);
            cores = Figure.missing(Absence.NOT_ENOUGH_HISTORY);
        } else {
            memory = Figure.of(memoryMib(peak.orElseThrow()));
            cores = p95.isKnown() ? Figure.of(cores(p95.orElseThrow())) : p95;
        }
        return new Recommendation(workload.ref(), workload.node(), workload.shares().size(), currentMemory,
                currentCores, peak, p95, samples, memory, cores, insufficient,
                !workload.shares().isEmpty() && samples > 0 && idle, uuids,
                workload.shares().isEmpty() ? CardResources.HAMI_DEFAULT : workload.shares().getFirst().resources());
    }

    /**
     * The VPA's confidence factor for {@code days} of history: (1 + multiplier/days)^exponent.
     * Longer history, a factor nearer 1; no history, no bound (infinite or zero).
     */
    public static double confidence(double days, double multiplier, double exponent) {
        return Math.pow(1 + multiplier / days, exponent);
    }

    /** Rounds memory up to the step, in MiB. */
    private static long memoryStep(double mib) {
        return Math.max(1, (long) Math.ceil(mib / MEMORY_STEP_MIB - 1e-9)) * MEMORY_STEP_MIB;
    }

    /**
     * Recommendations per workload (a controller's container across every pod it had in the
     * window), in the workloads' order. {@code now} gives the requests of the pods running now (a
     * pod name two clusters run joins the workload of its own cards' cluster); a pod the history
     * names no owner of is its own workload.
     */
    public static List<WorkloadRecommendation> byWorkload(List<Workload> now, UsageHistory history) {
        // A pod's owner per cluster (one, "", without clusters), and each card's cluster: a pod running
        // now joins its own cluster's workload, told by its cards, where two clusters run its name.
        Map<WorkloadRef, Map<String, WorkloadGroup>> ownerOf = new HashMap<>();
        Map<String, String> clusterOfCard = new HashMap<>();
        // Gathered by hash and put in the groups' order once at the end: a sorted map here compared
        // names at every one of the tens of thousands of shares (170 ms a call at 30,000 containers,
        // 95 ms without; docs/benchmarks.md, "A page's own work at 30,000 containers").
        Map<WorkloadGroup, List<UsageHistory.ShareHistory>> shares = new HashMap<>();
        for (UsageHistory.ShareHistory share : history.shares()) {
            ownerOf.computeIfAbsent(container(share),
                    key -> new java.util.LinkedHashMap<>()).putIfAbsent(share.workload().cluster(), share.workload());
            if (!share.uuid().isEmpty()) {
                clusterOfCard.putIfAbsent(share.uuid(), share.workload().cluster());
            }
            shares.computeIfAbsent(share.workload(), group -> new ArrayList<>()).add(share);
        }
        Map<WorkloadGroup, List<Workload>> running = new HashMap<>();
        for (Workload workload : now) {
            WorkloadRef ref = workload.ref();
            Map<String, WorkloadGroup> owners = ownerOf.getOrDefault(ref, Map.of());
            WorkloadGroup group = workload.cards().stream().map(clusterOfCard::get).filter(java.util.Objects::nonNull)
                    .map(owners::get).filter(java.util.Objects::nonNull).findFirst()
                    .orElseGet(() -> owners.isEmpty() ? WorkloadGroup.barePod("", ref.namespace(), ref.pod(),
                            ref.container()) : owners.values().iterator().next());
            running.computeIfAbsent(group, key -> new ArrayList<>()).add(workload);
            shares.computeIfAbsent(group, key -> new ArrayList<>());
        }
        List<WorkloadRecommendation> out = new ArrayList<>();
        shares.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(group -> out.add(recommend(
                group.getKey(), running.getOrDefault(group.getKey(), List.of()), group.getValue(),
                history.workloadHours().get(group.getKey()))));
        return out;
    }

    private static WorkloadRecommendation recommend(WorkloadGroup group, List<Workload> running,
                                                    List<UsageHistory.ShareHistory> shares, Long groupHours) {
        Figure currentMemory = Figure.missing(Absence.NOT_REPORTED);
        Figure currentCores = Figure.missing(Absence.NOT_REPORTED);
        int cards = 0;
        java.util.TreeSet<String> podsNow = new java.util.TreeSet<>();
        // The names its containers request cards by (the vendor's), as its running pods' shares say.
        CardResources resources = CardResources.HAMI_DEFAULT;
        for (Workload workload : running) {
            podsNow.add(workload.ref().pod());
            cards = Math.max(cards, workload.shares().size());
            for (WorkloadShare share : workload.shares()) {
                resources = share.resources();
                currentMemory = currentMemory.max(share.memoryAllocated().map(bytes -> Math.round(bytes / MIB)));
                currentCores = currentCores.max(share.coresAllocated());
            }
        }
        // Each pod over its cards: the most on any card (one request applies to every card).
        Map<String, List<UsageHistory.ShareHistory>> byPod = new java.util.TreeMap<>();
        shares.forEach(share -> byPod.computeIfAbsent(share.pod(), pod -> new ArrayList<>()).add(share));
        List<WorkloadRecommendation.PodFigures> perPod = new ArrayList<>();
        Figure peak = Figure.missing(Absence.NOT_ENOUGH_HISTORY);
        Figure median = Figure.missing(Absence.NOT_ENOUGH_HISTORY);
        Figure p95 = Figure.missing(Absence.NOT_ENOUGH_HISTORY);
        Figure p50 = Figure.missing(Absence.NOT_ENOUGH_HISTORY);
        long samples = 0;
        long podHours = -1;
        boolean settled = false;
        for (Map.Entry<String, List<UsageHistory.ShareHistory>> pod : byPod.entrySet()) {
            Figure podPeak = Figure.missing(Absence.NOT_ENOUGH_HISTORY);
            Figure podP95 = Figure.missing(Absence.NOT_ENOUGH_HISTORY);
            long podSamples = 0;
            long hours = -1;
            for (UsageHistory.ShareHistory share : pod.getValue()) {
                podPeak = podPeak.max(share.memoryPeak());
                podP95 = podP95.max(share.utilisationP95());
                median = median.max(share.memoryMedian());
                p50 = p50.max(share.utilisationMedian());
                podSamples = Math.max(podSamples, share.samples());
                hours = Math.max(hours, share.hours());
                settled |= share.settledSamples() > 0;
            }
            cards = Math.max(cards, (int) pod.getValue().stream().map(UsageHistory.ShareHistory::uuid).distinct().count());
            perPod.add(new WorkloadRecommendation.PodFigures(pod.getKey(), podPeak, podP95, podSamples, hours));
            peak = peak.max(podPeak);
            p95 = p95.max(podP95);
            samples += podSamples;
            podHours = Math.max(podHours, hours);
        }
        // The hours any of its pods has samples in (from the engine, across pods), else its longest-lived pod's.
        long hours = groupHours != null ? groupHours : podHours;
        Figure days = hours >= 0 ? Figure.of(hours / 24.0) : Figure.missing(Absence.NOT_REPORTED);
        Optional<String> insufficient;
        if (shares.isEmpty() || !peak.isKnown() || samples == 0) {
            insufficient = Optional.of("no usage samples in the window");
        } else if (samples < MIN_SAMPLES) {
            insufficient = Optional.of(samples + " samples, fewer than " + MIN_SAMPLES);
        } else if (hours >= 0 ? hours < MIN_HISTORY.toHours() : !settled) {
            insufficient = Optional.of("less than " + MIN_HISTORY.toHours() + " h of history");
        } else {
            insufficient = Optional.empty();
        }
        Figure memory = Figure.missing(Absence.NOT_ENOUGH_HISTORY);
        Figure memoryLower = memory;
        Figure memoryUpper = memory;
        Figure cores = memory;
        Figure coresLower = memory;
        Figure coresUpper = memory;
        Optional<String> bump = Optional.empty();
        if (insufficient.isEmpty()) {
            double peakBytes = peak.orElseThrow();
            long target = memoryMib(peakBytes);
            if (currentMemory.isKnown() && currentMemory.orElseThrow() > 0
                    && peakBytes >= LIMIT_HIT_FRACTION * currentMemory.orElseThrow() * MIB) {
                // HAMi-Core refused what went past the limit: the peak is the limit, not the need.
                double limit = currentMemory.orElseThrow();
                long raised = memoryStep(Math.max(limit * LIMIT_BUMP_RATIO, limit + LIMIT_BUMP_MIN_MIB));
                target = Math.max(target, raised);
                bump = Optional.of(String.format(java.util.Locale.ROOT,
                        "peak %.0f MiB reached %.0f %% of the %.0f MiB limit: HAMi-Core refuses allocations past "
                                + "it, so the need is unknown; raised to %d MiB (×%.1f, at least +%d MiB)",
                        peakBytes / MIB, 100 * peakBytes / (limit * MIB), limit, target, LIMIT_BUMP_RATIO,
                        LIMIT_BUMP_MIN_MIB));
            }
            memory = Figure.of(target);
            cores = p95.isKnown() ? Figure.of(cores(p95.orElseThrow())) : p95;
            if (days.isKnown() && days.orElseThrow() > 0) {
                double d = days.orElseThrow();
                double upper = confidence(d, UPPER_CONFIDENCE_MULTIPLIER, UPPER_CONFIDENCE_EXPONENT);
                double lower = confidence(d, LOWER_CONFIDENCE_MULTIPLIER, LOWER_CONFIDENCE_EXPONENT);
                long top = target;
                memoryUpper = Figure.of(Math.max(top, memoryMib(peakBytes * upper)));
                memoryLower = median.isKnown()
                        ? Figure.of(Math.min(top, memoryStep(median.orElseThrow() / MIB * MEMORY_MARGIN * lower)))
                        : Figure.missing(Absence.NOT_REPORTED);
                if (cores.isKnown()) {
                    long coresTarget = (long) cores.orElseThrow();
                    coresUpper = Figure.of(Math.max(coresTarget, cores(p95.orElseThrow() * upper)));
                    coresLower = p50.isKnown() ? Figure.of(Math.min(coresTarget, cores(p50.orElseThrow() * lower)))
                            : Figure.missing(Absence.NOT_REPORTED);
                }
            } else {
                memoryLower = memoryUpper = coresLower = coresUpper = Figure.missing(Absence.NOT_REPORTED);
            }
        }
        return new WorkloadRecommendation(group, new ArrayList<>(byPod.keySet().stream()
                .collect(java.util.stream.Collectors.toCollection(() -> new java.util.TreeSet<>(podsNow)))),
                List.copyOf(podsNow), Math.max(cards, 1), currentMemory, currentCores, peak, median, p95, p50, days,
                samples, memory, memoryLower, memoryUpper, cores, coresLower, coresUpper, insufficient, bump,
                replicasDiffer(perPod), perPod, resources);
    }

    /**
     * Whether one pod ran hot while another stayed cool: said, not averaged away (the target
     * follows the hottest, since every replica gets the same request).
     */
    private static Optional<String> replicasDiffer(List<WorkloadRecommendation.PodFigures> pods) {
        List<WorkloadRecommendation.PodFigures> known = pods.stream().filter(pod -> pod.memoryPeak().isKnown())
                .toList();
        if (known.size() < 2) {
            return Optional.empty();
        }
        WorkloadRecommendation.PodFigures hot = known.stream()
                .max(java.util.Comparator.comparingDouble(pod -> pod.memoryPeak().orElseThrow())).orElseThrow();
        WorkloadRecommendation.PodFigures cool = known.stream()
                .min(java.util.Comparator.comparingDouble(pod -> pod.memoryPeak().orElseThrow())).orElseThrow();
        double high = hot.memoryPeak().orElseThrow();
        double low = cool.memoryPeak().orElseThrow();
        if (high <= 0 || low >= REPLICAS_DIFFER_BELOW * high) {
            return Optional.empty();
        }
        return Optional.of(String.format(java.util.Locale.ROOT,
                "pods differ: peak per card from %.0f MiB (%s) to %.0f MiB (%s); the target follows the highest, "
                        + "as every pod gets the same request", low / MIB, cool.pod(), high / MIB, hot.pod()));
    }

    /**
     * What right-sizing every workload would free.
     *
     * @param memoryBytes memory given back over all cards
     * @param cores       compute given back, percent of a card
     * @param memoryCards the memory in cards' worth (average card memory)
     */
    public record Savings(double memoryBytes, double cores, Figure memoryCards) {
        public static Savings of(List<Recommendation> recommendations, Figure meanCardMemory) {
            double memory = recommendations.stream().mapToDouble(Recommendation::memoryFreedBytes).sum();
            double cores = recommendations.stream().mapToDouble(Recommendation::coresFreed).sum();
            return new Savings(memory, cores, Figure.of(memory).fractionOf(meanCardMemory));
        }
    }
}
