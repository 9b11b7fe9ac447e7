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
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * {@code scheduler --snapshot mixed-vendor-cluster.yaml --once}: the whole exposition of a cluster
 * with a node of every vendor HAMi v2.10 schedules equals its golden file and passes
 * {@code promtool check metrics}; every vendor's cards are there, and nothing of the dump is
 * skipped. The dump is the one the vendor modules decode ({@code vendors-all}'s test resources).
 *
 * <p>After an intended change, regenerate with
 * {@code mvn -pl role-scheduler test -Dtest=MixedVendorGoldenTest -Dgolden.update=true} and review the diff.
 */
class MixedVendorGoldenTest {
    private static final Path DUMP = Path.of("../vendors-all/src/test/resources/mixed-vendor-cluster.yaml");
    private static final Path GOLDEN = Path.of("src/test/resources/golden/scheduler-mixed-vendor.prom");
    /** HAMi's CommonWords of the dump's nodes: every backend of v2.10 that the chart enables. */
    private static final Set<String> BACKENDS = Set.of("NVIDIA", "Ascend910A", "Ascend910B3", "DCU", "MLU",
            "MR-V100", "Mthreads", "Metax-GPU", "Metax-SGPU", "GCU", "Enflame", "kunlun", "XPU", "AWSNeuron", "AMD",
            "Vastai", "Biren");

    @Test
    void theWholeExpositionOfEveryVendorMatchesTheGoldenFileAndPassesPromtool()
            throws IOException, InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Launcher.run(new Launch(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of()), "scheduler", "--snapshot",
                DUMP.toString(), "--once");
        String exposition = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));

        // What differs from run to run: the build, the time the snapshot was read, how long it took.
        String normalised = Expositions.withoutDurations(exposition)
                .replaceAll("(?m)^hami_build_info\\{.*$", "hami_build_info{<this build>} 1.0")
                .replaceAll("(?m)^(hami_observe_ledger_last_sync_timestamp_seconds) .*$", "$1 <read time>");
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(GOLDEN, normalised);
        }
        assertEquals(Files.readString(GOLDEN), normalised, "exposition differs from " + GOLDEN);
        Promtool.assertClean(exposition);

        Set<String> vendors = new TreeSet<>();
        Matcher info = Pattern.compile("(?m)^hami_observe_gpu_device_info\\{.*vendor=\"([^\"]*)\"").matcher(exposition);
        while (info.find()) {
            vendors.add(info.group(1));
        }
        assertEquals(new TreeSet<>(BACKENDS), vendors);
        assertFalse(exposition.contains("hami_observe_skipped_inputs_total{"), "nothing of the dump is skipped");
        assertFalse(exposition.contains("hami_observe_unregistered_gpu_allocations 1"), "every share is on a card");
    }
}
