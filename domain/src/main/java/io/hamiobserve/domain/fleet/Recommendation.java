package io.hamiobserve.domain.fleet;

import java.util.List;
import java.util.Optional;

/**
 * A right-sizing recommendation for one workload's HAMi resources, with the evidence it rests
 * on. Per card, because {@code nvidia.com/gpumem} and {@code nvidia.com/gpucores} are per-card
 * requests: a container with two cards asks the same on each.
 *
 * @param cards             how many cards the container holds ({@code nvidia.com/gpu})
 * @param currentMemoryMib  the current per-card memory request
 * @param currentCores      the current per-card compute request
 * @param memoryPeak        the highest use on any of its cards over the window, bytes
 * @param utilisationP95    the highest per-card 95th percentile of utilisation
 * @param samples           the fewest memory samples of any of its cards
 * @param memoryMib         the recommended per-card memory; missing with the reason
 * @param cores             the recommended per-card compute; missing with the reason
 * @param notEnoughData     why there is no recommendation, when there is none
 * @param idle              no kernel activity for {@link RightSizing#IDLE_AFTER} on any card
 */
public record Recommendation(WorkloadRef workload, String node, int cards, Figure currentMemoryMib,
                             Figure currentCores, Figure memoryPeak, Figure utilisationP95, long samples,
                             Figure memoryMib, Figure cores, Optional<String> notEnoughData, boolean idle,
                             List<String> uuids) {

    public Recommendation {
        uuids = List.copyOf(uuids);
    }

    public Severity memorySeverity() {
        return difference(memoryMib, currentMemoryMib).isKnown()
                ? Severity.ofMemoryDifference(difference(memoryMib, currentMemoryMib).orElseThrow())
                : Severity.UNKNOWN;
    }

    public Severity coresSeverity() {
        return difference(cores, currentCores).isKnown()
                ? Severity.ofCoresDifference(difference(cores, currentCores).orElseThrow())
                : Severity.UNKNOWN;
    }

    public Severity severity() {
        return memorySeverity().max(coresSeverity());
    }

    /** Recommended minus current memory per card, MiB (negative: the request can shrink). */
    public Figure memoryChangeMib() {
        return difference(memoryMib, currentMemoryMib);
    }

    public Figure coresChange() {
        return difference(cores, currentCores);
    }

    /** Memory the recommendation gives back over all its cards, bytes (0 when it asks for more). */
    public double memoryFreedBytes() {
        Figure change = memoryChangeMib();
        return change.isKnown() && change.orElseThrow() < 0 ? -change.orElseThrow() * cards * 1024 * 1024 : 0;
    }

    /** Compute the recommendation gives back over all its cards, percent of a card. */
    public double coresFreed() {
        Figure change = coresChange();
        return change.isKnown() && change.orElseThrow() < 0 ? -change.orElseThrow() * cards : 0;
    }

    /** The resources block to paste into the container's spec (HAMi reads them from limits). */
    public Optional<String> snippet() {
        if (!memoryMib.isKnown() && !cores.isKnown()) {
            return Optional.empty();
        }
        StringBuilder yaml = new StringBuilder("resources:\n  limits:\n");
        yaml.append("    nvidia.com/gpu: ").append(cards).append('\n');
        if (memoryMib.isKnown()) {
            yaml.append("    nvidia.com/gpumem: ").append((long) memoryMib.orElseThrow()).append('\n');
        }
        if (cores.isKnown()) {
            yaml.append("    nvidia.com/gpucores: ").append((long) cores.orElseThrow()).append('\n');
        }
        return Optional.of(yaml.toString());
    }

    private static Figure difference(Figure recommended, Figure current) {
        return recommended.minus(current);
    }
}
