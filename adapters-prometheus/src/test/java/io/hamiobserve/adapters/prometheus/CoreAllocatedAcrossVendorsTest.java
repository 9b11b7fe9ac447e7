package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.FleetState;
import io.hamiobserve.domain.fleet.FleetTotals;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.Trend;
import io.hamiobserve.domain.fleet.TrendScope;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Compute allocated across cards of different vendors, against a real Prometheus: an NVIDIA card
 * counts cores in percent of the card, an Ascend card in AI cores (20 on a 910B3). The figure is
 * the mean of the cards' allocated percents ({@code hami_observe_gpu_core_allocated_percent}), as
 * the Grafana dashboard takes it; a sum of allocated cores over a sum of card cores (the console's
 * expression before) adds AI cores to percents and answers something else on this fleet.
 */
class CoreAllocatedAcrossVendorsTest {
    private static long end;
    private static LocalPrometheus prometheus;
    private static PrometheusFleetHistory history;
    private static PrometheusApi api;

    @BeforeAll
    static void startPrometheus() throws Exception {
        end = (Instant.now().getEpochSecond() / 60) * 60 - 60;
        prometheus = History.loaded("hami-observe-vendors", end - 3600, end, 60, series -> {
            // node-m: an NVIDIA card 30 % allocated and an Ascend card 10 of its 20 AI cores (50 %).
            card(series, "node-m", "GPU-M0", "0", "NVIDIA A100", 100, 30, 30);
            card(series, "node-m", "NPU-M1", "1", "Ascend910B3", 20, 10, 50);
            // node-n: one NVIDIA card 80 % allocated.
            card(series, "node-n", "GPU-N0", "0", "NVIDIA H100", 100, 80, 80);
        });
        history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
        api = new PrometheusApi(prometheus.url(), Duration.ofSeconds(20));
    }

    private static void card(History series, String node, String uuid, String index, String type, double limit,
                             double allocated, double percent) throws Exception {
        Map<String, String> labels = Map.of("node", node, "device_uuid", uuid, "device_index", index,
                "device_type", type);
        series.series("hami_gpu_memory_limit_bytes", labels, t -> 64.0 * (1L << 30))
                .series("hami_gpu_core_limit_ratio", labels, t -> limit)
                .series("hami_gpu_core_allocated_ratio", labels, t -> allocated)
                .series("hami_observe_gpu_core_allocated_percent", labels, t -> percent);
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    private static double last(TrendScope scope) throws Exception {
        Trend trend = history.trends(scope, Instant.ofEpochSecond(end), Duration.ofMinutes(10), Duration.ofMinutes(1))
                .of(Measure.TREND_CORES_ALLOCATED).getFirst();
        return trend.at(trend.size() - 1).orElseThrow();
    }

    private static double instant(String expression) throws Exception {
        return History.valueAt(api, expression, end);
    }

    @Test
    void theTrendsAreTheMeanOfTheCardsPercentsNotASumOfMixedUnits() throws Exception {
        assertEquals((30 + 50 + 80) / 3.0, last(new TrendScope.Cluster()), 1e-9);
        assertEquals(40, last(new TrendScope.Node("node-m")), 1e-9);
        assertEquals(50, last(new TrendScope.OneCard("NPU-M1")), 1e-9);
        // What the sums of the vendors' raw units say on the same storage: 100 × 120 / 220 and
        // 100 × 40 / 120, which is what the trends showed before.
        assertEquals(100.0 * 120 / 220, instant("100 * sum(max by (device_uuid) (hami_gpu_core_allocated_ratio))"
                + " / sum(max by (device_uuid) (hami_gpu_core_limit_ratio))"), 1e-9);
        assertEquals(100.0 * 40 / 120, instant("100 * sum(max by (device_uuid) (hami_gpu_core_allocated_ratio"
                + "{node=\"node-m\"})) / sum(max by (device_uuid) (hami_gpu_core_limit_ratio{node=\"node-m\"}))"), 1e-9);
    }

    @Test
    void theOverviewAndNodeFiguresAreTheMeanOfTheCardsPercents() throws Exception {
        FleetState state = FleetState.of(history.readings(Instant.ofEpochSecond(end), FleetScope.CARDS_ONLY));
        assertEquals((30 + 50 + 80) / 300.0, FleetTotals.of(state).coresAllocatedFraction().orElseThrow(), 1e-9);
        FleetState.NodeSummary mixed = state.nodes().stream().filter(node -> node.name().equals("node-m"))
                .findFirst().orElseThrow();
        assertEquals(0.40, mixed.coresAllocatedFraction().orElseThrow(), 1e-9);
        // The raw figures stay in each vendor's unit (what capacity counts free cores in).
        assertEquals(10, state.cards().stream().filter(card -> card.uuid().equals("NPU-M1")).findFirst()
                .orElseThrow().coresAllocated().orElseThrow(), 1e-9);
    }
}
