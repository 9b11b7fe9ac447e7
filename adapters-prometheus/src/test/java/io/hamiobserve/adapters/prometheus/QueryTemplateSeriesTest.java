package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.adapters.prometheus.PromQl.Template;
import io.hamiobserve.testkit.SeriesNames;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every query template the console sends names only series that exist: the exporters' (the golden
 * expositions), the recording rules' (alerts/*.rules.yml), or an external exporter's listed here
 * with its source. A renamed or misspelt series fails here, not as a blank page in production. The
 * names are found as the dashboard's and the alert rules' tests find theirs ({@link SeriesNames}).
 */
class QueryTemplateSeriesTest {
    /**
     * NVIDIA dcgm-exporter's fields the console reads (dcgm-exporter's default counters,
     * etc/default-counters.csv, and the profiling field DCGM_FI_PROF_GR_ENGINE_ACTIVE from
     * etc/dcp-metrics-included.csv; the older clock-events name from DCGM before 3.3). The demo's
     * simulated dcgm-exporter serves the same names (its goldens), but these are external series:
     * listed here so a new DCGM field is a deliberate choice.
     */
    static final Set<String> DCGM = Set.of("DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_MEMORY_TEMP",
            "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_SM_CLOCK",
            "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_DEV_FB_USED",
            "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
            "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL");

    /** The label the clusters' query is shown with here (any label name gives the same series). */
    private static final String CLUSTER_LABEL = "cluster";

    /** Every template: the constants of the query classes, and what their factories make. */
    static Map<String, String> templates() throws ReflectiveOperationException {
        Map<String, String> all = new TreeMap<>();
        for (Class<?> queries : List.of(FleetQueries.class, DcgmQueries.class, ExporterUsageQueries.class)) {
            for (Field field : queries.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers()) && field.getType() == Template.class) {
                    field.setAccessible(true);
                    Template template = (Template) field.get(null);
                    all.put(queries.getSimpleName() + "." + field.getName(), template.text());
                }
            }
        }
        DcgmQueries.ALL.forEach((measure, template) -> all.put("DcgmQueries.ALL " + measure, template.text()));
        all.put("FleetQueries.clusters", FleetQueries.clusters(CLUSTER_LABEL).text());
        for (boolean recorded : new boolean[] {true, false}) {
            all.put("FleetQueries.containerHours" + (recorded ? " recorded" : ""),
                    FleetQueries.containerHours(recorded).text());
            all.put("FleetQueries.workloadHours" + (recorded ? " recorded" : ""),
                    FleetQueries.workloadHours(recorded).text());
            all.put("FleetQueries.podOwnersOverWindow" + (recorded ? " recorded" : ""),
                    FleetQueries.podOwnersOverWindow(recorded).text());
        }
        // The showback's card-hours: every template of the set, the integrals both from the raw
        // series and from their hourly records.
        FleetQueries.CardHourQueries cardHours = FleetQueries.cardHours(CLUSTER_LABEL);
        for (var component : FleetQueries.CardHourQueries.class.getRecordComponents()) {
            Object part = component.getAccessor().invoke(cardHours);
            if (part instanceof FleetQueries.Integral integral) {
                all.put("FleetQueries.cardHours " + component.getName(), integral.raw().text());
                for (FleetQueries.Tail tail : FleetQueries.Tail.values()) {
                    all.put("FleetQueries.cardHours " + component.getName() + " recorded, tail " + tail,
                            integral.recorded(true, tail).text());
                }
            } else {
                all.put("FleetQueries.cardHours " + component.getName(), ((Template) part).text());
            }
        }
        return all;
    }

    @Test
    void everyFactoryOfTemplatesIsAskedHere() {
        // A new method that makes templates must be added to templates() above, or its series go unchecked.
        List<String> factories = new ArrayList<>();
        for (Class<?> queries : List.of(FleetQueries.class, DcgmQueries.class)) {
            for (Method method : queries.getDeclaredMethods()) {
                if (Modifier.isStatic(method.getModifiers()) && method.getReturnType() == Template.class) {
                    factories.add(queries.getSimpleName() + "." + method.getName());
                }
            }
        }
        // hourlyPercentileOfUtilisation makes the two fields UTILISATION_P95 and UTILISATION_MEDIAN,
        // checked with every field.
        assertEquals(Set.of("FleetQueries.clusters", "FleetQueries.containerHours",
                "FleetQueries.workloadHours", "FleetQueries.podOwnersOverWindow",
                "FleetQueries.hourlyPercentileOfUtilisation"),
                new HashSet<>(factories));
    }

    @Test
    void everyTemplateNamesOnlySeriesThatAreProduced() throws ReflectiveOperationException {
        Set<String> known = known();
        Map<String, String> templates = templates();
        assertTrue(templates.size() > 60, "the templates were found: " + templates.size());
        List<String> unknown = new ArrayList<>();
        templates.forEach((name, text) -> {
            Set<String> series = SeriesNames.in(text);
            assertFalse(series.isEmpty(), name + " names no series the test recognises: " + text);
            series.stream().filter(s -> !known.contains(s)).forEach(s -> unknown.add(s + " in " + name));
        });
        assertEquals(List.of(), unknown, "series that no exporter, recording rule or listed external exporter "
                + "produces");
    }

    @Test
    void anUnknownSeriesIsCaught() {
        // The check above can fail: a misspelt series, or one only HAMi's older versions exported.
        Set<String> known = known();
        for (String text : List.of("max by (node) (hami_gpu_memory_limit_byte)",
                "sum(container:hami_vgpu_memory_used_bytes:max_2h)", "max(DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL)")) {
            Set<String> series = SeriesNames.in(text);
            assertEquals(1, series.size(), text);
            assertFalse(known.contains(series.iterator().next()), text);
        }
    }

    /** The exporters' series (not the demo's dcgm-exporter's), the recorded ones, and DCGM's listed. */
    private static Set<String> known() {
        Set<String> known = new HashSet<>();
        SeriesNames.exported().stream().filter(name -> !name.startsWith("DCGM_")).forEach(known::add);
        known.addAll(SeriesNames.recorded());
        known.addAll(DCGM);
        return known;
    }
}
