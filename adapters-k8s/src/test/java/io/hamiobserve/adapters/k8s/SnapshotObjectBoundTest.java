package io.hamiobserve.adapters.k8s;

import io.hamiobserve.domain.Ledger;
import io.hamiobserve.ports.SchedulerLedgerSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One object of a dump larger than an API server would ever store: refused with one line (exit 2
 * with {@code --once}), quickly, in bounded memory — not an {@code OutOfMemoryError} that kills the
 * start thread and leaves the endpoint not ready for ever.
 */
class SnapshotObjectBoundTest {
    @TempDir
    Path dir;

    private SchedulerLedgerSource.Failure failureOf(Path file) {
        Ledger ledger = new Ledger();
        SchedulerLedgerSource source = KubernetesSources.snapshot(file);
        source.start(ledger, new Fixtures.RecordingSkips());
        assertFalse(ledger.isSynced(), "a dump with an object too large must not give a synced ledger");
        SchedulerLedgerSource.Failure failure = source.failure().orElseThrow();
        assertFalse(failure.retrying(), "a refused file is refused for good (exit 2 with --once)");
        assertFalse(failure.message().contains("\n"), failure.message());
        return failure;
    }

    @Test
    void aPodWithMillionsOfAnnotationKeysIsRefused() throws IOException {
        Path file = dir.resolve("annotations.json");
        try (BufferedWriter out = Files.newBufferedWriter(file)) {
            out.write("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\","
                    + "\"metadata\":{\"name\":\"n1\"}},{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
                    + "\"namespace\":\"ns\",\"annotations\":{");
            for (int i = 0; i < 2_000_000; i++) {
                out.write((i == 0 ? "" : ",") + "\"k" + i + "\":\"v\"");
            }
            out.write("}}}]}");
        }
        assertTrue(Files.size(file) > 25_000_000);
        long started = System.nanoTime();
        String message = failureOf(file).message();
        assertTrue(message.contains("object 2 (in document 1) is larger than 4 MiB"), message);
        assertTrue((System.nanoTime() - started) / 1e9 < 10, "took " + (System.nanoTime() - started) / 1e9 + " s");
    }

    @Test
    void aTwentyMebibyteYamlScalarIsRefusedQuickly() throws IOException {
        Path file = dir.resolve("scalar.yaml");
        try (BufferedWriter out = Files.newBufferedWriter(file)) {
            out.write("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    big: ");
            String chunk = "x".repeat(1 << 16);
            for (int i = 0; i < 320; i++) {
                out.write(chunk);
            }
            out.write("\n");
        }
        long started = System.nanoTime();
        String message = failureOf(file).message();
        double seconds = (System.nanoTime() - started) / 1e9;
        assertTrue(message.contains("is larger than 4 MiB"), message);
        // It took 93 s before: SnakeYAML scanned all 20 MiB (a few seconds per MiB on a busy machine).
        // Now it stops after 4 MiB, and its larger buffer scans those about three times faster.
        assertTrue(seconds < 20, "a 20 MiB scalar took " + seconds + " s to refuse");
    }
}
