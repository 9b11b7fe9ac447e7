package io.hamiobserve.adapters.prometheus;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every query the console sends stays under VictoriaMetrics' default {@code -search.maxQueryLen}
 * (16 KiB; a longer one is refused with HTTP 422), with the largest fillings Kubernetes allows:
 * 253-character node and pod names, 63-character namespaces and containers, the longest card
 * UUIDs, 90-day windows. No template grows with the fleet: a page narrows by label matchers, never
 * by listing entities.
 */
class QuerySizeTest {
    private static final int MAX_QUERY_BYTES = 16 * 1024;
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([a-zA-Z]+)}");

    /** {@code n} characters of a DNS subdomain name. */
    private static String name(int n) {
        return "a".repeat(n - 1) + "z";
    }

    /** The largest realistic value of each placeholder the templates use. */
    private static Object filling(String placeholder) {
        return switch (placeholder) {
            // The widest scope: one workload (namespace, pod and container).
            case "where" -> PromQl.Matchers.of("namespace", name(63), "pod", name(253), "container", name(63));
            case "owners" -> PromQl.Matchers.of("namespace", name(63), "pod", name(253));
            case "node", "pod" -> name(253);
            case "namespace", "container" -> name(63);
            // NVIDIA's "GPU-" UUIDs are 40 characters; other vendors' identifiers are longer, none near 128.
            case "uuid" -> name(128);
            case "index" -> Integer.toString(Integer.MAX_VALUE);
            case "window", "settled", "recent", "step", "range" -> Duration.ofDays(90);
            case "stepSeconds", "seconds" -> Long.MAX_VALUE;
            // Showback's parts read from the hourly records and the raw minutes around them, in milliseconds.
            case "recordedMs", "recordedOffsetMs", "headOffsetMs", "tailMs", "tailStepMs" -> Long.MAX_VALUE;
            // The tail's step in seconds and the head's part of its hour (doubles): the longest text a double prints as.
            case "tailStepSeconds", "tailSeconds", "headFraction", "tailFraction" -> -Double.MAX_VALUE;
            // A rule group's name (the console's own: "showback"); generous.
            case "group" -> name(63);
            // The cluster label's name (a flag); a label name has no length limit, 63 is generous.
            case "cluster" -> new PromQl.Label(name(63).replace('-', '_'));
            default -> throw new AssertionError("no realistic filling for ${" + placeholder + "}: add one");
        };
    }

    private static List<PromQl.Template> templates() throws IllegalAccessException {
        List<PromQl.Template> templates = new ArrayList<>();
        for (Field field : FleetQueries.class.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == PromQl.Template.class) {
                field.setAccessible(true);
                templates.add((PromQl.Template) field.get(null));
            }
        }
        for (FleetQueries.Integral integral : FleetQueries.cardHours(RecordingRules.CLUSTER_LABEL).integrals()) {
            templates.add(integral.raw());
            for (FleetQueries.Tail tail : FleetQueries.Tail.values()) {
                templates.add(integral.recorded(true, tail));
            }
        }
        for (boolean recorded : new boolean[] {true, false}) {
            templates.add(FleetQueries.containerHours(recorded));
            templates.add(FleetQueries.workloadHours(recorded));
            templates.add(FleetQueries.podOwnersOverWindow(recorded));
        }
        return templates;
    }

    @Test
    void everyTemplateFilledAtItsLargestStaysUnder16KiB() throws IllegalAccessException {
        List<PromQl.Template> templates = templates();
        assertTrue(templates.size() > 50, "every template found: " + templates.size());
        int largest = 0;
        String largestName = "";
        for (PromQl.Template template : templates) {
            Map<String, Object> values = new HashMap<>();
            Matcher placeholder = PLACEHOLDER.matcher(template.text());
            while (placeholder.find()) {
                values.put(placeholder.group(1), filling(placeholder.group(1)));
            }
            String expression = template.bind(values).expression();
            int bytes = expression.getBytes(StandardCharsets.UTF_8).length;
            assertTrue(bytes < MAX_QUERY_BYTES, template.name() + " is " + bytes + " bytes: " + expression);
            if (bytes > largest) {
                largest = bytes;
                largestName = template.name();
            }
        }
        System.out.printf("QuerySizeTest: %d templates, the largest filled query %s is %d bytes (limit %d)%n",
                templates.size(), largestName, largest, MAX_QUERY_BYTES);
    }

    /**
     * The container queries a read of now narrows to changed nodes stay under the limit with one
     * node of the longest name Kubernetes allows, every character one a regular expression escapes
     * (a longer name reads every node, KeptNodeSeries); more names are grouped while they fit.
     */
    @Test
    void aContainerQueryNarrowedToTheLongestNodeNameStaysUnderTheLimit() {
        String worst = "(".repeat(KeptNodeSeries.LONGEST_NODE_NAME);
        for (PromQl.Template template : List.of(FleetQueries.CONTAINER_MEMORY_ALLOCATED,
                FleetQueries.CONTAINER_CORES_ALLOCATED, FleetQueries.CONTAINER_NAMES)) {
            String expression = template.bind("where", PromQl.Matchers.NONE, "cluster",
                    filling("cluster")).expression();
            int bytes = PromQl.narrowedToAny(expression, "node", List.of(worst)).getBytes(StandardCharsets.UTF_8).length;
            System.out.printf("%s narrowed to one node of the worst name: %,d bytes%n", template.name(), bytes);
            assertTrue(bytes <= PrometheusFleetHistory.MOST_QUERY_BYTES, template.name() + ": " + bytes);
        }
    }
}
