package io.hamiobserve.app.http;

import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1ConnectionListener;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Closes connections whose client sent a request line but not its headers within the read
 * timeout (a slow-loris client). Helidon 4.5 does not apply its socket read timeout, and its idle
 * check does not interrupt a read in progress, so this closes the socket itself, which ends the
 * blocked read. Idle keep-alive connections are left to Helidon's idle timeout.
 */
public final class SlowRequestGuard implements Http1ConnectionListener, AutoCloseable {
    private static final ScheduledExecutorService SWEEPER = Executors.newSingleThreadScheduledExecutor(daemon());

    private final long timeoutNanos;
    /** Connections between their request line and the end of their headers, with the time the line arrived. */
    private final Map<ConnectionContext, Long> pending = new ConcurrentHashMap<>();
    private final ScheduledFuture<?> sweep;

    public SlowRequestGuard(Duration readTimeout) {
        this.timeoutNanos = readTimeout.toNanos();
        long period = Math.max(50, Math.min(1000, readTimeout.toMillis() / 4));
        this.sweep = SWEEPER.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.MILLISECONDS);
    }

    @Override
    public void prologue(ConnectionContext context, HttpPrologue prologue) {
        pending.put(context, System.nanoTime());
    }

    @Override
    public void headers(ConnectionContext context, Headers headers) {
        pending.remove(context);
    }

    private void sweep() {
        long now = System.nanoTime();
        pending.forEach((context, started) -> {
            if (now - started > timeoutNanos && pending.remove(context, started)) {
                try {
                    context.serverSocket().close();
                } catch (RuntimeException alreadyGone) {
                    // The client went away by itself: nothing left to close.
                }
            }
        });
    }

    /** Connections waiting for their headers now. */
    public int pending() {
        return pending.size();
    }

    @Override
    public void close() {
        sweep.cancel(false);
        pending.clear();
    }

    private static ThreadFactory daemon() {
        return task -> {
            Thread thread = new Thread(task, "hami-observe-slow-requests");
            thread.setDaemon(true);
            return thread;
        };
    }
}
