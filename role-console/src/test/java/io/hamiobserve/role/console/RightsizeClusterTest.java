package io.hamiobserve.role.console;

import io.hamiobserve.app.testing.CommandLines;
import io.hamiobserve.testkit.FakePrometheus;
import org.junit.jupiter.api.Test;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.hamiobserve.app.testing.CommandLines.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code rightsize --cluster NAME}: every query it sends reads that cluster's series only. */
class RightsizeClusterTest {
    @Test
    void everyQueryOfOneClusterNamesIt() throws Exception {
        try (FakePrometheus fake = FakePrometheus.start(FakePrometheus.json(200, FakePrometheus.EMPTY_VECTOR))) {
            CommandLines.Outcome outcome = run("rightsize", "--prometheus", fake.url().toString(), "--cluster-label",
                    "region", "--cluster", "eu\"west");
            assertEquals(1, outcome.exit(), outcome.toString());
            assertTrue(outcome.err().contains("holds none of the exporters' series"), outcome.err());
            List<String> queries = fake.received().stream()
                    .map(body -> URLDecoder.decode(body, StandardCharsets.UTF_8))
                    .filter(body -> body.contains("hami_") && !body.contains("count by (region)")
                            && !body.contains("console_rules")).toList();
            assertFalse(queries.isEmpty());
            for (String query : queries) {
                assertTrue(query.contains("region=\"eu\\\"west\""), query);
            }
        }
        assertEquals(2, run("rightsize", "--prometheus", "http://127.0.0.1:9/", "--cluster", " ").exit());
    }
}
