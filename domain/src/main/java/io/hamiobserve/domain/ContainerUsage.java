package io.hamiobserve.domain;

import java.util.List;

/**
 * One container's HAMi-Core accounting, as found on the node. The pod is known only by UID here:
 * names come from the node's pod directory.
 *
 * @param podUid        the pod UID (first part of the cache directory name)
 * @param containerName the container name (the rest of the directory name)
 * @param devices       per device position
 */
public record ContainerUsage(String podUid, String containerName, List<DeviceUsage> devices) {
    public ContainerUsage {
        Require.text(podUid, "podUid");
        Require.text(containerName, "containerName");
        devices = List.copyOf(devices);
    }
}
