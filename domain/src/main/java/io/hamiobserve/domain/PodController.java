package io.hamiobserve.domain;

import java.util.Objects;
import java.util.Optional;

/**
 * What a pod says of its controller: its {@code controller: true} owner reference, if any, and
 * its {@code pod-template-hash} label (set by the Deployment controller and Argo Rollouts on the
 * pods of a ReplicaSet named {@code <owner>-<hash>}), which names the Deployment when the
 * ReplicaSet itself is not known.
 *
 * @param ref          the controlling owner reference; empty for a bare pod
 * @param templateHash the {@code pod-template-hash} label's value, empty when absent
 */
public record PodController(Optional<OwnerRef> ref, String templateHash) {
    /** A pod with no controller: its own workload. */
    public static final PodController NONE = new PodController(Optional.empty(), "");

    public PodController {
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(templateHash, "templateHash");
    }

    /** A pod controlled by {@code ref}, without a template hash. */
    public static PodController of(OwnerRef ref) {
        return new PodController(Optional.of(ref), "");
    }
}
