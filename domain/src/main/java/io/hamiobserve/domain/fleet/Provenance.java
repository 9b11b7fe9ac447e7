package io.hamiobserve.domain.fleet;

import java.util.Objects;

/**
 * Where a figure came from: the name of the query and its full text in the source's own language
 * (PromQL for Prometheus). The console shows it next to the figure, so a user can check a number
 * in Prometheus and reuse the query in a dashboard or an alert.
 *
 * @param name       a stable name, e.g. {@code container_memory_used}
 * @param expression the query as it was sent
 */
public record Provenance(String name, String expression) {
    public Provenance {
        Objects.requireNonNull(name);
        Objects.requireNonNull(expression);
    }
}
