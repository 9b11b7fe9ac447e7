package io.hamiobserve.domain.fleet;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Every namespace's accrual over a window ending at {@code at}, with the queries behind it. */
public record AccrualHistory(Instant at, Duration window, List<NamespaceAccrual> namespaces,
                             Map<Measure, Provenance> provenance) {
    public AccrualHistory {
        namespaces = List.copyOf(namespaces);
        provenance = Map.copyOf(provenance);
    }
}
