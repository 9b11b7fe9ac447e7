package io.hamiobserve.demo;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;
import io.hamiobserve.adapters.prometheus.PrometheusFleetHistory;
import io.hamiobserve.console.Console;
import io.hamiobserve.console.ConsoleSettings;
import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.Test;

import java.io.BufferedWriter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The number of queries each console page sends to Prometheus does not grow with the fleet: every
 * page is read over a real Prometheus holding a fleet of 4 cards and one of 64 (on 16 nodes), HAMi's
 * and DCGM's series alike, and as many Ascend cards whose use comes from npu-exporter (read through
 * the vendor module's mapping), each page by a fresh console (nothing cached), and the queries counted
 * by Prometheus itself ({@code prometheus_http_requests_total} of its query handlers). Prints the
 * counts.
 */
class ConsoleQueryCountTest {
    private static final List<String> PAGES = List.of("/", "/nodes", "/node?name=node-0", "/cards",
            "/card?uuid=" + uuid(0), "/workloads", "/workload?namespace=team&pod=pod-0&container=main",
            "/namespaces", "/rightsizing", "/capacity", "/stuck", "/showback", "/card?uuid=" + npu(0),
            "/workload?namespace=ai&pod=npu-pod-0&container=main");
    /**
     * What no page may exceed, whatever the fleet: the overview, the largest, reads the cards and
     * containers now (with the DCGM fields and the vendors' exporters, one query per figure each),
     * the day's charts and whether the funnel's rule group ran through them, and the week's hours
     * (70 queries, each read cached across pages); the capacity page reads what the right-sizing
     * page reads and the stuck list's eight, 72; the node page, with its trends and the ghosts' and
     * owners' series, 67. Every count includes the two queries a fresh console asks beside its first
     * read of now: which of the vendors' exporters' metrics the engine holds, and how many runs of
     * the console's rule groups it holds (RuleAdvice; its rules API is not a query); and every read
     * of the whole fleet's now, the nodes' two fingerprints it asks first, of their containers and of
     * their cards (a later read asks for the changed nodes' series in at most two groups a figure).
     */
    private static final int BOUND = 72;

    private final HttpClient client = HttpClient.newHttpClient();

    private static String uuid(int card) {
        return String.format("GPU-%08d-0000-4000-a000-000000000000", card);
    }

    /** Beside each NVIDIA card an Ascend card, its use from npu-exporter (the vendor module's mapping). */
    private static String npu(int card) {
        return String.format("npu-vdie-%08d", card);
    }

    @Test
    void eachPageSendsAsManyQueriesForSixtyFourCardsAsForFour() throws Exception {
        Map<String, Integer> small = countPerPage(4);
        Map<String, Integer> large = countPerPage(64);
        System.out.println("queries per console page (fresh console, nothing cached): page, 4 cards, 64 cards");
        small.forEach((page, count) -> System.out.printf("  %-60s %3d %3d%n", page, count, large.get(page)));
        assertEquals(small, large, "a page's queries do not depend on the fleet's size");
        small.forEach((page, count) -> assertTrue(count > 0 && count <= BOUND, page + ": " + count));
    }

