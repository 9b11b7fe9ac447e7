package io.hamiobserve.domain.fleet;

import java.util.Objects;

/**
 * One card's physical counters as DCGM's exporter reports them, joined to the fleet by the card's
 * UUID (dcgm-exporter's {@code UUID} label is HAMi's {@code device_uuid}). Every figure is the
 * card's: series that repeat a card (dcgm-exporter's Kubernetes mapping adds one per pod) are
 * reduced before they get here.
 *
 * @param hostname           dcgm-exporter's {@code Hostname} label; empty when absent
 * @param gpuTemperature     °C ({@code DCGM_FI_DEV_GPU_TEMP})
 * @param memoryTemperature  °C ({@code DCGM_FI_DEV_MEMORY_TEMP}; HBM cards only)
 * @param power              W ({@code DCGM_FI_DEV_POWER_USAGE})
 * @param energy             J over {@link #ENERGY_WINDOW}, from {@code DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION}
 * @param smClock            MHz ({@code DCGM_FI_DEV_SM_CLOCK})
 * @param utilisation        percent ({@code DCGM_FI_DEV_GPU_UTIL}, or 100 × {@code DCGM_FI_PROF_GR_ENGINE_ACTIVE})
 * @param utilisationField   the DCGM field {@code utilisation} came from; empty when missing
 * @param framebufferUsed    bytes ({@code DCGM_FI_DEV_FB_USED}, which DCGM reports in MiB)
 * @param xid                the last Xid error code ({@code DCGM_FI_DEV_XID_ERRORS}); 0 when none
 * @param clockEvents        the clock-event (throttle) bit mask, {@link ClockEvents}
 * @param eccUncorrectable   volatile double-bit ECC errors since the driver loaded
 * @param sustainedDisagreement the least difference, in bytes, between HAMi's host memory used and
 *                           DCGM's framebuffer used over {@link #DISAGREEMENT_WINDOW}: above
 *                           {@link #DISAGREEMENT_TOLERANCE_BYTES}, the two have disagreed all along
 */
public record Physical(String uuid, String hostname, Figure gpuTemperature, Figure memoryTemperature, Figure power,
                       Figure energy, Figure smClock, Figure utilisation, String utilisationField,
                       Figure framebufferUsed, Figure xid, Figure clockEvents, Figure eccUncorrectable,
                       Figure sustainedDisagreement) {

    /** The window energy is counted over. */
    public static final java.time.Duration ENERGY_WINDOW = java.time.Duration.ofHours(1);
    /** A card at or above this GPU temperature for {@link #HOT_FOR} is hot (the alert's threshold). */
    public static final double HOT_CELSIUS = 85;
    /** How long a card stays hot, or throttled, before it is reported. */
    public static final java.time.Duration HOT_FOR = java.time.Duration.ofMinutes(10);
    /**
     * Host memory used (HAMi) and framebuffer used (DCGM) read the same memory: they may differ by
     * a sampling moment, not by this much.
     */
    public static final double DISAGREEMENT_TOLERANCE_BYTES = 1024.0 * 1024 * 1024;
    /** How long the two must disagree before it is shown and alerted. */
    public static final java.time.Duration DISAGREEMENT_WINDOW = java.time.Duration.ofMinutes(15);

    public Physical {
        Objects.requireNonNull(uuid);
        Objects.requireNonNull(hostname);
        Objects.requireNonNull(utilisationField);
    }

    /** The clock-event reasons in words; missing when DCGM does not report them. */
    public java.util.Optional<String> clockEventWords() {
        return clockEvents.isKnown() ? java.util.Optional.of(ClockEvents.describe((long) clockEvents.orElseThrow()))
                : java.util.Optional.empty();
    }

    /** Whether the card is slowed by heat or power now. */
    public boolean throttling() {
        return clockEvents.isKnown() && ClockEvents.throttling((long) clockEvents.orElseThrow());
    }

    /** Whether DCGM reports an Xid error on the card. */
    public boolean xidError() {
        return xid.isKnown() && xid.orElseThrow() > 0;
    }

    /** Whether HAMi's and DCGM's memory used have differed beyond the tolerance for the whole window. */
    public boolean sourcesDisagree() {
        return sustainedDisagreement.isKnown() && sustainedDisagreement.orElseThrow() > DISAGREEMENT_TOLERANCE_BYTES;
    }
}
