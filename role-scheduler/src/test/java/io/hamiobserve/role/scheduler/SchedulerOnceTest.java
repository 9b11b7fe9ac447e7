package io.hamiobserve.role.scheduler;

import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Launcher;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code scheduler --once} against a cluster that cannot be reached does not hang: it gives up
 * after its bounded wait (60 s in the product, 3 s here) with one line naming why, and exit 1.
 */
class SchedulerOnceTest {
    private final Map<String, String> saved = new HashMap<>();

    private void setProperty(String key, String value) {
        saved.put(key, System.getProperty(key));
        System.setProperty(key, value);
    }

    @AfterEach
    void restore() {
        saved.forEach((key, value) -> {
            if (value == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, value);
            }
        });
    }

    @Test
    void anUnreachableClusterEndsInOneLineAndExitOneWithinTheBound() {
        // fabric8's documented system properties: an API server on a port nothing listens on.
        setProperty("kubernetes.master", "https://127.0.0.1:9");
        setProperty("kubernetes.auth.tryKubeConfig", "false");
        setProperty("kubernetes.auth.tryServiceAccount", "false");
        setProperty("kubernetes.request.retry.backoffLimit", "0");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long started = System.nanoTime();
        int exit = Launcher.run(new Launch(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of()), "scheduler", "--once",
                "--sync-timeout", "3s");
        double seconds = (System.nanoTime() - started) / 1e9;

        assertEquals(1, exit);
        assertTrue(seconds < 20, "gave up after " + seconds + " s");
        String message = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, message.lines().count(), message);
        assertTrue(message.startsWith("hami-observe: the ledger did not sync within 3 s: cannot list or watch "),
                message);
        assertTrue(message.contains("https://127.0.0.1:9/"), message);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }
}
