package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.ports.spi.UsageExporterMapping;
import io.hamiobserve.ports.spi.UsageSeries;
import io.hamiobserve.ports.spi.UsageSeries.Kind;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The queries built from the vendors' usage exporter mappings: one per figure whatever the number
 * of mappings, each under VictoriaMetrics' 16 KiB even with many more vendors than there are; a
 * mapping whose names could bend a query is left out, never sent; and neither this adapter nor the
 * console names a vendor.
 */
class ExporterUsageQueriesTest {
    private static final int MAX_QUERY_BYTES = 16 * 1024;

    private static List<UsageExporterMapping> loaded() {
        List<UsageExporterMapping> mappings = new ArrayList<>();
        ServiceLoader.load(UsageExporterMapping.class).forEach(mappings::add);
        return mappings;
    }

    /** A mapping as a vendor module would declare it, under another name. */
    private record Copy(String name, UsageExporterMapping of) implements UsageExporterMapping {
        @Override
        public String exporter() {
            return of.exporter();
        }

        @Override
        public List<UsageSeries> series() {
            return of.series();
        }
    }

    @Test
    void onceTheEngineSaysWhichMetricsItHoldsTheQueriesOfNowAskForThoseOnly() {
        ExporterUsageQueries queries = ExporterUsageQueries.of(loaded());
        String presence = queries.presence().orElseThrow().expression();
        assertTrue(presence.startsWith("count by (__name__) ({__name__=~\"") && presence.contains("|mx_sgpu_used_memory|"),
                presence);
        String every = queries.now(UsageSeries.Kind.CONTAINER_MEMORY_USED, "").orElseThrow().expression();
        assertTrue(every.contains("mx_sgpu_used_memory") && every.contains("container_npu_used_memory"), every);
        // The engine holds Ascend's container series only.
        queries.held(List.of(new PrometheusApi.Sample(Map.of("__name__", "container_npu_used_memory"), 2)));
        String held = queries.now(UsageSeries.Kind.CONTAINER_MEMORY_USED, "").orElseThrow().expression();
        assertTrue(held.contains("container_npu_used_memory") && !held.contains("mx_sgpu_used_memory"), held);
        assertTrue(queries.now(UsageSeries.Kind.CARD_MEMORY_USED, "").isEmpty(), "a card figure nobody reports");
        // A window reaches back to series gone since: every mapping's is asked for.
        assertTrue(queries.over(ExporterUsageQueries.Window.MEMORY_PEAK, java.time.Duration.ofDays(14), null).orElseThrow()
                .expression().contains("mx_sgpu_used_memory"));
        // None held: no query of now at all.
        queries.held(List.of());
        for (UsageSeries.Kind kind : UsageSeries.Kind.values()) {
            assertTrue(queries.now(kind, "").isEmpty(), kind.name());
        }
    }

    @Test
    void aWindowJoinsTheAllocationsOnlyForPercentMetricsTheLookupFoundAndAHostileAnswerAddsNothing() {
        ExporterUsageQueries queries = ExporterUsageQueries.of(loaded());
        // The lookup names the percent-of-allocation metrics only (mlu-exporter's memory), each by
        // the name its mapping declared, which was checked to be a metric name.
        String lookup = queries.joinedPresence(Duration.ofDays(14)).orElseThrow().expression();
        assertTrue(lookup.contains("count_over_time(mlu_memory_utilization[1209600s])"), lookup);
        assertFalse(lookup.contains("mx_sgpu_used_memory"), lookup);
        // An answer naming what no mapping declares, with quotes, a newline, markup or nothing at
        // all, beside a huge and a negative count: none of it reaches a query, and the percent
        // metric it does not name is left out with its join.
        List<PrometheusApi.Sample> hostile = List.of(
                new PrometheusApi.Sample(Map.of("metric", "x\"} or vector(1) # \n<script>alert(1)</script>"), 1e308),
                new PrometheusApi.Sample(Map.of("metric", "not_declared_total"), -5),
                new PrometheusApi.Sample(Map.of(), Double.NaN));
        java.util.Set<String> held = queries.heldOver(hostile);
        assertFalse(held.contains("mlu_memory_utilization"), held.toString());
        assertTrue(held.contains("mx_sgpu_used_memory") && !held.contains("not_declared_total"), held.toString());
        String peak = queries.over(ExporterUsageQueries.Window.MEMORY_PEAK, Duration.ofDays(14), held).orElseThrow()
                .expression();
        assertTrue(peak.contains("mx_sgpu_used_memory"), peak);
        assertFalse(peak.contains("mlu_memory_utilization") || peak.contains("hami_observe_container_info")
                || peak.contains("vector(1)") || peak.contains("not_declared_total") || peak.contains("<script>"), peak);
        // Found over the window: the percent figure and its join are asked for again.
        String found = queries.over(ExporterUsageQueries.Window.MEMORY_PEAK, Duration.ofDays(14), queries.heldOver(
                List.of(new PrometheusApi.Sample(Map.of("metric", "mlu_memory_utilization"), 3)))).orElseThrow()
                .expression();
        assertTrue(found.contains("mlu_memory_utilization") && found.contains("hami_observe_container_info"), found);
    }

