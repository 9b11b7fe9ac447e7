package io.hamiobserve.domain.fleet;

import java.util.List;
import java.util.Optional;

/**
 * One card, joined: the scheduler's registration and totals, the driver's readings and the
 * containers holding shares of it. Memory in bytes; compute in the vendor's unit ({@code coresTotal},
 * {@code coresAllocated}: percent for NVIDIA, AI cores for Ascend, ...) and as a percent of the card
 * ({@code coresAllocatedPercent}, comparable across vendors).
 *
 * @param mode  {@code hami-core}, {@code mig}, or empty when unknown
 * @param model empty when no node registers the card (seen only by its driver or in a pod's share)
 * @param temperature the node role's reading (NVML); {@link #temperatureShown()} prefers DCGM's
 * @param physical DCGM's counters for the card, when a DCGM exporter reports it
 * @param origin   where {@code memoryUsed} and {@code utilisation} come from when not HAMi's usage
 *                 endpoint (a vendor's exporter)
 */
public record Card(String node, String uuid, int index, String model, String mode, Figure healthy,
                   Figure memoryTotal, Figure memoryAllocated, Figure memoryUsed, Figure coresTotal,
                   Figure coresAllocated, Figure utilisation, Figure slotsUsed, Figure slotsTotal,
                   Figure temperature, Figure power, Figure beyondAllocation, Figure coresAllocatedPercent,
                   List<WorkloadShare> shares, Optional<Physical> physical, Optional<UsageOrigin> origin) {

    public Card {
        shares = List.copyOf(shares);
        java.util.Objects.requireNonNull(physical);
        java.util.Objects.requireNonNull(origin);
    }

    /** A card whose use, if any, comes from HAMi's usage endpoint. */
    public Card(String node, String uuid, int index, String model, String mode, Figure healthy,
                Figure memoryTotal, Figure memoryAllocated, Figure memoryUsed, Figure coresTotal,
                Figure coresAllocated, Figure utilisation, Figure slotsUsed, Figure slotsTotal,
                Figure temperature, Figure power, Figure beyondAllocation, Figure coresAllocatedPercent,
                List<WorkloadShare> shares, Optional<Physical> physical) {
        this(node, uuid, index, model, mode, healthy, memoryTotal, memoryAllocated, memoryUsed, coresTotal,
                coresAllocated, utilisation, slotsUsed, slotsTotal, temperature, power, beyondAllocation,
                coresAllocatedPercent, shares, physical, Optional.empty());
    }

    /** The GPU temperature shown: DCGM's where it reports the card, else the node role's. */
    public Sourced temperatureShown() {
        return Sourced.prefer(physical.map(Physical::gpuTemperature).orElse(Figure.missing(Absence.NOT_REPORTED)),
                temperature);
    }

    /** The power draw shown: DCGM's where it reports the card, else the node role's. */
    public Sourced powerShown() {
        return Sourced.prefer(physical.map(Physical::power).orElse(Figure.missing(Absence.NOT_REPORTED)), power);
    }

    public boolean mig() {
        return "mig".equals(mode);
    }

    /**
     * The same card with other memory and compute allocated on it: what applying right-sizing
     * would leave ({@link Capacity#afterRightSizing}).
     */
    public Card withAllocation(Figure memoryAllocated, Figure coresAllocated) {
        return new Card(node, uuid, index, model, mode, healthy, memoryTotal, memoryAllocated, memoryUsed, coresTotal,
                coresAllocated, utilisation, slotsUsed, slotsTotal, temperature, power, beyondAllocation,
                coresAllocatedPercent, shares, physical, origin);
    }

    public Figure memoryFree() {
        return memoryTotal.minus(memoryAllocated).map(free -> Math.max(0, free));
    }

    public Figure coresFree() {
        return coresTotal.minus(coresAllocated).map(free -> Math.max(0, free));
    }

    public Figure slotsFree() {
        return slotsTotal.minus(slotsUsed).map(free -> Math.max(0, free));
    }

    /**
     * Memory the driver reports in use that no container's HAMi-Core accounting covers: the
     * driver's own reserve plus processes outside HAMi-Core. Missing without a driver reading.
     */
    public Figure memoryOutsideHamiCore() {
        double accounted = shares.stream().filter(share -> share.origin().map(UsageOrigin::memoryIsOwn).orElse(true))
                .map(WorkloadShare::memoryUsed).filter(Figure::isKnown)
                .mapToDouble(Figure::orElseThrow).sum();
        return memoryUsed.map(used -> Math.max(0, used - accounted));
    }

    /** Whether the card is used beyond everything allocated on it (someone is not held to a share). */
    public boolean usedBeyondAllocation() {
        if (beyondAllocation.isKnown()) {
            return beyondAllocation.orElseThrow() > 0;
        }
        return memoryUsed.isKnown() && memoryAllocated.isKnown()
                && memoryUsed.orElseThrow() > memoryAllocated.orElseThrow();
    }
}