    private Map<String, Integer> countPerPage(int cards) throws Exception {
        long end = Instant.now().getEpochSecond() / 60 * 60 - 60;
        Path file = Files.createTempFile("hami-observe-query-count", ".om");
        LocalPrometheus prometheus;
        try {
            writeFleet(file, cards, end - 3600, end);
            prometheus = LocalPrometheus.start(List.of(), Duration.ofSeconds(60), List.of(file), Duration.ofSeconds(60));
        } finally {
            Files.deleteIfExists(file);
        }
        try (prometheus) {
            Map<String, Integer> counts = new LinkedHashMap<>();
            for (String page : PAGES) {
                Console console = Console.create(PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20)),
                        ConsoleSettings.defaults(), Clock.fixed(Instant.ofEpochSecond(end), ZoneOffset.UTC));
                WebServer server = WebServer.builder().port(0).host("127.0.0.1").shutdownHook(false)
                        .routing(console::routing).build().start();
                try {
                    long before = queries(prometheus.url());
                    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(
                            "http://127.0.0.1:" + server.port() + page)).build(), HttpResponse.BodyHandlers.ofString());
                    assertEquals(200, response.statusCode(), page + "\n" + response.body());
                    if (page.startsWith("/card?uuid=GPU")) {
                        assertTrue(response.body().contains("Physical counters (DCGM exporter"), "DCGM is read");
                    }
                    if (page.startsWith("/card?uuid=npu")) {
                        assertTrue(response.body().contains("Used (npu-exporter)"), "npu-exporter is read");
                    }
                    counts.put(page, (int) (settledQueries(prometheus.url()) - before));
                } finally {
                    server.stop();
                }
            }
            return counts;
        }
    }

    /**
     * {@link #queries} once it has stopped moving: the page's answer can leave behind a question
     * it does not wait for (which vendors' exporters the engine holds), and Prometheus counts a
     * query as it finishes answering it, so read at once the count sometimes lacked one (55 for
     * 56 on the namespaces page in a CI run). Unchanged over half a second, within ten.
     */
    private long settledQueries(URI prometheus) throws IOException, InterruptedException {
        long last = queries(prometheus);
        int unchanged = 0;
        for (long deadline = System.nanoTime() + 10_000_000_000L; unchanged < 5 && System.nanoTime() < deadline; ) {
            Thread.sleep(100);
            long now = queries(prometheus);
            unchanged = now == last ? unchanged + 1 : 0;
            last = now;
        }
        return last;
    }

    /** Queries Prometheus has answered so far: instant and range, as its own counter says. */
    private long queries(URI prometheus) throws IOException, InterruptedException {
        String metrics = client.send(HttpRequest.newBuilder(prometheus.resolve("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return metrics.lines().filter(line -> line.startsWith("prometheus_http_requests_total{")
                        && (line.contains("handler=\"/api/v1/query\"") || line.contains("handler=\"/api/v1/query_range\"")))
                .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    /** A fleet of {@code cards} cards, four to a node, one container on each, with DCGM's series. */
    private static void writeFleet(Path file, int cards, long start, long end) throws IOException {
        try (BufferedWriter out = Files.newBufferedWriter(file)) {
            for (int c = 0; c < cards; c++) {
                String node = "node-" + c / 4;
                String uuid = uuid(c);
                String card = "node=\"" + node + "\",device_uuid=\"" + uuid + "\"";
                String registered = card + ",device_index=\"" + c % 4 + "\",device_type=\"NVIDIA-A100\"";
                String share = "namespace=\"team\",pod=\"pod-" + c + "\",container_index=\"0\",container=\"main\","
                        + card;
                String use = "namespace=\"team\",pod=\"pod-" + c + "\",container=\"main\"," + card;
                String dcgm = "UUID=\"" + uuid + "\",Hostname=\"" + node + "\",gpu=\"" + c % 4
                        + "\",modelName=\"NVIDIA A100-SXM4-40GB\"";
                Map<String, Double> series = new LinkedHashMap<>();
                series.put("hami_gpu_memory_limit_bytes{" + registered + "}", 42_949_672_960.0);
                series.put("hami_gpu_memory_allocated_bytes{" + registered + "}", 8_589_934_592.0);
                series.put("hami_gpu_core_limit_ratio{" + registered + "}", 100.0);
                series.put("hami_gpu_core_allocated_ratio{" + registered + "}", 30.0);
                series.put("hami_host_gpu_memory_used_bytes{" + card + "}", 4_294_967_296.0);
                series.put("hami_host_gpu_utilization_ratio{" + card + "}", 25.0);
                series.put("hami_observe_host_gpu_temperature_celsius{" + card + "}", 50.0);
                series.put("hami_observe_host_gpu_power_watts{" + card + "}", 200.0);
                series.put("hami_observe_vgpu_container_memory_allocated_bytes{" + share + "}", 8_589_934_592.0);
                series.put("hami_observe_container_info{namespace=\"team\",pod=\"pod-" + c
                        + "\",container_index=\"0\",container=\"main\",init=\"false\"}", 1.0);
                series.put("hami_vgpu_memory_used_bytes{" + use + "}", 3_221_225_472.0);
                series.put("hami_container_device_utilization_ratio{" + use + "}", 20.0);
                series.put("DCGM_FI_DEV_GPU_TEMP{" + dcgm + "}", 60.0);
                series.put("DCGM_FI_DEV_POWER_USAGE{" + dcgm + "}", 210.0);
                series.put("DCGM_FI_DEV_GPU_UTIL{" + dcgm + "}", 25.0);
                series.put("DCGM_FI_DEV_FB_USED{" + dcgm + "}", 4096.0);
                series.put("DCGM_FI_DEV_XID_ERRORS{" + dcgm + "}", 0.0);
                series.put("DCGM_FI_DEV_CLOCKS_EVENT_REASONS{" + dcgm + "}", 0.0);
                String npuCard = "node=\"npu-node-" + c / 4 + "\",device_uuid=\"" + npu(c) + "\"";
                series.put("hami_gpu_memory_limit_bytes{" + npuCard + ",device_index=\"" + c % 4
                        + "\",device_type=\"Ascend910B3\"}", 68_719_476_736.0);
                series.put("hami_observe_vgpu_container_memory_allocated_bytes{namespace=\"ai\",pod=\"npu-pod-" + c
                        + "\",container_index=\"0\"," + npuCard + "}", 17_179_869_184.0);
                series.put("hami_observe_container_info{namespace=\"ai\",pod=\"npu-pod-" + c
                        + "\",container_index=\"0\",container=\"main\",init=\"false\"}", 1.0);
                String chip = "vdie_id=\"" + npu(c) + "\",id=\"" + c % 4 + "\"";
                series.put("npu_chip_info_hbm_used_memory{" + chip + "}", 20_480.0);
                series.put("npu_chip_info_utilization{" + chip + "}", 55.0);
                String npuUse = chip + ",namespace=\"npu-system\",exported_namespace=\"ai\",pod_name=\"npu-pod-" + c
                        + "\",container_name=\"main\"";
                series.put("container_npu_used_memory{" + npuUse + "}", 20_480.0);
                series.put("container_npu_utilization{" + npuUse + "}", 55.0);
                for (Map.Entry<String, Double> each : series.entrySet()) {
                    for (long t = start; t <= end; t += 60) {
                        out.write(each.getKey() + " " + each.getValue() + " " + t + "\n");
                    }
                }
                for (long t = start; t <= end; t += 60) {
                    out.write("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{" + dcgm + "} " + (t - start) * 210_000.0 + " " + t
                            + "\n");
                }
            }
            out.write("# EOF\n");
        }
    }
}
