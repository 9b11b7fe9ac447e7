package io.hamiobserve.vendors.cambricon;

import io.hamiobserve.domain.fleet.CardResources;
import io.hamiobserve.ports.spi.UsageExporterMapping;
import io.hamiobserve.ports.spi.UsageSeries;
import io.hamiobserve.ports.spi.UsageSeries.Kind;

import java.util.List;
import java.util.Optional;

/**
 * Cambricon's {@code mlu-exporter} (its {@code examples/metrics.yaml} from 1.6.0 to 2.0.22, default prefix {@code mlu_}):
 * per card ({@code uuid}) the physical memory used (bytes) and the utilisation (%, per virtual
 * function {@code vf} where the card is split); containers are named by the info series
 * {@code mlu_container} ({@code namespace}, {@code pod}, {@code container}, {@code uuid}, {@code vf}),
 * joined to the utilisation on {@code uuid} and {@code vf} as Cambricon's own dashboards join them.
 * A container's memory is given only as a percent of its virtual function ({@code mlu_memory_utilization}
 * per {@code vf}): the reader multiplies it by the memory HAMi allocated the share (the sMLU's size), as
 * HAMi-WebUI does ({@code server/internal/exporter/exporter.go}: percent / 100 × the container's
 * allocated memory).
 */
public final class MluExporterMapping implements UsageExporterMapping {
    static final String PER_VF = "the utilisation of the card's virtual function the container holds (sMLU), "
            + "or of the whole card where it is not split";

    @Override
    public String name() {
        return "cambricon-mlu-exporter";
    }

    @Override
    public String exporter() {
        return "mlu-exporter";
    }

    @Override
    public List<UsageSeries> series() {
        return List.of(
                // mlu_memory_used since mlu-exporter 1.6.0 (1.5's was mlu_physical_memory_used).
                UsageSeries.card(Kind.CARD_MEMORY_USED, "mlu_memory_used", "uuid", 1, ""),
                UsageSeries.card(Kind.CARD_UTILISATION, "mlu_utilization", "uuid", 1, ""),
                UsageSeries.container(Kind.CONTAINER_UTILISATION, "mlu_utilization", "uuid", "namespace", "pod",
                        "container", 1, PER_VF).namedBy("mlu_container", List.of("uuid", "vf")),
                UsageSeries.container(Kind.CONTAINER_MEMORY_USED, "mlu_memory_utilization", "uuid", "namespace",
                        "pod", "container", 1, "").namedBy("mlu_container", List.of("uuid", "vf")).ofAllocation());
    }

    /** HAMi's sMLU resources: memory in units of 256 MiB, compute in percent of a card. */
    @Override
    public Optional<CardResources> resources(String model) {
        return model.equals("MLU") ? Optional.of(new CardResources("cambricon.com/vmlu", CambriconProvider.VMEMORY,
                CambriconProvider.MEMORY_FACTOR, CambriconProvider.VCORE)) : Optional.empty();
    }
}
