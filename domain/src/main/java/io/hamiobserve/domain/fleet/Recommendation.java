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
 * @param resources         the resource names the container requests its cards by (the vendor's)
 */
public record Recommendation(WorkloadRef workload, String node, int cards, Figure currentMemoryMib,
                             Figure currentCores, Figure memoryPeak, Figure utilisationP95, long samples,
                             Figure memoryMib, Figure cores, Optional<String> notEnoughData, boolean idle,
                             List<String> uuids, CardResources resources) {

    public Recommendation {
        uuids = List.copyOf(uuids);
        java.util.Objects.requireNonNull(resources);
    }

    /** A recommendation written in HAMi's default resource names. */
    public Recommendation(WorkloadRef workload, String node, int cards, Figure currentMemoryMib,
                          Figure currentCores, Figure memoryPeak, Figure utilisationP95, long samples,
                          Figure memoryMib, Figure cores, Optional<String> notEnoughData, boolean idle,
                          List<String> uuids) {
        this(workload, node, cards, currentMemoryMib, currentCores, memoryPeak, utilisationP95, samples, memoryMib,
                cores, notEnoughData, idle, uuids, CardResources.HAMI_DEFAULT);
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

    /**
     * The resources block to paste into the container's spec (HAMi reads them from limits), in the
     * vendor's resource names and memory unit (rounded up to whole units); compute only where the
     * vendor requests it as a percent of the card.
     */
    public Optional<String> snippet() {
        boolean withCores = cores.isKnown() && !resources.cores().isEmpty();
        if (!memoryMib.isKnown() && !withCores) {
            return Optional.empty();
        }
        StringBuilder yaml = new StringBuilder("resources:\n  limits:\n");
        yaml.append("    ").append(resources.count()).append(": ").append(cards).append('\n');
        if (memoryMib.isKnown()) {
            long mib = (long) memoryMib.orElseThrow();
            yaml.append("    ").append(resources.memory()).append(": ")
                    .append(resources.memoryUnits(mib)).append('\n');
        }
        if (withCores) {
            yaml.append("    ").append(resources.cores()).append(": ").append((long) cores.orElseThrow()).append('\n');
        }
        return Optional.of(yaml.toString());
    }

    private static Figure difference(Figure recommended, Figure current) {
        return recommended.minus(current);
    }
}
