package io.hamiobserve.domain;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The shares one container of a pod holds.
 *
 * @param index   the container's position in the allocation annotation: init containers first,
 *                then app containers, in pod order (HAMi's {@code container_index})
 * @param name    the container's name, or empty when the pod spec was not available
 * @param init    whether this is an init container (they run one after another, so they
 *                count by their peak, not their sum)
 * @param devices the device shares, possibly none
 */
public record ContainerShares(int index, String name, boolean init, List<DeviceShare> devices) {
    public ContainerShares {
        Require.nonNegative(index, "index");
        name = Objects.requireNonNullElse(name, "");
        devices = List.copyOf(devices);
    }

    /**
     * What the container holds on each card it lists, in the order it first lists them. Several
     * entries for one card are summed, saturating: a container listing one card many times holds
     * every slice, and cannot wrap the figure.
     */
    public Map<String, Grant> byCard() {
        Map<String, Grant> byCard = new LinkedHashMap<>();
        for (DeviceShare share : devices) {
            byCard.merge(share.uuid(), new Grant(share.memoryMib(), share.cores()), Grant::plus);
        }
        return byCard;
    }

    /**
     * Memory and compute a container holds on one card.
     *
     * @param memoryMib memory, MiB
     * @param cores     compute, percent of a card
     */
    public record Grant(long memoryMib, long cores) {
        /** Both grants together, saturating. */
        public Grant plus(Grant other) {
            return new Grant(Quantities.add(memoryMib, other.memoryMib), Quantities.add(cores, other.cores));
        }
    }
}
