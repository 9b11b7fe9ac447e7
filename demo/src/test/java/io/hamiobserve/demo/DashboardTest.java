package io.hamiobserve.demo;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Grafana dashboard: importable JSON whose every query names only series the endpoints
 * export (checked against the golden expositions, so a renamed metric breaks this test before it
 * breaks a panel), with HAMi's node and namespace variables and the gap row. Whether each query
 * returns data from a real Prometheus is bin/e2e-prometheus's job.
 */
class DashboardTest {
    private static final Path DASHBOARD = DeployManifestsTest.ROOT.resolve("dashboards/hami-observe.json");
    /** A series name: this project's and HAMi's, and the dcgm-exporter fields the physical row reads. */
    private static final Pattern METRIC = Pattern.compile(
            "\\b(hami_[a-z0-9_]+|DCGM_FI_[A-Z0-9_]+)\\b(?!\\s*[=!]~?\\s*\")");
    /** A counter that appears only once something has been skipped; bin/e2e-prometheus provokes it. */
    static final Set<String> ONLY_LIVE = Set.of("hami_observe_skipped_inputs_total");
    /**
     * An older DCGM's name of a field the demo's dcgm-exporter serves under the newer one
     * ({@code DCGM_FI_DEV_CLOCKS_EVENT_REASONS}): read only as the right side of {@code or}.
     */
    static final Set<String> OLDER_DCGM = Set.of("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS");

    private static JsonNode dashboard;

    @BeforeAll
    static void read() throws IOException {
        dashboard = new ObjectMapper().readTree(Files.readString(DASHBOARD));
    }

    static Set<String> exportedSeriesNames() throws IOException {
        Set<String> names = new HashSet<>(ONLY_LIVE);
        names.addAll(OLDER_DCGM);
        // The golden expositions: the demo's of both views, the node role's over the real adapters, the
        // scheduler role's of dumps the demo does not hold (every vendor, ghost allocations).
        for (String module : new String[] {"demo", "role-node", "role-scheduler"}) {
            try (var goldens = Files.list(DeployManifestsTest.ROOT.resolve(module + "/src/test/resources/golden"))) {
                for (Path golden : goldens.filter(p -> p.toString().endsWith(".prom")).toList()) {
                    for (String line : Files.readAllLines(golden)) {
                        if (!line.isBlank() && !line.startsWith("#")) {
                            names.add(line.split("[{ ]", 2)[0]);
                        }
                    }
                }
            }
        }
        return names;
    }

    static Set<String> metricNames(String expr) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = METRIC.matcher(expr);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

