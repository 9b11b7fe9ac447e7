package io.hamiobserve.domain.fleet;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One namespace's bill over a window, in units a finance sheet takes: GiB-hours of GPU memory
 * and card-hours of compute, allocated and used, with the efficiency (used ÷ allocated), the
 * namespace's part of everything allocated, and how much of its quota it held on average.
 *
 * @param memoryQuotaHeld average allocated memory ÷ memory quota over the window; missing without a quota
 */
public record Chargeback(String namespace, Figure memoryAllocatedGibHours, Figure memoryUsedGibHours,
                         Figure coresAllocatedCardHours, Figure coresUsedCardHours, Figure memoryShareOfCluster,
                         Figure memoryQuotaHeld) {

    private static final double GIB_HOUR = 1024.0 * 1024 * 1024 * 3600;
    private static final double CARD_HOUR = 100.0 * 3600;

    /**
     * Steps per window when integrating: hourly over a week, two-hourly over KRR's 14 days. A
     * subquery's cost grows with its steps times the series (measured in docs/benchmarks.md); a pod
     * shorter than a step is counted to the nearest step.
     */
    public static final int STEPS_PER_WINDOW = 168;

    /** The integration step for a window: about {@value #STEPS_PER_WINDOW} per window, whole minutes. */
    public static Duration step(Duration window) {
        return Duration.ofMinutes(Math.max(1, (window.toSeconds() / STEPS_PER_WINDOW + 59) / 60));
    }

    public Figure memoryEfficiency() {
        return memoryUsedGibHours.fractionOf(memoryAllocatedGibHours);
    }

    public Figure coresEfficiency() {
        return coresUsedCardHours.fractionOf(coresAllocatedCardHours);
    }

    /**
     * The bill of every namespace.
     *
     * @param memoryQuotas per namespace, its memory quota in bytes (namespaces without one are absent)
     */
    public static List<Chargeback> of(Collection<NamespaceAccrual> accruals, Duration window,
                                      Map<String, Figure> memoryQuotas) {
        double allocatedTotal = accruals.stream().map(NamespaceAccrual::memoryAllocatedByteSeconds)
                .filter(Figure::isKnown).mapToDouble(Figure::orElseThrow).sum();
        Map<String, Figure> quotas = new HashMap<>(memoryQuotas);
        double seconds = window.toSeconds();
        return accruals.stream().sorted(java.util.Comparator.comparing(NamespaceAccrual::namespace)).map(accrual -> {
            Figure quota = quotas.getOrDefault(accrual.namespace(), Figure.missing(Absence.NOT_REPORTED));
            return new Chargeback(accrual.namespace(),
                    accrual.memoryAllocatedByteSeconds().map(value -> value / GIB_HOUR),
                    accrual.memoryUsedByteSeconds().map(value -> value / GIB_HOUR),
                    accrual.coresAllocatedPercentSeconds().map(value -> value / CARD_HOUR),
                    accrual.coresUsedPercentSeconds().map(value -> value / CARD_HOUR),
                    accrual.memoryAllocatedByteSeconds().fractionOf(Figure.of(allocatedTotal)),
                    accrual.memoryAllocatedByteSeconds().fractionOf(quota.map(bytes -> bytes * seconds)));
        }).toList();
    }
}
