package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Measure;
import io.hamiobserve.domain.fleet.RightSizing;
import io.hamiobserve.domain.fleet.UsageHistory;
import io.hamiobserve.testkit.FakePrometheus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A vendor's figure that is a percent of the container's allocation (mlu-exporter's memory) joins
 * every container's allocation over the whole window: on a real Prometheus, the window's queries
 * name it where its metric has a sample in the window, though gone now, and leave it out where it
 * has none, so an engine without that exporter does not join every allocation for nothing.
 */
class ExporterWindowJoinTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final String MLU = "MLU-0001";
    private static long end;
    private static LocalPrometheus prometheus;
    private static PrometheusFleetHistory history;

    @BeforeAll
    static void startPrometheus() throws Exception {
        end = (Instant.now().getEpochSecond() / 60) * 60 - 60;
        long start = end - 4 * 3600;
        prometheus = History.loaded("hami-observe-window-join", start, end, 60, series -> {
            series.series("hami_gpu_memory_limit_bytes", Map.of("node", "mlu-a", "device_uuid", MLU,
                    "device_index", "0", "device_type", "MLU"), t -> 64 * GIB);
            series.series("hami_vgpu_memory_allocated_bytes", Map.of("namespace", "mlu",
                            "pod", "serve", "container_index", "0", "node", "mlu-a", "device_uuid", MLU), t -> 16 * GIB)
                    .series("hami_observe_container_info", Map.of("namespace", "mlu", "pod", "serve",
                            "container_index", "0", "container", "c", "init", "false"), t -> 1);
            // The exporter's memory figure in the history's first hour only, 25 % of the 16 GiB; its
            // info series naming the container throughout (a window term joins it as it stands).
            series.series("mlu_memory_utilization", Map.of("uuid", MLU, "vf", "0"), start, start + 3600, t -> 25)
                    .series("mlu_container", Map.of("uuid", MLU, "vf", "0", "namespace", "mlu", "pod", "serve",
                            "container", "c"), t -> 1);
        });
        history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    private static UsageHistory usage(Duration window) throws Exception {
        return history.usage(Instant.ofEpochSecond(end), window, RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
    }

    @Test
    void aPercentOfAllocationGoneNowIsJoinedOverAWindowThatHoldsIt() throws Exception {
        UsageHistory fourHours = usage(Duration.ofHours(4));
        assertTrue(fourHours.provenance().get(Measure.EXPORTER_MEMORY_PEAK).expression()
                .contains("mlu_memory_utilization"));
        UsageHistory.ShareHistory serve = fourHours.shares().stream().filter(share -> share.pod().equals("serve"))
                .findFirst().orElseThrow();
        assertEquals(4 * GIB, serve.memoryPeak().orElseThrow());
    }

    /**
     * The window's question (which percent-of-allocation metrics have samples in it) is a help, not
     * a condition: when it fails, the window's queries name every metric, as before the question
     * existed, and the read goes on. Here an engine that answers every other query from the real
     * Prometheus fails that one (an error answer, then one that is not JSON).
     */
    @Test
    void aFailedQuestionAboutTheWindowNamesEveryMetricAndTheReadGoesOn() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        for (String failure : List.of("error", "not json")) {
            AtomicInteger asked = new AtomicInteger();
            FakePrometheus.Mode proxy = (request, out) -> {
                String line = request.lines().findFirst().orElse("");
                String body = request.substring(request.indexOf('\n') + 1);
                if (URLDecoder.decode(body, StandardCharsets.UTF_8).contains("label_replace(count(count_over_time(")) {
                    asked.incrementAndGet();
                    if (failure.equals("error")) {
                        FakePrometheus.error(503, "unavailable", "the store of that window is down").answer(request, out);
                    } else {
                        FakePrometheus.html(200).answer(request, out);
                    }
                    return;
                }
                forward(client, line, body, out);
            };
            try (FakePrometheus engine = FakePrometheus.start(proxy)) {
                PrometheusFleetHistory through = PrometheusFleetHistory.at(engine.url(), Duration.ofSeconds(20));
                UsageHistory twoHours = through.usage(Instant.ofEpochSecond(end), Duration.ofHours(2),
                        RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
                assertTrue(asked.get() > 0, "the window's question was asked");
                var peak = twoHours.provenance().get(Measure.EXPORTER_MEMORY_PEAK);
                assertTrue(peak != null && peak.expression().contains("mlu_memory_utilization"),
                        failure + ": every metric named, " + peak);
                // Named, it finds no sample in these two hours: the share has no exporter figure.
                assertTrue(twoHours.shares().stream().noneMatch(share -> share.pod().equals("serve")), failure);

                UsageHistory fourHours = through.usage(Instant.ofEpochSecond(end), Duration.ofHours(4),
                        RightSizing.MIN_HISTORY, FleetScope.EVERYTHING);
                assertEquals(4 * GIB, fourHours.shares().stream().filter(share -> share.pod().equals("serve"))
                        .findFirst().orElseThrow().memoryPeak().orElseThrow(), failure);
            }
        }
    }

    /** Sends the request line's path and the body to the real Prometheus and writes its answer back. */
    private static void forward(HttpClient client, String line, String body, OutputStream out) throws java.io.IOException {
        String[] parts = line.split(" ");
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(prometheus.url().toString().replaceAll("/$", "")
                + parts[1]));
        if (parts[0].equals("POST")) {
            builder.header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(body));
        }
        HttpResponse<String> answer;
        try {
            answer = client.send(builder.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException stopped) {
            Thread.currentThread().interrupt();
            throw new java.io.IOException(stopped);
        }
        FakePrometheus.json(answer.statusCode(), answer.body()).answer(line, out);
    }

    @Test
    void aWindowWithoutItsSamplesDoesNotJoinEveryAllocation() throws Exception {
        UsageHistory twoHours = usage(Duration.ofHours(2));
        var peak = twoHours.provenance().get(Measure.EXPORTER_MEMORY_PEAK);
        // The other vendors' own figures are still asked for; the percent and its join are not.
        assertFalse(peak != null && peak.expression().contains("mlu_memory_utilization"), String.valueOf(peak));
        assertFalse(peak != null && peak.expression().contains("hami_observe_container_info"), String.valueOf(peak));
        assertTrue(twoHours.shares().stream().noneMatch(share -> share.pod().equals("serve")));
    }
}
