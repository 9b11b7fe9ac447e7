package io.hamiobserve.domain;

/**
 * The container a host process belongs to, read from its cgroup.
 *
 * @param podUid      the pod UID (with dashes, as Kubernetes spells it)
 * @param containerId the runtime's container ID
 */
public record ProcessOwner(String podUid, String containerId) {
    public ProcessOwner {
        Require.text(podUid, "podUid");
        Require.text(containerId, "containerId");
    }
}
