package io.hamiobserve.domain;

import java.util.Objects;

/**
 * A {@code controller: true} owner reference, as Kubernetes sets it on a pod or on an owner: the
 * controlling object's kind, name and UID. Owner references point within the referrer's
 * namespace, so the namespace is the referrer's.
 *
 * @param kind the owner's kind ({@code ReplicaSet}, {@code Job}, {@code StatefulSet}, {@code RayCluster}, ...)
 * @param name the owner's name
 * @param uid  the owner's UID; empty when the reference carries none (a hand-written dump), then it
 *             matches no known owner and the chain stops at it
 */
public record OwnerRef(String kind, String name, String uid) {
    public OwnerRef {
        Require.text(kind, "kind");
        Require.text(name, "name");
        Objects.requireNonNull(uid, "uid");
    }
}
