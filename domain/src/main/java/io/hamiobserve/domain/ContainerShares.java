package io.hamiobserve.domain;

import java.util.List;
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
}
