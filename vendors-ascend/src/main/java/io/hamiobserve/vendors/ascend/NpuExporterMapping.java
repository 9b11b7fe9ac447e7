package io.hamiobserve.vendors.ascend;

import io.hamiobserve.domain.fleet.CardResources;
import io.hamiobserve.domain.fleet.UsageOrigin;
import io.hamiobserve.ports.spi.UsageExporterMapping;
import io.hamiobserve.ports.spi.UsageSeries;
import io.hamiobserve.ports.spi.UsageSeries.Kind;

import java.util.List;
import java.util.Optional;

/**
 * Ascend's {@code npu-exporter} (MindCluster): the chip's HBM (MB) and AICore utilisation (%) per
 * chip, named by {@code vdie_id} (the die ID, which HAMi's Ascend plugin registers as the card's
 * UUID); and the same figures per container ({@code namespace}, {@code pod_name},
 * {@code container_name}). npu-exporter does not split a shared chip ("vnpu not support"): a
 * container's figures are its chip's, said next to them.
 */
public final class NpuExporterMapping implements UsageExporterMapping {
    static final String WHOLE_CARD = "the whole card's figure, not the container's: npu-exporter does not split a shared card";
    /**
     * A share with no cores of its own: in template (soft-slice) mode HAMi allocates an Ascend vNPU
     * 0 cores (templates refuse a core request, docs/vendors.md), and the device plugin's
     * HAMi-named utilisation there is the chip's.
     */
    static final UsageOrigin CORELESS = new UsageOrigin("Ascend device plugin", "",
            "no cores of its own (a template vNPU): the chip's utilisation, not the container's");
    private static final String CARD = "vdie_id";

    @Override
    public String name() {
        return "ascend-npu-exporter";
    }

    @Override
    public String exporter() {
        return "npu-exporter";
    }

    @Override
    public List<UsageSeries> series() {
        return List.of(
                UsageSeries.card(Kind.CARD_MEMORY_USED, "npu_chip_info_hbm_used_memory", CARD, UsageSeries.MIB, ""),
                UsageSeries.card(Kind.CARD_UTILISATION, "npu_chip_info_utilization", CARD, 1, ""),
                UsageSeries.container(Kind.CONTAINER_MEMORY_USED, "container_npu_used_memory", CARD, "namespace",
                        "pod_name", "container_name", UsageSeries.MIB, WHOLE_CARD),
                UsageSeries.container(Kind.CONTAINER_UTILISATION, "container_npu_utilization", CARD, "namespace",
                        "pod_name", "container_name", 1, WHOLE_CARD));
    }

    /**
     * HAMi's names for the card type (its CommonWord, the card's {@code device_type}): count and
     * memory in MB. No compute: {@code -core} counts AI cores in template mode, not a percent.
     */
    @Override
    public Optional<UsageOrigin> corelessShare(String model) {
        return AscendProvider.COMMON_WORDS.contains(model) ? Optional.of(CORELESS) : Optional.empty();
    }

    @Override
    public Optional<CardResources> resources(String model) {
        return AscendProvider.COMMON_WORDS.contains(model)
                ? Optional.of(new CardResources("huawei.com/" + model, "huawei.com/" + model + "-memory", 1, ""))
                : Optional.empty();
    }
}
