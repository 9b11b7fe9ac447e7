package io.hamiobserve.domain.fleet;

/**
 * A figure that more than one source reports, as shown: one value, and the source it came from.
 * Where DCGM's exporter reports the card, its figure is shown; else the node role's (NVML).
 */
public record Sourced(Figure figure, Source source) {

    /** Where a card's physical figure comes from. */
    public enum Source {
        DCGM("DCGM exporter"),
        NVML("hami-observe node (NVML)"),
        NONE("no source");

        private final String words;

        Source(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    /** DCGM's figure when known, else the node role's, else missing with the node role's reason. */
    public static Sourced prefer(Figure dcgm, Figure nvml) {
        if (dcgm.isKnown()) {
            return new Sourced(dcgm, Source.DCGM);
        }
        return new Sourced(nvml, nvml.isKnown() ? Source.NVML : Source.NONE);
    }
}
