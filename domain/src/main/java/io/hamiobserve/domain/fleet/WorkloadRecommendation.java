package io.hamiobserve.domain.fleet;

import java.util.List;
import java.util.Optional;

/**
 * The recommendation for one workload (a controller's container, over every pod it had in the
 * window), with the VPA recommender's bounds and the evidence. Every memory and compute figure is
 * per card: {@code nvidia.com/gpumem} and {@code nvidia.com/gpucores} are per-card requests, and
 * one request applies to every card of every replica. The reasons for each number are in
 * docs/console.md ("Right-sizing per workload").
 *
 * @param pods             every pod of the workload with samples in the window (or holding a share now)
 * @param podsNow          the pods holding a share now
 * @param cards            cards per pod ({@code nvidia.com/gpu}), the most any of its pods holds
 * @param currentMemoryMib the per-card memory request now (the largest of its pods now); missing when none runs
 * @param currentCores     the per-card compute request now
 * @param memoryPeak       the highest use of any card of any pod in the window, bytes per card
 * @param memoryMedian     the median use (of hourly peaks where recorded) of its hottest pod, bytes per card
 * @param utilisationP95   the highest per-card 95th percentile of any pod, percent of a card
 * @param utilisationMedian the highest per-card median of any pod, percent of a card
 * @param historyDays      days of the window with samples of any of its pods (the VPA's confidence)
 * @param samples          memory samples of all its pods together
 * @param memoryMib        the target per card, MiB; missing with the reason in {@code notEnoughData}
 * @param memoryLowerMib   the lower bound per card, MiB
 * @param memoryUpperMib   the upper bound per card, MiB
 * @param cores            the target per card, percent
 * @param coresLower       the lower bound per card, percent
 * @param coresUpper       the upper bound per card, percent
 * @param limitBump        why the memory target was raised above the rule (the peak reached the limit)
 * @param replicasDiffer   how its pods differ, when one is hot and another idle
 * @param perPod           each pod's own figures, for the drill-down
 */
public record WorkloadRecommendation(WorkloadGroup workload, List<String> pods, List<String> podsNow, int cards,
                                     Figure currentMemoryMib, Figure currentCores, Figure memoryPeak,
                                     Figure memoryMedian, Figure utilisationP95, Figure utilisationMedian,
                                     Figure historyDays, long samples, Figure memoryMib, Figure memoryLowerMib,
                                     Figure memoryUpperMib, Figure cores, Figure coresLower, Figure coresUpper,
                                     Optional<String> notEnoughData, Optional<String> limitBump,
                                     Optional<String> replicasDiffer, List<PodFigures> perPod,
                                     CardResources resources) {
    public WorkloadRecommendation {
        java.util.Objects.requireNonNull(resources);
        pods = List.copyOf(pods);
        podsNow = List.copyOf(podsNow);
        perPod = List.copyOf(perPod);
    }

    /**
     * One pod of a workload over the window, per card.
     *
     * @param memoryPeak     its highest use on any of its cards, bytes
     * @param utilisationP95 its highest per-card 95th percentile
     * @param hours          hours of the window it has samples in; -1 when not known
     */
    public record PodFigures(String pod, Figure memoryPeak, Figure utilisationP95, long samples, long hours) {
    }

    /** Recommended minus current memory per card, MiB (negative: the request can shrink). */
    public Figure memoryChangeMib() {
        return memoryMib.minus(currentMemoryMib);
    }

    public Figure coresChange() {
        return cores.minus(currentCores);
    }

    public Severity severity() {
        Severity memory = memoryChangeMib().isKnown()
                ? Severity.ofMemoryDifference(memoryChangeMib().orElseThrow()) : Severity.UNKNOWN;
        Severity compute = coresChange().isKnown()
                ? Severity.ofCoresDifference(coresChange().orElseThrow()) : Severity.UNKNOWN;
        return memory.max(compute);
    }

    /** Memory the recommendation gives back over every card of the pods running now, bytes (0 when it asks more). */
    public double memoryFreedBytes() {
        Figure change = memoryChangeMib();
        return change.isKnown() && change.orElseThrow() < 0
                ? -change.orElseThrow() * cards * podsNow.size() * 1024 * 1024 : 0;
    }

    /** Compute the recommendation gives back over every card of the pods running now, percent of a card. */
    public double coresFreed() {
        Figure change = coresChange();
        return change.isKnown() && change.orElseThrow() < 0 ? -change.orElseThrow() * cards * podsNow.size() : 0;
    }

    /** Whether there is anything to set: a target for memory or compute. */
    public boolean hasTarget() {
        return memoryMib.isKnown() || cores.isKnown();
    }
}
