package io.hamiobserve.domain;

import java.util.Objects;
import java.util.Optional;

/**
 * What the ledger keeps of an intermediate owner (a ReplicaSet, a Job): its identity and the
 * controller above it, nothing of its spec. Pods name their top controller through these
 * ({@link OwnerChains}).
 *
 * @param kind       {@code ReplicaSet} or {@code Job} (any kind the source caches)
 * @param namespace  its namespace; it owns pods of that namespace only
 * @param name       its name
 * @param uid        its UID, the key pods' and owners' references use
 * @param controller its own {@code controller: true} owner reference, if any
 */
public record OwnerObject(String kind, String namespace, String name, String uid, Optional<OwnerRef> controller) {
    public OwnerObject {
        Require.text(kind, "kind");
        Require.text(namespace, "namespace");
        Require.text(name, "name");
        Require.text(uid, "uid");
        Objects.requireNonNull(controller, "controller");
    }
}
