package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.adapters.prometheus.PrometheusApi.Sample;
import io.hamiobserve.adapters.prometheus.PromQl.Template;
import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Physical;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The queries that read NVIDIA's dcgm-exporter, one per figure over every card, and how their
 * answers become each card's {@link Physical} counters.
 *
 * <p>Every query reduces to one series per card UUID ({@code max by (UUID)}): dcgm-exporter's
 * Kubernetes mapping repeats a card's series once per pod using it (with {@code pod},
 * {@code namespace}, {@code container}, renamed {@code exported_*} by a scrape that does not honour
 * labels), and none of those labels is kept. A MIG card reports per GPU instance
 * ({@code GPU_I_ID}): framebuffer is summed over its instances and engine activity averaged.
 */
final class DcgmQueries {
    private DcgmQueries() {
    }

    /** Framebuffer used per card in MiB (DCGM's unit): per GPU instance first, so a pod label does not add. */
    private static final String FRAMEBUFFER_MIB = "sum by (UUID) (max by (UUID, GPU_I_ID) (DCGM_FI_DEV_FB_USED{${where}}))";
    private static final String HOUR = PromQl.duration(Physical.ENERGY_WINDOW);
    private static final String ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{${where}}[" + HOUR + "]";

    static final Template GPU_TEMPERATURE = new Template("dcgm_gpu_temperature",
            "max by (UUID, Hostname) (DCGM_FI_DEV_GPU_TEMP{${where}})");
    static final Template MEMORY_TEMPERATURE = new Template("dcgm_memory_temperature",
            "max by (UUID) (DCGM_FI_DEV_MEMORY_TEMP{${where}})");
    static final Template POWER = new Template("dcgm_power",
            "max by (UUID) (DCGM_FI_DEV_POWER_USAGE{${where}})");
    /**
     * Joules over the last hour from the energy counter (mJ since the driver loaded): its highest
     * minus its lowest value in the hour, which every engine computes alike (no {@code increase()}
     * extrapolation, which Prometheus and VictoriaMetrics do differently). Where the counter
     * restarted in the hour (a driver reload), the hour's mean power times an hour instead.
     */
    static final Template ENERGY_HOUR = new Template("dcgm_energy_last_hour",
            "max by (UUID) ((max_over_time(" + ENERGY + ") - min_over_time(" + ENERGY + ")) unless resets(" + ENERGY
                    + ") > 0) / 1000 or on (UUID) max by (UUID) (avg_over_time(DCGM_FI_DEV_POWER_USAGE{${where}}[" + HOUR
                    + "])) * " + Physical.ENERGY_WINDOW.toSeconds());
    static final Template SM_CLOCK = new Template("dcgm_sm_clock",
            "max by (UUID) (DCGM_FI_DEV_SM_CLOCK{${where}})");
    /** GPU_UTIL where reported; in MIG mode DCGM reports none, and the graphics engine's activity stands in. */
    static final Template UTILISATION = new Template("dcgm_utilisation",
            "label_replace(max by (UUID) (DCGM_FI_DEV_GPU_UTIL{${where}}), \"field\", \"DCGM_FI_DEV_GPU_UTIL\", \"\", \"\")"
                    + " or on (UUID) label_replace(100 * avg by (UUID) (max by (UUID, GPU_I_ID) "
                    + "(DCGM_FI_PROF_GR_ENGINE_ACTIVE{${where}})), \"field\", \"DCGM_FI_PROF_GR_ENGINE_ACTIVE\", \"\", \"\")");
    static final Template FRAMEBUFFER_USED = new Template("dcgm_framebuffer_used_mib", FRAMEBUFFER_MIB);
    static final Template XID = new Template("dcgm_xid",
            "max by (UUID) (DCGM_FI_DEV_XID_ERRORS{${where}})");
    /** Newer DCGM's name first, the older one where only it is served. */
    static final Template CLOCK_EVENTS = new Template("dcgm_clock_events",
            "max by (UUID) (DCGM_FI_DEV_CLOCKS_EVENT_REASONS{${where}})"
                    + " or on (UUID) max by (UUID) (DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{${where}})");
    static final Template ECC = new Template("dcgm_ecc_uncorrectable",
            "max by (UUID) (DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{${where}})");
    /**
     * The least absolute difference between HAMi's host memory used and DCGM's framebuffer used
     * over the window, per card: above the tolerance, they disagreed at every minute of it.
     */
    static final Template DISAGREEMENT = new Template("dcgm_hami_memory_disagreement",
            "min_over_time((abs(max by (device_uuid) (hami_host_gpu_memory_used_bytes{${hami}}) - on (device_uuid) "
                    + PromQl.relabelled("1048576 * " + FRAMEBUFFER_MIB, "device_uuid", "UUID") + "))["
                    + PromQl.duration(Physical.DISAGREEMENT_WINDOW) + ":1m])");

