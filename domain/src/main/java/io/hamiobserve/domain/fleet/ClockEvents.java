package io.hamiobserve.domain.fleet;

import java.util.ArrayList;
import java.util.List;

/**
 * Why a card's clocks are held below their maximum: the bit mask DCGM reports as
 * {@code DCGM_FI_DEV_CLOCKS_EVENT_REASONS} (older DCGM: {@code DCGM_FI_DEV_CLOCK_THROTTLE_REASONS}),
 * NVML's {@code nvmlClocksEventReason*} values (nvml.h; the same bits under their older
 * {@code nvmlClocksThrottleReason*} names), decoded into words.
 */
public enum ClockEvents {
    GPU_IDLE(0x1L, "idle", Kind.BENIGN),
    APPLICATIONS_CLOCKS_SETTING(0x2L, "applications clocks setting", Kind.BENIGN),
    SW_POWER_CAP(0x4L, "software power cap", Kind.POWER),
    HW_SLOWDOWN(0x8L, "hardware slowdown", Kind.HARDWARE),
    SYNC_BOOST(0x10L, "sync boost", Kind.BENIGN),
    SW_THERMAL_SLOWDOWN(0x20L, "software thermal slowdown", Kind.THERMAL),
    HW_THERMAL_SLOWDOWN(0x40L, "hardware thermal slowdown", Kind.THERMAL),
    HW_POWER_BRAKE_SLOWDOWN(0x80L, "hardware power brake", Kind.POWER),
    DISPLAY_CLOCK_SETTING(0x100L, "display clock setting", Kind.BENIGN);

    /** What a reason says about the card. */
    public enum Kind {
        /** Clocks held low for a reason that costs nothing (no work, a setting). */
        BENIGN,
        /** Held by heat. */
        THERMAL,
        /** Held by the power limit or a power brake. */
        POWER,
        /** Held by the hardware: heat, an external power brake or a power supply (nvml.h lists all three). */
        HARDWARE
    }

    private final long bit;
    private final String words;
    private final Kind kind;

    ClockEvents(long bit, String words, Kind kind) {
        this.bit = bit;
        this.words = words;
        this.kind = kind;
    }

    public long bit() {
        return bit;
    }

    public String words() {
        return words;
    }

    public Kind kind() {
        return kind;
    }

    /** The reasons set in {@code mask}, in bit order; bits nvml.h does not name are ignored. */
    public static List<ClockEvents> decode(long mask) {
        List<ClockEvents> reasons = new ArrayList<>();
        for (ClockEvents reason : values()) {
            if ((mask & reason.bit) != 0) {
                reasons.add(reason);
            }
        }
        return reasons;
    }

    /** Whether {@code mask} says the card is slowed by heat or power (not merely idle or set so). */
    public static boolean throttling(long mask) {
        return decode(mask).stream().anyMatch(reason -> reason.kind != Kind.BENIGN);
    }

    /** "software thermal slowdown, hardware thermal slowdown"; "none" for 0. */
    public static String describe(long mask) {
        List<ClockEvents> reasons = decode(mask);
        return reasons.isEmpty() ? "none" : String.join(", ", reasons.stream().map(ClockEvents::words).toList());
    }
}
