package io.hamiobserve.domain.fleet;

import java.util.Objects;

/**
 * Where a card's or a container's use comes from when not from HAMi's own usage series as
 * HAMi-Core accounts it, and what each figure means where that differs from its name: a vendor
 * exporter whose container figure is the whole card's, a percent of a virtual share, or the
 * driver's per-process figures of a whole card without HAMi-Core.
 *
 * @param source             who measured it, for the page ("npu-exporter", "the driver, per process")
 * @param memoryMeaning      what the memory figure means where it is not the container's (card's)
 *                           memory in use; empty when it is
 * @param utilisationMeaning what the utilisation figure means where it is not a percent of the
 *                           card used by the container (card); empty when it is
 */
public record UsageOrigin(String source, String memoryMeaning, String utilisationMeaning) {
    /** A whole card without HAMi-Core, whose use the node role took from the driver's process list. */
    public static final UsageOrigin DRIVER_PROCESSES = new UsageOrigin(
            "a whole card without HAMi-Core: use measured per process by the driver", "", "");

    public UsageOrigin {
        Objects.requireNonNull(source);
        Objects.requireNonNull(memoryMeaning);
        Objects.requireNonNull(utilisationMeaning);
    }

    /** Whether the memory figure is the container's own use (a gap and a peak may be taken from it). */
    public boolean memoryIsOwn() {
        return memoryMeaning.isEmpty();
    }

    /** Whether the utilisation figure is the container's own percent of the card. */
    public boolean utilisationIsOwn() {
        return utilisationMeaning.isEmpty();
    }

    /** One line for the page: the source, and each meaning that differs. */
    public String describe() {
        StringBuilder text = new StringBuilder(source);
        if (!memoryMeaning.isEmpty() && memoryMeaning.equals(utilisationMeaning)) {
            text.append(" — ").append(memoryMeaning);
        } else {
            if (!memoryMeaning.isEmpty()) {
                text.append(" — memory: ").append(memoryMeaning);
            }
            if (!utilisationMeaning.isEmpty()) {
                text.append(" — compute: ").append(utilisationMeaning);
            }
        }
        return text.toString();
    }
}