    @Test
    void theVendorModulesMappingsAreLoadedAndEachIsSound() {
        List<UsageExporterMapping> mappings = loaded();
        assertEquals(List.of("ascend-npu-exporter", "cambricon-mlu-exporter", "hygon-dcu-exporter", "metax-exporter"),
                mappings.stream().map(UsageExporterMapping::name).sorted().toList());
        mappings.forEach(mapping -> assertTrue(ExporterUsageQueries.problem(mapping).isEmpty(), mapping.name()));
    }

    private static List<UsageExporterMapping> copies(int copies) {
        List<UsageExporterMapping> many = new ArrayList<>();
        for (int copy = 0; copy < copies; copy++) {
            for (UsageExporterMapping mapping : loaded()) {
                many.add(new Copy(mapping.name() + "-" + copy, mapping));
            }
        }
        return many;
    }

    @Test
    void oneQueryPerFigureWhateverTheNumberOfMappingsAndEachUnder16KiB() {
        List<Integer> today = new ArrayList<>();
        assertEquals(sent(ExporterUsageQueries.of(copies(1)), today),
                sent(ExporterUsageQueries.of(copies(5)), new ArrayList<>()));
        System.out.printf("ExporterUsageQueriesTest: today's %d mappings, the largest query %d bytes%n",
                loaded().size(), today.stream().mapToInt(Integer::intValue).max().orElseThrow());
        List<UsageExporterMapping> many = copies(5);
        ExporterUsageQueries queries = ExporterUsageQueries.of(many);
        assertEquals(20, queries.names().size());
        List<Integer> sizes = new ArrayList<>();
        int sent = sent(queries, sizes);
        // Every figure now; over a window, memory only: each mapped utilisation means something else
        // than the container's percent of the card, and recommends nothing.
        assertEquals(Kind.values().length + 3, sent);
        int largest = sizes.stream().mapToInt(Integer::intValue).max().orElseThrow();
        assertTrue(largest < MAX_QUERY_BYTES, "largest " + largest);
        System.out.printf("ExporterUsageQueriesTest: %d mappings, %d queries, the largest %d bytes (limit %d)%n",
                many.size(), sent, largest, MAX_QUERY_BYTES);
    }

    /** The queries sent for a page and for right-sizing, their sizes added to {@code sizes}. */
    private static int sent(ExporterUsageQueries queries, List<Integer> sizes) {
        String uuid = "a".repeat(127) + "z";
        int sent = 0;
        for (Kind kind : Kind.values()) {
            for (PromQl.Query query : queries.now(kind, uuid).stream().toList()) {
                sent++;
                sizes.add(bytes(query));
            }
        }
        for (ExporterUsageQueries.Window window : ExporterUsageQueries.Window.values()) {
            for (PromQl.Query query : queries.over(window, Duration.ofDays(90), null).stream().toList()) {
                sent++;
                sizes.add(bytes(query));
            }
        }
        return sent;
    }

    private static int bytes(PromQl.Query query) {
        return query.expression().getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void aMappingWhoseNamesCouldBendAQueryIsLeftOut() {
        UsageExporterMapping hostile = new UsageExporterMapping() {
            @Override
            public String name() {
                return "hostile";
            }

            @Override
            public String exporter() {
                return "<script>";
            }

            @Override
            public List<UsageSeries> series() {
                return List.of(UsageSeries.card(Kind.CARD_MEMORY_USED, "up} or vector(1) or up{", "id", 1, ""));
            }
        };
        UsageExporterMapping badLabel = new Copy("bad-label", new UsageExporterMapping() {
            @Override
            public String name() {
                return "x";
            }

            @Override
            public String exporter() {
                return "x";
            }

            @Override
            public List<UsageSeries> series() {
                return List.of(UsageSeries.card(Kind.CARD_UTILISATION, "x_util", "id\", \"", 1, ""));
            }
        });
        UsageExporterMapping badName = new Copy("Bad Name\"", loaded().getFirst());
        ExporterUsageQueries queries = ExporterUsageQueries.of(List.of(hostile, badLabel, badName));
        assertTrue(queries.names().isEmpty());
        assertTrue(queries.now(Kind.CARD_MEMORY_USED, "").isEmpty(), "no mapping: no query sent");
    }

    /** A vendor's name or an exporter's series prefix, as a word, in code or a template (comments aside). */
    private static final Pattern VENDOR = Pattern.compile("\\b(ascend\\b|huawei|cambricon|hygon|metax|iluvatar|"
            + "npu-exporter|mlu-exporter|dcu-exporter|hcu-exporter|vhcu|npu_|mlu_|dcu_|mx_)");
    private static final Pattern COMMENT = Pattern.compile("(?s)/\\*.*?\\*/|(?m)^\\s*//.*$|<%--.*?--%>");

    @Test
    void neitherThisAdapterNorTheConsoleNamesAVendor() throws IOException {
        int read = 0;
        for (Path root : List.of(Path.of("src/main/java"), Path.of("../console/src/main"))) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    String code = COMMENT.matcher(Files.readString(file)).replaceAll("").toLowerCase(Locale.ROOT);
                    Matcher vendor = VENDOR.matcher(code);
                    assertFalse(vendor.find(), () -> file + " names " + vendor.group());
                    read++;
                }
            }
        }
        assertTrue(read > 20, "the sources were found: " + read);
    }
}
