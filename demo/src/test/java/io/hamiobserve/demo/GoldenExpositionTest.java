package io.hamiobserve.demo;

import io.hamiobserve.app.testing.Expositions;
import io.hamiobserve.exposition.testing.Promtool;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.edge.http.MetricsSource;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Each endpoint's whole exposition for the fixed demo state equals its checked-in golden file,
 * and {@code promtool check metrics} finds nothing wrong with it.
 *
 * <p>After an intended change, regenerate with
 * {@code mvn -pl app test -Dtest=GoldenExpositionTest -Dgolden.update=true} and review the diff.
 */
class GoldenExpositionTest {
    private static final Path GOLDEN = Path.of("src/test/resources/golden");

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "allocation.prom, allocation, false, PROMETHEUS_TEXT",
            "allocation-legacy.prom, allocation, true, PROMETHEUS_TEXT",
            "allocation.openmetrics, allocation, false, OPENMETRICS_TEXT",
            "usage-gpu-node-a.prom, gpu-node-a, false, PROMETHEUS_TEXT",
            "usage-gpu-node-a-legacy.prom, gpu-node-a, true, PROMETHEUS_TEXT",
            "usage-gpu-node-b.prom, gpu-node-b, false, PROMETHEUS_TEXT",
            "usage-gpu-node-b.openmetrics, gpu-node-b, false, OPENMETRICS_TEXT",
    })
    void expositionMatchesGoldenAndPassesPromtool(String file, String role, boolean legacy, ExpositionFormat format,
                                                  @TempDir Path cacheRoot) throws IOException, InterruptedException {
        MetricsSource source = role.equals("allocation")
                ? Fixtures.allocation(legacy)
                : Fixtures.usage(role.equals("gpu-node-a") ? DemoCluster.NODE_A : DemoCluster.NODE_B, legacy, cacheRoot);
        String exposition = Expositions.render(source, format);
        String normalised = Expositions.withoutDurations(exposition);

        Path golden = GOLDEN.resolve(file);
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(golden, normalised);
        }
        assertEquals(Files.readString(golden), normalised, "exposition differs from " + golden);

        if (format == ExpositionFormat.PROMETHEUS_TEXT) {
            Promtool.assertClean(exposition);
        }
    }
}