    /** Each figure's measure and template, in the order they are sent. */
    static final Map<Measure, Template> ALL = all();

    private static Map<Measure, Template> all() {
        Map<Measure, Template> all = new LinkedHashMap<>();
        all.put(Measure.DCGM_GPU_TEMPERATURE, GPU_TEMPERATURE);
        all.put(Measure.DCGM_MEMORY_TEMPERATURE, MEMORY_TEMPERATURE);
        all.put(Measure.DCGM_POWER, POWER);
        all.put(Measure.DCGM_ENERGY, ENERGY_HOUR);
        all.put(Measure.DCGM_SM_CLOCK, SM_CLOCK);
        all.put(Measure.DCGM_UTILISATION, UTILISATION);
        all.put(Measure.DCGM_FRAMEBUFFER_USED, FRAMEBUFFER_USED);
        all.put(Measure.DCGM_XID, XID);
        all.put(Measure.DCGM_CLOCK_EVENTS, CLOCK_EVENTS);
        all.put(Measure.DCGM_ECC, ECC);
        all.put(Measure.DCGM_DISAGREEMENT, DISAGREEMENT);
        return java.util.Collections.unmodifiableMap(all);
    }

    /**
     * Each card's counters from the answers: every UUID that any figure names, each figure missing
     * ({@link Absence#NOT_SUPPORTED}: DCGM does not report that field for the card, or the exporter
     * is not configured to) where its query has no series for the card.
     */
    static List<Physical> physical(Map<Measure, List<Sample>> answers) {
        Map<Measure, Map<String, Sample>> byCard = new HashMap<>();
        Set<String> uuids = new LinkedHashSet<>();
        answers.forEach((measure, samples) -> {
            if (measure == Measure.DCGM_DISAGREEMENT) {
                return;
            }
            Map<String, Sample> cards = new HashMap<>();
            for (Sample sample : samples) {
                String uuid = sample.label("UUID");
                if (!uuid.isEmpty() && !Double.isNaN(sample.value())) {
                    cards.putIfAbsent(uuid, sample);
                    uuids.add(uuid);
                }
            }
            byCard.put(measure, cards);
        });
        Map<String, Double> disagreement = new HashMap<>();
        answers.getOrDefault(Measure.DCGM_DISAGREEMENT, List.of())
                .forEach(sample -> disagreement.putIfAbsent(sample.label("device_uuid"), sample.value()));
        List<Physical> physical = new ArrayList<>();
        for (String uuid : uuids) {
            Sample identity = byCard.getOrDefault(Measure.DCGM_GPU_TEMPERATURE, Map.of()).get(uuid);
            Sample utilisation = byCard.getOrDefault(Measure.DCGM_UTILISATION, Map.of()).get(uuid);
            physical.add(new Physical(uuid, identity == null ? "" : identity.label("Hostname"),
                    figure(byCard, Measure.DCGM_GPU_TEMPERATURE, uuid, 1),
                    figure(byCard, Measure.DCGM_MEMORY_TEMPERATURE, uuid, 1),
                    figure(byCard, Measure.DCGM_POWER, uuid, 1),
                    figure(byCard, Measure.DCGM_ENERGY, uuid, 1),
                    figure(byCard, Measure.DCGM_SM_CLOCK, uuid, 1),
                    figure(byCard, Measure.DCGM_UTILISATION, uuid, 1),
                    utilisation == null ? "" : utilisation.label("field"),
                    figure(byCard, Measure.DCGM_FRAMEBUFFER_USED, uuid, 1024 * 1024),
                    figure(byCard, Measure.DCGM_XID, uuid, 1),
                    figure(byCard, Measure.DCGM_CLOCK_EVENTS, uuid, 1),
                    figure(byCard, Measure.DCGM_ECC, uuid, 1),
                    known(disagreement.get(uuid))));
        }
        return physical;
    }

    private static Figure figure(Map<Measure, Map<String, Sample>> byCard, Measure measure, String uuid,
                                 double scale) {
        Sample sample = byCard.getOrDefault(measure, Map.of()).get(uuid);
        return sample == null || Double.isInfinite(sample.value()) ? Figure.missing(Absence.NOT_SUPPORTED)
                : Figure.of(sample.value() * scale);
    }

    private static Figure known(Double value) {
        return value == null || value.isNaN() || value.isInfinite() ? Figure.missing(Absence.NOT_REPORTED)
                : Figure.of(value);
    }
}
