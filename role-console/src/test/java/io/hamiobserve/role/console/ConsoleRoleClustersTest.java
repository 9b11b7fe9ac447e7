package io.hamiobserve.role.console;

import io.hamiobserve.adapters.prometheus.PrometheusFleetHistory;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.testkit.FakePrometheus;
import org.junit.jupiter.api.Test;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The console role's observed history passes the clusters and one cluster's reads through. */
class ConsoleRoleClustersTest {
    private static final String TWO_CLUSTERS = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
            + "{\"metric\":{\"cluster\":\"east\"},\"value\":[1,\"1\"]},"
            + "{\"metric\":{\"cluster\":\"west\"},\"value\":[1,\"1\"]}]}}";

    @Test
    void theObservedHistoryNamesTheClustersAndReadsOneOfThem() throws Exception {
        try (FakePrometheus fake = FakePrometheus.start(FakePrometheus.json(200, TWO_CLUSTERS))) {
            FleetHistory observed = new ConsoleRole(BuildInfo.current())
                    .observe(PrometheusFleetHistory.at(fake.url(), Duration.ofSeconds(5)));
            observed.readings(Instant.now(), FleetScope.CARDS_ONLY);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (observed.clusters().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(List.of("east", "west"), observed.clusters());
            int before = fake.received().size();
            observed.inCluster("east").readings(Instant.now(), FleetScope.CARDS_ONLY);
            List<String> queries = fake.received().subList(before, fake.received().size()).stream()
                    .map(body -> URLDecoder.decode(body, StandardCharsets.UTF_8))
                    .filter(body -> body.contains("hami_gpu_memory_limit_bytes")).toList();
            assertTrue(!queries.isEmpty() && queries.stream().allMatch(q -> q.contains("cluster=\"east\"")),
                    queries.toString());
        }
    }
}
