package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.Card;
import io.hamiobserve.domain.fleet.ClockEvents;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Physical;
import io.hamiobserve.domain.fleet.Sourced;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import io.hamiobserve.domain.fleet.TrendSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DCGM's counters joined to the fleet by card UUID, against a real Prometheus holding two hours of
 * dcgm-exporter series in each of its label forms: the default form (one series per card), the
 * Kubernetes-mapping form (one per pod using the card) with the same series once more as a scrape
 * that does not honour labels stores it ({@code exported_pod}, ...), a MIG card reporting per GPU
 * instance, and a card no DCGM exporter reports.
 */
class PrometheusDcgmTest {
    private static final double MIB = 1024 * 1024;
    private static final double GIB = 1024 * MIB;
    private static final String DEFAULT_FORM = "GPU-aaaaaaaa-0000-4000-a000-000000000001";
    private static final String KUBERNETES_FORM = "GPU-bbbbbbbb-0000-4000-a000-000000000002";
    private static final String NO_DCGM = "GPU-cccccccc-0000-4000-a000-000000000003";

    private static long end;
    private static LocalPrometheus prometheus;
    private static PrometheusFleetHistory history;

    @BeforeAll
    static void startPrometheusWithHistory() throws Exception {
        end = (Instant.now().getEpochSecond() / 60) * 60 - 60;
        long start = end - 2 * 3600;
        prometheus = History.loaded("hami-observe-dcgm", start, end, 60, series -> {
            for (String[] card : new String[][] {{"node-a", DEFAULT_FORM, "0"}, {"node-a", KUBERNETES_FORM, "1"},
                    {"node-b", NO_DCGM, "0"}}) {
                Map<String, String> registered = Map.of("node", card[0], "device_uuid", card[1], "device_index",
                        card[2], "device_type", "NVIDIA-A100");
                series.series("hami_gpu_memory_limit_bytes", registered, t -> 40 * GIB)
                        .series("hami_gpu_memory_allocated_bytes", registered, t -> 10 * GIB)
                        .series("hami_host_gpu_memory_used_bytes", Map.of("node", card[0], "device_uuid", card[1]),
                                t -> card[1].equals(KUBERNETES_FORM) ? 6 * GIB : 5.5 * GIB)
                        .series("hami_observe_host_gpu_temperature_celsius", Map.of("node", card[0], "device_uuid",
                                card[1]), t -> 45)
                        .series("hami_observe_host_gpu_power_watts", Map.of("node", card[0], "device_uuid", card[1]),
                                t -> 150);
            }
            // The default form: one series per card; the older name of the clock-event field.
            Map<String, String> a = dcgm(DEFAULT_FORM, "0", Map.of());
            series.series("DCGM_FI_DEV_GPU_TEMP", a, t -> 71)
                    .series("DCGM_FI_DEV_MEMORY_TEMP", a, t -> 80)
                    .series("DCGM_FI_DEV_POWER_USAGE", a, t -> 300)
                    // 300 W in mJ since the driver loaded a day ago.
                    .series("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", a, t -> (t - start + 86_400) * 300_000.0)
                    .series("DCGM_FI_DEV_SM_CLOCK", a, t -> 1200)
                    .series("DCGM_FI_DEV_GPU_UTIL", a, t -> 40)
                    .series("DCGM_FI_DEV_FB_USED", a, t -> 5632)
                    .series("DCGM_FI_DEV_XID_ERRORS", a, t -> 0)
                    .series("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", a, t -> 0x20 | 0x40)
                    .series("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", a, t -> 2);
            // The Kubernetes-mapping form: the MIG card's series once per pod on each GPU instance, and
            // once more with the pod labels renamed exported_*.
            for (Map<String, String> pod : List.of(Map.of("pod", "p1", "namespace", "team", "container", "c"),
                    Map.of("pod", "p2", "namespace", "team", "container", "c"),
                    Map.of("exported_pod", "p1", "exported_namespace", "team", "exported_container", "c",
                            "pod", "dcgm-exporter-x1", "namespace", "gpu-operator"))) {
                Map<String, String> b = dcgm(KUBERNETES_FORM, "1", pod);
                series.series("DCGM_FI_DEV_GPU_TEMP", b, t -> 64)
                        .series("DCGM_FI_DEV_POWER_USAGE", b, t -> 200)
                        // Restarted 30 minutes ago (a driver reload): the hour's energy comes from power.
                        .series("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", b, t -> (t < end - 1800 ? 9e9 : 0)
                                + (t % 86_400) * 200_000.0)
                        .series("DCGM_FI_DEV_XID_ERRORS", b, t -> 79)
                        .series("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", b, t -> 0x1 | 0x4);
                for (String instance : new String[] {"1", "2"}) {
                    Map<String, String> gi = with(b, "GPU_I_ID", instance);
                    series.series("DCGM_FI_PROF_GR_ENGINE_ACTIVE", gi, t -> instance.equals("1") ? 0.5 : 0.3)
                            .series("DCGM_FI_DEV_FB_USED", gi, t -> instance.equals("1") ? 1024 : 2048);
                }
            }
        });
        history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    private static Map<String, String> dcgm(String uuid, String gpu, Map<String, String> more) {
        Map<String, String> labels = new HashMap<>(Map.of("UUID", uuid, "gpu", gpu, "device", "nvidia" + gpu,
                "modelName", "NVIDIA A100-SXM4-40GB", "Hostname", "node-a", "DCGM_FI_DRIVER_VERSION", "550.127.05"));
        labels.putAll(more);
        return labels;
    }

    private static Map<String, String> with(Map<String, String> labels, String key, String value) {
        Map<String, String> copy = new HashMap<>(labels);
        copy.put(key, value);
        return copy;
    }

    private static FleetState state(FleetScope scope) throws Exception {
        return FleetState.of(history.readings(Instant.ofEpochSecond(end), scope));
    }

    @Test
    void theDefaultFormJoinsByUuidAndDcgmsFiguresAreShownWithTheirSource() throws Exception {
        Card card = state(FleetScope.EVERYTHING).card(DEFAULT_FORM).orElseThrow();
        Physical physical = card.physical().orElseThrow();
        assertEquals("node-a", physical.hostname());
        assertEquals(71, physical.gpuTemperature().orElseThrow());
        assertEquals(80, physical.memoryTemperature().orElseThrow());
        assertEquals(1200, physical.smClock().orElseThrow());
        assertEquals(40, physical.utilisation().orElseThrow());
        assertEquals("DCGM_FI_DEV_GPU_UTIL", physical.utilisationField());
        assertEquals(5632 * MIB, physical.framebufferUsed().orElseThrow(), "MiB become bytes");
        assertEquals(2, physical.eccUncorrectable().orElseThrow());
        assertFalse(physical.xidError());
        // The older field name, decoded: both thermal slowdowns.
        assertEquals(List.of(ClockEvents.SW_THERMAL_SLOWDOWN, ClockEvents.HW_THERMAL_SLOWDOWN),
                ClockEvents.decode((long) physical.clockEvents().orElseThrow()));
        assertTrue(physical.throttling());
        // 300 W for the hour: max − min of the counter over the hour, in joules.
        assertEquals(300 * 3600, physical.energy().orElseThrow(), 300 * 60 + 1, "one scrape step of slack");
        // One figure shown, its source named: DCGM's, not the node role's 45 °C.
        assertEquals(new Sourced(io.hamiobserve.domain.fleet.Figure.of(71), Sourced.Source.DCGM),
                card.temperatureShown());
        assertEquals(Sourced.Source.DCGM, card.powerShown().source());
        assertEquals(300, card.powerShown().figure().orElseThrow());
        // 5.5 GiB both sides: no disagreement.
        assertTrue(physical.sustainedDisagreement().isKnown());
        assertFalse(physical.sourcesDisagree());
    }

    @Test
    void theKubernetesFormAndItsExportedRenamesAreOneCardAndMigInstancesAddUp() throws Exception {
        Physical physical = state(FleetScope.EVERYTHING).card(KUBERNETES_FORM).orElseThrow().physical().orElseThrow();
        // Three series per field (two pods, one renamed) are one card: not summed, not tripled.
        assertEquals(64, physical.gpuTemperature().orElseThrow());
        assertEquals(200, physical.power().orElseThrow());
        assertEquals(79, physical.xid().orElseThrow());
        assertTrue(physical.xidError());
        // MIG: no GPU_UTIL; the instances' mean graphics-engine activity, as a percent.
        assertEquals(40, physical.utilisation().orElseThrow(), 1e-9);
        assertEquals("DCGM_FI_PROF_GR_ENGINE_ACTIVE", physical.utilisationField());
        // Framebuffer: the instances summed (1 + 2 GiB), each counted once whatever its pods.
        assertEquals(3 * GIB, physical.framebufferUsed().orElseThrow());
        // Idle and a software power cap: the cap is a throttle, idleness is not.
        assertTrue(physical.throttling());
        assertEquals("idle, software power cap", physical.clockEventWords().orElseThrow());
        // The counter restarted in the hour: the mean power times an hour instead of max − min.
        assertEquals(200 * 3600, physical.energy().orElseThrow(), 1e-6);
        // Not reported for this card: missing, never 0.
        assertFalse(physical.memoryTemperature().isKnown());
        assertFalse(physical.smClock().isKnown());
        // HAMi says 6 GiB, DCGM 3 GiB, for the whole window: the two sources disagree.
        assertTrue(physical.sourcesDisagree());
        assertEquals(3 * GIB, physical.sustainedDisagreement().orElseThrow(), 1);
    }

    @Test
    void aCardNoDcgmExporterReportsShowsTheNodeRolesFigures() throws Exception {
        FleetState state = state(FleetScope.EVERYTHING);
        Card card = state.card(NO_DCGM).orElseThrow();
        assertTrue(card.physical().isEmpty());
        assertEquals(Sourced.Source.NVML, card.temperatureShown().source());
        assertEquals(45, card.temperatureShown().figure().orElseThrow());
        assertEquals(150, card.powerShown().figure().orElseThrow());
        assertTrue(state.dcgmScraped(), "other cards have DCGM's counters");
    }

    @Test
    void oneCardsPageReadsThatCardsSeriesOnly() throws Exception {
        var readings = history.readings(Instant.ofEpochSecond(end), new FleetScope.OnCard(DEFAULT_FORM));
        assertEquals(List.of(DEFAULT_FORM), readings.physical().stream().map(Physical::uuid).toList());
        assertTrue(readings.provenance().get(Measure.DCGM_GPU_TEMPERATURE).expression()
                .contains("UUID=\"" + DEFAULT_FORM + "\""), "the card's UUID is a matcher, escaped");
    }

    @Test
    void aCardsTemperatureTrendIsDcgmsWhereItReportsTheCardElseTheNodeRoles() throws Exception {
        for (String[] expected : new String[][] {{DEFAULT_FORM, "71"}, {NO_DCGM, "45"}}) {
            TrendSet trends = history.trends(new TrendScope.OneCard(expected[0]), Instant.ofEpochSecond(end),
                    Duration.ofHours(1), Duration.ofMinutes(5));
            Trend temperature = trends.of(Measure.TREND_TEMPERATURE).getFirst();
            double last = temperature.values()[temperature.values().length - 1];
            assertEquals(Double.parseDouble(expected[1]), last, expected[0]);
        }
    }
}
