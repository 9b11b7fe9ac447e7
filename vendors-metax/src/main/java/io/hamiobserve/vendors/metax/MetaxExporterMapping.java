package io.hamiobserve.vendors.metax;

import io.hamiobserve.domain.fleet.CardResources;
import io.hamiobserve.ports.spi.UsageExporterMapping;
import io.hamiobserve.ports.spi.UsageSeries;
import io.hamiobserve.ports.spi.UsageSeries.Kind;

import java.util.List;
import java.util.Optional;

/**
 * MetaX's exporter: per card ({@code uuid}, the card's UUID as HAMi registers it) {@code mx_gpu_usage}
 * (%) and {@code mx_memory_used{type="vram"}} (KiB); per sGPU share {@code mx_sgpu_usage} (%, of the
 * share's compute) and {@code mx_sgpu_used_memory} (KiB), named by the workload's
 * {@code namespace}, {@code pod}, {@code container} (stored {@code exported_*} by a scrape that does
 * not honour labels, as MetaX's deployment does). The exporter is not public; the labels are those
 * HAMi-WebUI queries ({@code server/internal/exporter/exporter.go}): the card series by {@code uuid},
 * the sGPU series by {@code Hostname} and {@code deviceId}, the card's index on its node, which is no
 * UUID, so an sGPU figure is joined to its container's only card. Memory is in KiB: HAMi-WebUI divides
 * {@code mx_memory_used} and {@code mx_memory_total} by 1024 for MiB and multiplies
 * {@code mx_sgpu_used_memory} by 1024 for bytes ({@code server/internal/exporter/exporter.go}).
 */
public final class MetaxExporterMapping implements UsageExporterMapping {
    static final String SGPU_RELATIVE = "percent of the container's sGPU compute share, not of the card";
    private static final String CARD = "uuid";
    private static final double KIB = 1024;

    @Override
    public String name() {
        return "metax-exporter";
    }

    @Override
    public String exporter() {
        return "MetaX exporter";
    }

    @Override
    public List<UsageSeries> series() {
        return List.of(
                UsageSeries.card(Kind.CARD_MEMORY_USED, "mx_memory_used", CARD, KIB, "").where("type", "vram"),
                UsageSeries.card(Kind.CARD_UTILISATION, "mx_gpu_usage", CARD, 1, ""),
                UsageSeries.container(Kind.CONTAINER_MEMORY_USED, "mx_sgpu_used_memory", "", "namespace", "pod",
                        "container", KIB, ""),
                UsageSeries.container(Kind.CONTAINER_UTILISATION, "mx_sgpu_usage", "", "namespace", "pod",
                        "container", 1, SGPU_RELATIVE));
    }

    /** HAMi's sGPU resources (MiB, percent) for an sGPU card; whole cards are requested whole. */
    @Override
    public Optional<CardResources> resources(String model) {
        return model.equals(SgpuDevices.TYPE) ? Optional.of(new CardResources("metax-tech.com/sgpu",
                "metax-tech.com/vmemory", 1, "metax-tech.com/vcore")) : Optional.empty();
    }
}
