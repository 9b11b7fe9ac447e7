package io.hamiobserve.ports.spi;

import io.hamiobserve.domain.DeviceShare;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What one allocation annotation of a pod holds: per container position, the devices.
 *
 * <p>Positions are the contract (HAMi's {@code container_index}): the i-th entry is the pod's
 * i-th container, init containers first; an entry without devices stays an empty list, and a
 * device that does not decode is dropped without shifting anything. The caller merges the
 * allocations of several keys position by position.
 *
 * @param key        the pod annotation it came from
 * @param backend    HAMi's name for the device backend (its CommonWord)
 * @param containers per container position, the shares in the vendor's raw units
 */
public record PodAllocation(String key, String backend, List<List<DeviceShare>> containers) {
    public PodAllocation {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(backend, "backend");
        List<List<DeviceShare>> copy = new ArrayList<>(containers.size());
        for (List<DeviceShare> devices : containers) {
            copy.add(List.copyOf(devices));
        }
        containers = List.copyOf(copy);
    }
}
