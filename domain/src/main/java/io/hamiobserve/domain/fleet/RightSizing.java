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
        Map<List<String>, UsageHistory.ShareHistory> index = new HashMap<>();
        history.shares().forEach(share -> index.putIfAbsent(
                List.of(share.namespace(), share.pod(), share.container(), share.uuid()), share));
        Function<WorkloadShare, Optional<UsageHistory.ShareHistory>> lookup = share -> Optional.ofNullable(index.get(
                List.of(share.workload().namespace(), share.workload().pod(), share.workload().container(),
                        share.uuid()))).or(() -> Optional.ofNullable(index.get(List.of(share.workload().namespace(),
                share.workload().pod(), share.workload().container(), ""))));
        return workloads.stream().map(workload -> recommend(workload, lookup)).toList();
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
