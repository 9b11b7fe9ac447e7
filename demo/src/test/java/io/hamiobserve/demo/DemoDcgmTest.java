package io.hamiobserve.demo;

import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.app.testing.Expositions;
import io.hamiobserve.exposition.testing.Promtool;
import io.hamiobserve.domain.fleet.ClockEvents;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo's simulated dcgm-exporters: each node's exposition at the fixed demo instant equals its
 * golden file (which DashboardTest and AlertRulesTest read as the DCGM series that exist), promtool
 * finds nothing in it but dcgm-exporter's own camelCase label names, and the simulation shows what
 * the tour promises: card 0 of node A hot and throttled by heat in its hot quarter hour, the V100's
 * Xid, node B in the Kubernetes-mapping form.
 *
 * <p>Regenerate after an intended change with {@code -Dgolden.update=true} and review the diff.
 */
class DemoDcgmTest {
    private static final Path GOLDEN = Path.of("src/test/resources/golden");

    @ParameterizedTest
    @ValueSource(strings = {DemoCluster.NODE_A, DemoCluster.NODE_B})
    void expositionMatchesGoldenAndPassesPromtool(String node) throws Exception {
        DemoDcgm source = new DemoDcgm(Fixtures.workload(), node, DemoDcgm.formOf(node));
        String exposition = Expositions.render(source, ExpositionFormat.PROMETHEUS_TEXT);
        Path golden = GOLDEN.resolve("dcgm-" + node + ".prom");
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(golden, exposition);
        }
        assertEquals(Files.readString(golden), exposition, "exposition differs from " + golden);
        assertEquals(List.of(), promtoolFindings(exposition), "promtool check metrics");
    }

    /** promtool's findings, less its lint of dcgm-exporter's own label names (UUID, Hostname, modelName): a contract. */
    private static List<String> promtoolFindings(String exposition) throws IOException, InterruptedException {
        return Promtool.findings(exposition).stream()
                .filter(line -> !line.matches("DCGM_FI_[A-Z_]+ label names should be written in 'snake_case' not "
                        + "'camelCase'"))
                .toList();
    }

    @Test
    void cardZeroOfNodeARunsHotAndThrottlesByHeatForAQuarterOfEachHour() {
        java.time.Instant hour = Fixtures.NOW.truncatedTo(java.time.temporal.ChronoUnit.HOURS);
        String hot = render(DemoCluster.NODE_A, hour.plusSeconds(60));
        String cool = render(DemoCluster.NODE_A, hour.plusSeconds(30 * 60));
        String card0 = "UUID=\"" + DemoCluster.uuid("a100", 0) + "\"";
        long thermal = ClockEvents.SW_THERMAL_SLOWDOWN.bit() | ClockEvents.HW_THERMAL_SLOWDOWN.bit();
        assertTrue(value(hot, "DCGM_FI_DEV_GPU_TEMP", card0) >= 85, hot);
        assertEquals(thermal, (long) value(hot, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", card0));
        assertTrue(value(cool, "DCGM_FI_DEV_GPU_TEMP", card0) < 85, cool);
        assertFalse(ClockEvents.throttling((long) value(cool, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", card0)));
        assertTrue(value(hot, "DCGM_FI_DEV_SM_CLOCK", card0) < value(cool, "DCGM_FI_DEV_SM_CLOCK", card0),
                "throttled clocks are lower");
        // The energy counter only grows.
        assertTrue(value(cool, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", card0)
                > value(hot, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", card0));
    }

    @Test
    void theV100HasLoggedAnXidAndNodeBIsInTheKubernetesForm() {
        String b = render(DemoCluster.NODE_B, Fixtures.NOW);
        String v100 = "UUID=\"" + DemoCluster.uuid("v100", 0) + "\"";
        assertEquals(DemoDcgm.XID, value(b, "DCGM_FI_DEV_XID_ERRORS", v100));
        assertTrue(b.lines().filter(line -> line.startsWith("DCGM_FI_DEV_GPU_TEMP{")).allMatch(line ->
                line.contains("pod=\"") && line.contains("namespace=\"") && line.contains("container=\"")), b);
        // The MIG card reports no GPU_UTIL, only its instances' engine activity.
        String mig = "UUID=\"" + DemoCluster.uuid("h100", 1) + "\"";
        assertFalse(b.lines().anyMatch(line -> line.startsWith("DCGM_FI_DEV_GPU_UTIL{") && line.contains(mig)));
        assertTrue(b.lines().anyMatch(line -> line.startsWith("DCGM_FI_PROF_GR_ENGINE_ACTIVE{") && line.contains(mig)
                && line.contains("GPU_I_ID=\"2\"")));
        String a = render(DemoCluster.NODE_A, Fixtures.NOW);
        assertFalse(a.contains("pod=\""), "node A is in the default form");
    }

    private static String render(String node, java.time.Instant at) {
        DemoWorkload workload = new DemoWorkload(DemoCluster.standard(), Clock.fixed(at, ZoneOffset.UTC));
        return Expositions.render(new DemoDcgm(workload, node, DemoDcgm.formOf(node)),
                ExpositionFormat.PROMETHEUS_TEXT);
    }

    /** The value of the first series of {@code name} whose labels contain {@code label}. */
    private static double value(String exposition, String name, String label) {
        return exposition.lines().filter(line -> line.startsWith(name + "{") && line.contains(label)).findFirst()
                .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .orElseThrow(() -> new AssertionError(name + " " + label + " not in\n" + exposition));
    }
}
