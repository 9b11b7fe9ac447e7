package io.hamiobserve.domain;

import java.util.Locale;
import java.util.Optional;

/** How a registered card is shared, as the node's register annotation states it. */
public enum CardMode {
    /** Shared by HAMi-Core's CUDA interception: memory and compute slices of one card. */
    HAMI_CORE("hami-core"),
    /** Cut into hardware MIG instances. */
    MIG("mig"),
    /** Shared through NVIDIA MPS. */
    MPS("mps");

    private final String label;

    CardMode(String label) {
        this.label = label;
    }

    /** The spelling HAMi uses in annotations. */
    public String label() {
        return label;
    }

    /** Reads HAMi's spelling; an empty string means the default {@link #HAMI_CORE}. */
    public static Optional<CardMode> fromLabel(String label) {
        if (label == null || label.isEmpty()) {
            return Optional.of(HAMI_CORE);
        }
        String lower = label.toLowerCase(Locale.ROOT);
        for (CardMode mode : values()) {
            if (mode.label.equals(lower)) {
                return Optional.of(mode);
            }
        }
        return Optional.empty();
    }
}
