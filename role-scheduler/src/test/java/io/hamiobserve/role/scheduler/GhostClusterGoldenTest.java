package io.hamiobserve.role.scheduler;

import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Launcher;
import io.hamiobserve.app.testing.Expositions;
import io.hamiobserve.exposition.testing.Promtool;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * {@code scheduler --snapshot ghost-cluster.yaml --once}: ghost allocations read from pods as the
 * API server prints them, through the Kubernetes adapter, to the series: the pod held past its
 * deletion, the pod whose container never ran, the crafted pod (its unreadable deletion moment
 * falls back to its creation); not the running pod nor the finished one. The whole exposition
 * equals its golden file and passes {@code promtool check metrics}.
 *
 * <p>After an intended change, regenerate with
 * {@code mvn -pl role-scheduler test -Dtest=GhostClusterGoldenTest -Dgolden.update=true} and review the diff.
 */
class GhostClusterGoldenTest {
    private static final Path DUMP = Path.of("src/test/resources/ghost-cluster.yaml");
    private static final Path GOLDEN = Path.of("src/test/resources/golden/scheduler-ghosts.prom");

    @Test
    void ghostsOfADumpMatchTheGoldenFileAndPassPromtool() throws IOException, InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Launcher.run(new Launch(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of()), "scheduler", "--snapshot",
                DUMP.toString(), "--once");
        String exposition = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        String normalised = Expositions.withoutDurations(exposition)
                .replaceAll("(?m)^hami_build_info\\{.*$", "hami_build_info{<this build>} 1.0")
                .replaceAll("(?m)^(hami_observe_ledger_last_sync_timestamp_seconds) .*$", "$1 <read time>");
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(GOLDEN, normalised);
        }
        assertEquals(Files.readString(GOLDEN), normalised, "exposition differs from " + GOLDEN);
        Promtool.assertClean(exposition);

        List<String> ghosts = exposition.lines()
                .filter(line -> line.startsWith("hami_observe_ghost_allocation_since_timestamp_seconds{"))
                .map(line -> line.replaceAll(".*pod=\"([^\"]*)\",reason=\"([^\"]*)\"} (.*)", "$1 $2 $3")).toList();
        // Series sort by their labels: the card first.
        assertEquals(List.of(
                "train-finalized deleting 1.79611563E9",
                "crafted-times deleting 1.7961138E9",
                "notebook-pull never_started 1.79611194E9"), ghosts);
        assertFalse(exposition.contains("hami_observe_skipped_inputs_total{"), "a crafted time is no skipped pod");
    }
}
