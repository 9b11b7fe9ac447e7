package io.hamiobserve.domain;

/** Identity of a pod: namespace and name for people, UID for joins with cache directories. */
public record PodRef(String namespace, String name, String uid) {
    public PodRef {
        Require.text(namespace, "namespace");
        Require.text(name, "name");
        Require.text(uid, "uid");
    }
}
