package io.hamiobserve.vendors.hygon;

import io.hamiobserve.domain.fleet.CardResources;
import io.hamiobserve.ports.spi.UsageExporterMapping;
import io.hamiobserve.ports.spi.UsageSeries;
import io.hamiobserve.ports.spi.UsageSeries.Kind;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Hygon's exporters: {@code dcu-exporter} per card ({@code dcu_usedmemory_bytes}, bytes;
 * {@code dcu_utilizationrate}, %; by {@code device_id}) and {@code hcu-exporter} per container
 * ({@code vhcu_usedmemory_bytes}, {@code vhcu_utilizationrate}; by {@code hcu_pod_namespace},
 * {@code hcu_pod_name}, {@code container}, naming no card: joined to the container's only card).
 * A vHCU's busy percent is relative to the vHCU (the container's share), not to the card: said
 * next to it. dcu-exporter's own vDCU series ({@code vdcu_usedmemory_bytes}, bytes;
 * {@code vdcu_utilizationrate}, % of the vDCU) name the card by {@code device_id} and the workload by
 * {@code dcu_pod_namespace}, {@code dcu_pod_name}, {@code container}, which it reads from the kubelet's
 * pod-resources socket (checked against dcu-exporter's {@code main.go}, module {@code dcu-exporter-v2}):
 * names, not a pod UID, so no join is needed.
 */
public final class DcuExporterMapping implements UsageExporterMapping {
    /** One note for both virtual shares: a mapping's figure of one kind carries one meaning. */
    static final String SHARE_RELATIVE =
            "percent of the container's vHCU or vDCU (its share of the card), not of the card";

    @Override
    public String name() {
        return "hygon-dcu-exporter";
    }

    @Override
    public String exporter() {
        return "dcu-exporter / hcu-exporter";
    }

    @Override
    public List<UsageSeries> series() {
        return List.of(
                UsageSeries.card(Kind.CARD_MEMORY_USED, "dcu_usedmemory_bytes", "device_id", 1, ""),
                UsageSeries.card(Kind.CARD_UTILISATION, "dcu_utilizationrate", "device_id", 1, ""),
                UsageSeries.container(Kind.CONTAINER_MEMORY_USED, "vhcu_usedmemory_bytes", "", "hcu_pod_namespace",
                        "hcu_pod_name", "container", 1, ""),
                UsageSeries.container(Kind.CONTAINER_UTILISATION, "vhcu_utilizationrate", "", "hcu_pod_namespace",
                        "hcu_pod_name", "container", 1, SHARE_RELATIVE),
                UsageSeries.container(Kind.CONTAINER_MEMORY_USED, "vdcu_usedmemory_bytes", "device_id",
                        "dcu_pod_namespace", "dcu_pod_name", "container", 1, ""),
                UsageSeries.container(Kind.CONTAINER_UTILISATION, "vdcu_utilizationrate", "device_id",
                        "dcu_pod_namespace", "dcu_pod_name", "container", 1, SHARE_RELATIVE));
    }

    /**
     * HAMi's DCU resources (MiB, percent) for a card whose type names a DCU: the type is the
     * driver's name for the card, so the only sign it is Hygon's is the name.
     */
    @Override
    public Optional<CardResources> resources(String model) {
        return model.toUpperCase(Locale.ROOT).contains("DCU")
                ? Optional.of(new CardResources("hygon.com/dcunum", "hygon.com/dcumem", 1, "hygon.com/dcucores"))
                : Optional.empty();
    }
}
