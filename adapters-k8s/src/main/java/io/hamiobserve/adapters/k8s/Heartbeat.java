package io.hamiobserve.adapters.k8s;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * When a live source checks on its informers: every {@link #period()} on a daemon thread of its
 * own. A source's tests give it one they beat themselves, so that a check runs exactly when the
 * event it is meant to notice has happened, whatever the machine's load.
 */
interface Heartbeat extends AutoCloseable {
    /** Starts running {@code check} at every beat, never two at once. */
    void start(Runnable check);

    /** The time between two beats: also how long one check may wait for the API server. */
    Duration period();

    /** Stops the beats; a check running now is interrupted. */
    @Override
    void close();

    /** A beat every {@code period}, on a daemon thread named {@code threadName}. */
    static Heartbeat every(Duration period, String threadName) {
        long millis = Math.max(1, period.toMillis());
        return new Heartbeat() {
            private ScheduledExecutorService timer;

            @Override
            public synchronized void start(Runnable check) {
                if (timer != null) {
                    throw new IllegalStateException("already started");
                }
                timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(threadName)
                        .factory());
                timer.scheduleAtFixedRate(check, millis, millis, TimeUnit.MILLISECONDS);
            }

            @Override
            public Duration period() {
                return Duration.ofMillis(millis);
            }

            @Override
            public synchronized void close() {
                if (timer != null) {
                    timer.shutdownNow();
                }
            }
        };
    }
}
