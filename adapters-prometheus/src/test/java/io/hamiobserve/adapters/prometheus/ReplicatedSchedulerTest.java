package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two scheduler-side replicas (or shards holding the same cards, or a rollout's old and new pod)
 * export the same allocation view; a real Prometheus scrapes both, so every allocation series
 * arrives twice under two {@code instance} labels. The console's figures and showback's card-seconds
 * (the expressions its hourly rules record) must count each share once.
 */
class ReplicatedSchedulerTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static final String EXPOSITION = """
            # TYPE hami_gpu_memory_limit_bytes gauge
            hami_gpu_memory_limit_bytes{node="node-a",device_uuid="GPU-A0",device_index="0",device_type="NVIDIA A100"} 4.294967296e+10
            # TYPE hami_vgpu_memory_allocated_bytes gauge
            hami_vgpu_memory_allocated_bytes{namespace="ml-team",pod="llm",container_index="0",node="node-a",device_uuid="GPU-A0"} 8.589934592e+09
            hami_vgpu_memory_allocated_bytes{namespace="ml-team",pod="notebook",container_index="0",node="node-a",device_uuid="GPU-A0"} 4.294967296e+09
            hami_vgpu_memory_allocated_bytes{namespace="batch",pod="trainer",container_index="0",node="node-a",device_uuid="GPU-A0"} 1.7179869184e+10
            # TYPE hami_vgpu_core_allocated_ratio gauge
            hami_vgpu_core_allocated_ratio{namespace="ml-team",pod="llm",container_index="0",node="node-a",device_uuid="GPU-A0"} 30
            hami_vgpu_core_allocated_ratio{namespace="ml-team",pod="notebook",container_index="0",node="node-a",device_uuid="GPU-A0"} 20
            hami_vgpu_core_allocated_ratio{namespace="batch",pod="trainer",container_index="0",node="node-a",device_uuid="GPU-A0"} 50
            # TYPE hami_observe_vgpu_container_memory_allocated_bytes gauge
            hami_observe_vgpu_container_memory_allocated_bytes{namespace="ml-team",pod="llm",container_index="0",container="server",node="node-a",device_uuid="GPU-A0"} 8.589934592e+09
            hami_observe_vgpu_container_memory_allocated_bytes{namespace="ml-team",pod="notebook",container_index="0",container="jupyter",node="node-a",device_uuid="GPU-A0"} 4.294967296e+09
            hami_observe_vgpu_container_memory_allocated_bytes{namespace="batch",pod="trainer",container_index="0",container="trainer",node="node-a",device_uuid="GPU-A0"} 1.7179869184e+10
            # TYPE hami_observe_vgpu_container_core_allocated_ratio gauge
            hami_observe_vgpu_container_core_allocated_ratio{namespace="ml-team",pod="llm",container_index="0",container="server",node="node-a",device_uuid="GPU-A0"} 30
            hami_observe_vgpu_container_core_allocated_ratio{namespace="ml-team",pod="notebook",container_index="0",container="jupyter",node="node-a",device_uuid="GPU-A0"} 20
            hami_observe_vgpu_container_core_allocated_ratio{namespace="batch",pod="trainer",container_index="0",container="trainer",node="node-a",device_uuid="GPU-A0"} 50
            """;

    @Test
    void twoReplicasOfTheAllocationViewAreCountedOnce() throws Exception {
        List<ServerSocket> replicas = List.of(serve(EXPOSITION), serve(EXPOSITION));
        Map<String, Map<String, String>> targets = new LinkedHashMap<>();
        replicas.forEach(server -> targets.put("127.0.0.1:" + server.getLocalPort(), Map.of()));
        try (LocalPrometheus prometheus = LocalPrometheus.start(
                List.of(new LocalPrometheus.Job("hami-observe-scheduler", targets)), Duration.ofSeconds(1), List.of(),
                Duration.ofSeconds(60))) {
            PrometheusApi api = new PrometheusApi(prometheus.url(), Duration.ofSeconds(20));
            // Both copies are in: six allocation series for three shares.
            value(api, "count(hami_vgpu_memory_allocated_bytes)", 6, Duration.ofSeconds(30));
            assertEquals(2 * 12 * GIB, value(api, "sum(hami_vgpu_memory_allocated_bytes{namespace=\"ml-team\"})",
                    2 * 12 * GIB, Duration.ofSeconds(5)));

            PrometheusFleetHistory history = PrometheusFleetHistory.at(prometheus.url(), Duration.ofSeconds(20));
            FleetReadings now = history.readings(Instant.now(), FleetScope.EVERYTHING);
            assertEquals(3, now.allocations().size(), "one allocation per share: " + now.allocations());
            assertEquals(28 * GIB, now.allocations().stream().mapToDouble(a -> a.memory().orElseThrow()).sum());

            // Showback's card-seconds from every share, as the hourly rules record them too: the same
            // sum at the same steps, each share once (steps from when both copies were in).
            Thread.sleep(3000);
            Instant at = Instant.now();
            FleetQueries.Integral memory = FleetQueries.cardHours(RecordingRules.CLUSTER_LABEL).memory();
            assertTrue(memory.rule().contains(memory.atEachStep()), "the rule records the same expression");
            double once = only(api, memory.raw()
                    .bind(Map.of("window", Duration.ofSeconds(2), "step", Duration.ofSeconds(1), "stepSeconds", 1)),
                    at, "llm");
            double twice = only(api, new PromQl.Template("undeduplicated",
                    "sum_over_time((sum by (pod) (hami_observe_vgpu_container_memory_allocated_bytes))[2s:1s])").plain(),
                    at, "llm");
            assertTrue(once > 0);
            assertEquals(twice, 2 * once, 1e-6 * twice, "the raw sum holds both copies; the bill one");
            assertEquals(0, once % (8 * GIB), "whole steps of 8 GiB each: " + once);
        } finally {
            for (ServerSocket replica : replicas) {
                replica.close();
            }
        }
    }

    /** An endpoint answering every request with {@code exposition} (HTTP/1.0, one request per connection). */
    static ServerSocket serve(String exposition) throws IOException {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try (Socket connection = server.accept()) {
                    BufferedReader request = new BufferedReader(new InputStreamReader(connection.getInputStream(),
                            StandardCharsets.ISO_8859_1));
                    String line;
                    do {
                        line = request.readLine();
                    } while (line != null && !line.isEmpty());
                    byte[] body = exposition.getBytes(StandardCharsets.UTF_8);
                    OutputStream out = connection.getOutputStream();
                    out.write(("HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: "
                            + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.write(body);
                    out.flush();
                } catch (IOException closedOrDropped) {
                    // The test is over, or Prometheus gave up on this scrape: the next one is served anew.
                }
            }
        });
        return server;
    }

    /** The single value of {@code query} once it equals {@code expected}, or the last one seen after {@code patience}. */
    static double value(PrometheusApi api, String query, double expected, Duration patience) throws Exception {
        long deadline = System.nanoTime() + patience.toNanos();
        Optional<Double> last = Optional.empty();
        do {
            List<PrometheusApi.Sample> answer = PrometheusApi.await(api.instant(
                    new PromQl.Template("probe", query).plain(), Instant.now()));
            last = answer.size() == 1 ? Optional.of(answer.getFirst().value()) : Optional.empty();
            if (last.isPresent() && Math.abs(last.get() - expected) <= 1e-9 * Math.abs(expected)) {
                return last.get();
            }
            Thread.sleep(250);
        } while (System.nanoTime() < deadline);
        return last.orElse(Double.NaN);
    }

    private static double only(PrometheusApi api, PromQl.Query query, Instant at, String pod) throws Exception {
        List<PrometheusApi.Sample> answer = PrometheusApi.await(api.instant(query, at));
        return answer.stream().filter(sample -> sample.label("pod").equals(pod)).findFirst()
                .orElseThrow(() -> new AssertionError(query.expression() + " gave " + answer)).value();
    }
}
