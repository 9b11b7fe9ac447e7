package io.hamiobserve.ports.spi;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One exporter series mapped onto one figure of the console's.
 *
 * @param kind      the figure it carries
 * @param metric    the series' name, e.g. {@code npu_chip_info_hbm_used_memory}
 * @param matchers  label values a series must carry to count (equality), e.g. {@code type="vram"}; usually none
 * @param cardLabel the label whose value is the card's identifier as HAMi registers it ({@code device_uuid});
 *                  empty when the series names no card (a container figure then joins the container's only card)
 * @param namespaceLabel the label naming the workload's namespace (container figures; empty for card figures).
 *                  Where a scrape does not honour labels Prometheus stores it as {@code exported_<label>};
 *                  the reader takes that form first, so declare the exporter's own name
 * @param podLabel       the label naming the pod (container figures)
 * @param containerLabel the label naming the container (container figures)
 * @param scale     the factor from the exporter's unit to the console's: bytes for memory, percent (0–100) for utilisation
 * @param meaning   what the figure means where that is not what {@code kind} says, shown next to it
 *                  (e.g. "the whole card's utilisation, not the container's"); empty when it means just that
 * @param info      an info series that names the containers, where {@code metric} names only a device
 *                  (joined {@code on} the labels of {@code infoOn}); empty when {@code metric} names them itself
 * @param infoOn    the labels {@code metric} and {@code info} share
 * @param percentOfAllocation a container's memory given as a percent of the memory HAMi allocated
 *                  its share (a virtual function's or sMLU's size): the reader multiplies it by that
 *                  allocation, as the vendor's own console does; {@code scale} is then not applied
 */
public record UsageSeries(Kind kind, String metric, Map<String, String> matchers, String cardLabel,
                          String namespaceLabel, String podLabel, String containerLabel, double scale,
                          String meaning, String info, List<String> infoOn, boolean percentOfAllocation) {

    /** The console's figures an exporter series can carry. */
    public enum Kind {
        /** A card's memory in use, bytes. */
        CARD_MEMORY_USED(false),
        /** A card's utilisation, percent. */
        CARD_UTILISATION(false),
        /** A container's memory in use on a card, bytes. */
        CONTAINER_MEMORY_USED(true),
        /** A container's utilisation of a card, percent of the card unless the meaning says otherwise. */
        CONTAINER_UTILISATION(true);

        private final boolean container;

        Kind(boolean container) {
            this.container = container;
        }

        /** Whether the figure is a container's (it names namespace, pod and container). */
        public boolean container() {
            return container;
        }
    }

    /** Bytes per MiB, the unit several exporters report memory in. */
    public static final double MIB = 1024.0 * 1024;

    public UsageSeries {
        Objects.requireNonNull(kind);
        Objects.requireNonNull(metric);
        matchers = Map.copyOf(matchers);
        Objects.requireNonNull(cardLabel);
        Objects.requireNonNull(namespaceLabel);
        Objects.requireNonNull(podLabel);
        Objects.requireNonNull(containerLabel);
        Objects.requireNonNull(meaning);
        Objects.requireNonNull(info);
        infoOn = List.copyOf(infoOn);
        if (!Double.isFinite(scale) || scale <= 0) {
            throw new IllegalArgumentException(metric + ": scale must be a positive number, not " + scale);
        }
        if (kind.container() && (namespaceLabel.isEmpty() || podLabel.isEmpty() || containerLabel.isEmpty())) {
            throw new IllegalArgumentException(metric + ": a container figure names its namespace, pod and container");
        }
        if (!kind.container() && cardLabel.isEmpty()) {
            throw new IllegalArgumentException(metric + ": a card figure names its card");
        }
        if (info.isEmpty() != infoOn.isEmpty()) {
            throw new IllegalArgumentException(metric + ": an info series is joined on at least one label");
        }
        if (percentOfAllocation && kind != Kind.CONTAINER_MEMORY_USED) {
            throw new IllegalArgumentException(metric + ": only a container's memory is a percent of its allocation");
        }
    }

    /** As the canonical constructor, the figure in its own unit (times {@code scale}). */
    public UsageSeries(Kind kind, String metric, Map<String, String> matchers, String cardLabel, String namespaceLabel,
                       String podLabel, String containerLabel, double scale, String meaning, String info,
                       List<String> infoOn) {
        this(kind, metric, matchers, cardLabel, namespaceLabel, podLabel, containerLabel, scale, meaning, info, infoOn,
                false);
    }

    /** A card's figure: {@code metric} labelled with the card by {@code cardLabel}. */
    public static UsageSeries card(Kind kind, String metric, String cardLabel, double scale, String meaning) {
        return new UsageSeries(kind, metric, Map.of(), cardLabel, "", "", "", scale, meaning, "", List.of());
    }

    /** A container's figure, the series naming the container itself. */
    public static UsageSeries container(Kind kind, String metric, String cardLabel, String namespaceLabel,
                                        String podLabel, String containerLabel, double scale, String meaning) {
        return new UsageSeries(kind, metric, Map.of(), cardLabel, namespaceLabel, podLabel, containerLabel, scale,
                meaning, "", List.of());
    }

    /** The same series, counted only where it carries {@code label="value"}. */
    public UsageSeries where(String label, String value) {
        Map<String, String> more = new java.util.HashMap<>(matchers);
        more.put(label, value);
        return new UsageSeries(kind, metric, more, cardLabel, namespaceLabel, podLabel, containerLabel, scale, meaning,
                info, infoOn, percentOfAllocation);
    }

    /**
     * The same series, its containers named by the info series {@code info} (which carries the
     * namespace, pod and container labels) joined on {@code on}.
     */
    public UsageSeries namedBy(String info, List<String> on) {
        return new UsageSeries(kind, metric, matchers, cardLabel, namespaceLabel, podLabel, containerLabel, scale,
                meaning, info, on, percentOfAllocation);
    }

    /** The same series, a percent of the memory HAMi allocated the container's share. */
    public UsageSeries ofAllocation() {
        return new UsageSeries(kind, metric, matchers, cardLabel, namespaceLabel, podLabel, containerLabel, scale,
                meaning, info, infoOn, true);
    }
}
