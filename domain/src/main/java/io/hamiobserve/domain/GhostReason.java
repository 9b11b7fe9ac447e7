package io.hamiobserve.domain;

/**
 * Why a share's owner is not live: the {@code reason} label of the ghost allocation series, a
 * bounded set whatever the pod says (its phase and times are facts read, never label values).
 */
public enum GhostReason {
    /**
     * The pod has a {@code deletionTimestamp}: it holds its share until the object is gone (HAMi
     * counts a pod being deleted), and the API server meant it gone by that moment. Past it, a
     * finalizer, a lost node or a kubelet that never confirms keeps the share.
     */
    DELETING("deleting"),
    /**
     * The pod was placed and no container of it has ever run (an image that never pulls, a volume
     * that never mounts, a device plugin that never allocates): the share is held from placement.
     */
    NEVER_STARTED("never_started");

    private final String label;

    GhostReason(String label) {
        this.label = label;
    }

    /** The label value. */
    public String label() {
        return label;
    }
}
