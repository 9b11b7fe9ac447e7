package io.hamiobserve.domain.fleet;

import java.util.List;

/**
 * A container across the cards it holds shares of. Memory and compute sum over its cards; a sum
 * with a missing part is missing (a container with usage on one of two cards is not "half used").
 */
public record Workload(WorkloadRef ref, String node, List<WorkloadShare> shares) {
    public Workload {
        shares = List.copyOf(shares);
    }

    public Figure memoryAllocated() {
        return sum(shares.stream().map(WorkloadShare::memoryAllocated).toList());
    }

    public Figure memoryUsed() {
        return sum(shares.stream().map(WorkloadShare::memoryUsed).toList());
    }

    public Figure memoryIdle() {
        return sum(shares.stream().map(WorkloadShare::memoryIdle).toList());
    }

    public Figure coresAllocated() {
        return sum(shares.stream().map(WorkloadShare::coresAllocated).toList());
    }

    public Figure utilisation() {
        return sum(shares.stream().map(WorkloadShare::utilisation).toList());
    }

    /** Seconds since the most recent kernel on any of its cards. */
    public Figure lastKernelSeconds() {
        Figure least = null;
        for (WorkloadShare share : shares) {
            Figure each = share.lastKernelSeconds();
            if (each.isKnown() && (least == null || !least.isKnown() || each.orElseThrow() < least.orElseThrow())) {
                least = each;
            } else if (least == null) {
                least = each;
            }
        }
        return least == null ? Figure.missing(Absence.NOT_REPORTED) : least;
    }

    public double unmanagedMemory() {
        return shares.stream().mapToDouble(WorkloadShare::unmanagedMemory).sum();
    }

    public List<String> cards() {
        return shares.stream().map(WorkloadShare::uuid).distinct().toList();
    }

    /** The sum of all parts, or the first missing part. */
    static Figure sum(List<Figure> parts) {
        if (parts.isEmpty()) {
            return Figure.missing(Absence.NOT_REPORTED);
        }
        Figure total = Figure.of(0);
        for (Figure part : parts) {
            total = total.plus(part);
        }
        return total;
    }
}
