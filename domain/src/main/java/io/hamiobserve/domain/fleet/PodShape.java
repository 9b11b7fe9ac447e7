package io.hamiobserve.domain.fleet;

/**
 * The GPU request of a pod to place: per card memory and compute, and how many cards
 * ({@code nvidia.com/gpumem}, {@code nvidia.com/gpucores}, {@code nvidia.com/gpu}). HAMi puts the
 * cards of one container on distinct cards of one node.
 *
 * @param memoryMib per card, at least 1
 * @param cores     per card, percent of a card; 0 asks for no compute share
 * @param cards     at least 1
 */
public record PodShape(long memoryMib, long cores, int cards) {
    public PodShape {
        if (memoryMib < 1 || memoryMib > 16L * 1024 * 1024) {
            throw new IllegalArgumentException("memory per card must be between 1 MiB and 16 TiB, was " + memoryMib);
        }
        if (cores < 0 || cores > 100) {
            throw new IllegalArgumentException("cores per card must be between 0 and 100, was " + cores);
        }
        if (cards < 1 || cards > 64) {
            throw new IllegalArgumentException("cards per pod must be between 1 and 64, was " + cards);
        }
    }
}
