package io.hamiobserve.adapters.k8s;

import java.time.Duration;

/**
 * A heartbeat the test beats: each check runs on the test's thread, exactly when the test has seen
 * what the check is meant to notice, so no test depends on the machine keeping time.
 */
final class ManualHeartbeat implements Heartbeat {
    /** How long a check may wait for the mock API server to answer its probe. */
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private volatile Runnable check;

    @Override
    public void start(Runnable check) {
        this.check = check;
    }

    @Override
    public Duration period() {
        return PATIENCE;
    }

    @Override
    public void close() {
        check = null;
    }

    /** Runs one check now; nothing when the source has not started or has closed. */
    void beat() {
        Runnable current = check;
        if (current != null) {
            current.run();
        }
    }
}