    private static List<JsonNode> panels(JsonNode list) {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode panel : list) {
            all.add(panel);
            if (panel.has("panels")) {
                all.addAll(panels(panel.get("panels")));
            }
        }
        return all;
    }

    private static List<String> expressions() {
        List<String> exprs = new ArrayList<>();
        for (JsonNode panel : panels(dashboard.get("panels"))) {
            for (JsonNode target : panel.path("targets")) {
                exprs.add(target.get("expr").asString());
            }
        }
        return exprs;
    }

    @Test
    void everyQueryNamesOnlyExportedSeries() throws IOException {
        Set<String> exported = exportedSeriesNames();
        List<String> unknown = new ArrayList<>();
        for (String expr : expressions()) {
            Set<String> names = metricNames(expr);
            assertFalse(names.isEmpty() && !expr.contains("up{"), "a query on no hami series: " + expr);
            names.stream().filter(n -> !exported.contains(n)).forEach(n -> unknown.add(n + " in " + expr));
        }
        assertEquals(List.of(), unknown, "series no endpoint exports");
    }

    @Test
    void variablesAreHamisNodeAndNamespace() {
        JsonNode variables = dashboard.get("templating").get("list");
        List<String> definitions = new ArrayList<>();
        for (JsonNode variable : variables) {
            if (variable.get("type").asString().equals("query")) {
                definitions.add(variable.get("name").asString() + "=" + variable.get("definition").asString());
                assertEquals(".*", variable.get("allValue").asString(), "All selects every value in =~ filters");
            }
        }
        assertEquals(List.of("node=label_values(hami_gpu_memory_limit_bytes, node)",
                "namespace=label_values(hami_vgpu_memory_used_bytes, namespace)"), definitions);
        // Every per-node and per-namespace series is filtered by the variables.
        for (String expr : expressions()) {
            for (String name : metricNames(expr)) {
                if (name.startsWith("hami_vgpu_memory_used") || name.startsWith("hami_observe_container_memory")) {
                    assertTrue(expr.contains("namespace=~\"$namespace\""), "namespace filter in " + expr);
                }
                if (name.startsWith("hami_host_gpu_memory_used")) {
                    assertTrue(expr.contains("node=~\"$node\""), "node filter in " + expr);
                }
            }
        }
    }

    @Test
    void importableWithOneDataSourceVariableAndUniquePanelIds() {
        assertEquals("hami-observe-gpu", dashboard.get("uid").asString());
        Set<Integer> ids = new HashSet<>();
        for (JsonNode panel : panels(dashboard.get("panels"))) {
            assertTrue(ids.add(panel.get("id").asInt()), "duplicate panel id " + panel.get("id"));
            JsonNode grid = panel.get("gridPos");
            assertTrue(grid.get("x").asInt() + grid.get("w").asInt() <= 24, panel.get("title") + " fits the 24-column grid");
            if (!panel.get("type").asString().equals("row")) {
                assertEquals("${datasource}", panel.get("datasource").get("uid").asString(), panel.get("title").asString());
                assertFalse(panel.path("targets").isEmpty(), panel.get("title") + " has a query");
            }
        }
    }

    @Test
    void theGapRowShowsIdleAllocationPerPodUseAndMemoryOutsideHamiCore() {
        List<String> rows = new ArrayList<>();
        List<String> gap = new ArrayList<>();
        boolean inGap = false;
        for (JsonNode panel : dashboard.get("panels")) {
            if (panel.get("type").asString().equals("row")) {
                rows.add(panel.get("title").asString());
                inGap = panel.get("title").asString().startsWith("Gap");
            } else if (inGap) {
                panel.path("targets").forEach(t -> gap.add(t.get("expr").asString()));
            }
        }
        assertEquals(List.of("Capacity", "Allocation (scheduler view)", "Usage (node view)",
                "Physical: DCGM exporter, else the node role's NVML", "Gap: allocated vs used", "Exporter health"), rows);
        String all = String.join("\n", gap);
        assertTrue(all.contains("sum by (namespace, pod) (hami_observe_container_memory_allocated_bytes"), all);
        assertTrue(all.contains("sum by (namespace, pod) (hami_vgpu_memory_used_bytes"), all);
        assertTrue(all.contains("hami_observe_container_memory_idle_bytes"), all);
        assertTrue(all.contains("hami_observe_unmanaged_memory_bytes"), all);
        assertTrue(all.contains("hami_observe_gpu_memory_beyond_allocation_bytes"), all);
    }

    /**
     * The physical row: DCGM's series joined by card UUID, reduced per card whatever the exporter's
     * label form; temperature, power and energy fall back to the node role's NVML series per card;
     * the DCGM-only panels say "no DCGM exporter scraped" instead of showing nothing or 0.
     */
    @Test
    void thePhysicalRowReadsDcgmByUuidAndFallsBackToNvml() {
        List<JsonNode> physical = new ArrayList<>();
        boolean inRow = false;
        for (JsonNode panel : dashboard.get("panels")) {
            if (panel.get("type").asString().equals("row")) {
                inRow = panel.get("title").asString().startsWith("Physical");
            } else if (inRow) {
                physical.add(panel);
            }
        }
        Set<String> fields = new TreeSet<>();
        for (JsonNode panel : physical) {
            List<String> exprs = new ArrayList<>();
            panel.path("targets").forEach(t -> exprs.add(t.get("expr").asString()));
            String all = String.join("\n", exprs);
            metricNames(all).stream().filter(name -> name.startsWith("DCGM_FI_")).forEach(fields::add);
            for (String expr : exprs) {
                if (expr.contains("DCGM_FI_")) {
                    assertTrue(expr.contains("by (UUID"), "reduced per card UUID: " + expr);
                }
            }
            boolean nvml = all.contains("hami_observe_host_gpu_");
            if (nvml) {
                assertTrue(all.contains("or on (UUID) label_replace("), "falls back to NVML per card: " + all);
            } else {
                assertEquals("no DCGM exporter scraped", panel.path("fieldConfig").path("defaults").path("noValue")
                        .asString(), panel.get("title").asString());
            }
        }
        assertEquals(new TreeSet<>(List.of("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
                "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_GPU_UTIL",
                "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_SM_CLOCK",
                "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_PROF_GR_ENGINE_ACTIVE")),
                fields, "temperature, power, energy, SM clock, utilisation, framebuffer, Xid, clock events, ECC");
    }
}
