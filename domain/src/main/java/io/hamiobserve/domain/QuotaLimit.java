package io.hamiobserve.domain;

import java.util.Objects;

/**
 * A hard limit one ResourceQuota sets on one GPU resource of a namespace.
 *
 * @param namespace  the namespace
 * @param quotaObject the ResourceQuota object's name (several may limit the same resource; the
 *                   smallest wins, as Kubernetes enforces every quota)
 * @param resource   what is limited
 * @param hardLimit  the limit in the resource's unit (MiB or percent)
 */
public record QuotaLimit(String namespace, String quotaObject, QuotaResource resource, long hardLimit) {
    public QuotaLimit {
        Require.text(namespace, "namespace");
        Require.text(quotaObject, "quotaObject");
        Objects.requireNonNull(resource, "resource");
        Require.atMost(hardLimit, Quantities.MAX_QUOTA, "hardLimit");
    }
}
