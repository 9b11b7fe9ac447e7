package io.hamiobserve.ports.spi;

import io.hamiobserve.domain.fleet.CardResources;
import io.hamiobserve.domain.fleet.UsageOrigin;

import java.util.List;
import java.util.Optional;

/**
 * How a device vendor's own usage exporter maps onto the console's notion of a card's use and a
 * container's use: which series carry which figure, which labels name the card and the container,
 * the factor to the console's units, and what a figure means where it is not what its name says
 * (a container figure that is the whole card's, a percent of a virtual share).
 *
 * <p>A vendor module declares its mapping with {@code provides io.hamiobserve.ports.spi.UsageExporterMapping
 * with ...}; the Prometheus adapter {@code uses} this service, names no vendor, and reads every
 * declared mapping with a fixed number of queries (one per {@link UsageSeries.Kind}, whatever the
 * number of mappings' series or cards). Adding a vendor's exporter is writing one module.
 *
 * <p>HAMi-named usage that a vendor's device plugin serves ({@code hami_vgpu_memory_used_bytes}, ...)
 * needs no mapping: it is read as NVIDIA's is.
 */
public interface UsageExporterMapping {
    /**
     * A short, stable, label-safe name of the mapping ({@code [a-z0-9-]+}), e.g. {@code ascend-npu-exporter}:
     * it tells the mappings' series apart in a query's answer.
     */
    String name();

    /** The exporter's name, said next to a figure it supplied, e.g. {@code npu-exporter}. */
    String exporter();

    /** The series this exporter serves, each mapped onto one figure. */
    List<UsageSeries> series();

    /**
     * The resources a container requests for a card of {@code model} (the card's {@code device_type}),
     * when the card is this vendor's: the names right-sizing recommends values for.
     */
    default Optional<CardResources> resources(String model) {
        return Optional.empty();
    }

    /**
     * Where a share of a card of {@code model} that holds none of the card's compute (HAMi
     * allocated it 0 cores) takes its HAMi-named usage from this vendor's device plugin, and what
     * that usage means when it is not the container's own: Ascend's template (soft-slice) vNPUs
     * hold no cores, and the plugin's utilisation there is the chip's. Empty (the default, and for
     * another vendor's card): the container's own, as NVIDIA's HAMi-Core reports it.
     */
    default Optional<UsageOrigin> corelessShare(String model) {
        return Optional.empty();
    }
}
