package io.hamiobserve.edge.http;

import io.helidon.http.HeaderValues;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1ConnectionListener;

import io.helidon.metrics.api.Counter;
import io.helidon.metrics.api.Metrics;
import io.helidon.metrics.api.Tag;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds what a client that does not send a request can hold, for every connection of one endpoint.
 *
 * <ul>
 *   <li><b>Read timeout.</b> A request's head (request line and headers) must arrive within the read
 *       timeout, counted from the connection's accept for its first request and from the request's
 *       first byte for later ones. A connection that sends nothing, stalls mid request line, trickles
 *       its headers or never finishes its TLS handshake is closed when it runs out.</li>
 *   <li><b>A reserve for real requests.</b> When the open connections reach the high-water mark
 *       ({@link #highWater(int)}, a little under the connection cap), each new one closes the
 *       connection that has waited longest without a request in progress. Sockets that never send
 *       a request cannot fill the cap, so a scrape is accepted at once even beside thousands of them.</li>
 * </ul>
 *
 * A connection ends after a response to a request, or a response, that says {@code Connection:
 * close} (Helidon 4.5 sends the header and waits for another request); a request already sent
 * behind it is not served. Idle keep-alive connections (a response sent, no byte of the next
 * request yet) are otherwise left
 * to Helidon's idle timeout. Helidon 4.5 applies neither bound itself: it does not set its socket
 * read timeout, and it tracks a connection for its idle timeout only after it has been identified,
 * which is after its first byte.
 */
public final class ConnectionGuard implements Http1ConnectionListener, AutoCloseable {
    static final String CLOSED_SERIES = "hami_observe_http_connections_closed";
    private static final long NONE = Long.MIN_VALUE;
    private static final ScheduledExecutorService SWEEPER = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("hami-observe-connection-guard").daemon().factory());

    private final long readTimeoutNanos;
    private final int highWater;
    private final Map<ConnectionContext, Tracked> open = new ConcurrentHashMap<>();
    private final AtomicLong timedOut = new AtomicLong();
    private final AtomicLong evicted = new AtomicLong();
    private final ScheduledFuture<?> sweep;

    public ConnectionGuard(Duration readTimeout, int maxConnections) {
        this.readTimeoutNanos = readTimeout.toNanos();
        this.highWater = highWater(maxConnections);
        long period = Math.max(25, Math.min(1000, readTimeout.toMillis() / 8));
        this.sweep = SWEEPER.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * The number of open connections from which each new one evicts the longest-waiting connection
     * without a request in progress: the cap less a reserve of 1/16 of it (between 1 and 128).
     */
    public static int highWater(int maxConnections) {
        return Math.max(1, maxConnections - Math.max(1, Math.min(128, maxConnections / 16)));
    }

    /** One open connection's place in the request cycle. */
    final class Tracked {
        private final ConnectionContext context;
        /** {@link System#nanoTime()} by which the request head must be complete, or {@link #NONE}. */
        private volatile long deadline;
        /** When the connection last started waiting for a request (the order of eviction). */
        private volatile long waitingSince;
        /** Between the end of a request's headers and the next read: the request is being answered. */
        private volatile boolean answering;
        /** The request being answered asked to close the connection after its response. */
        private volatile boolean closeAfterResponse;

        private Tracked(ConnectionContext context, long now) {
            this.context = context;
            this.deadline = now + readTimeoutNanos;
            this.waitingSince = now;
        }

        /** Called before a read that may block: a response has been sent if a request was being answered. */
        void reading() {
            if (answering) {
                answering = false;
                waitingSince = System.nanoTime();
            }
        }

        /** Called when bytes arrived: the first byte of a request starts its read timeout. */
        void arrived() {
            if (deadline == NONE && !answering) {
                deadline = System.nanoTime() + readTimeoutNanos;
            }
        }

        /** Whether the connection is to end instead of reading another request. */
        boolean closing() {
            return closeAfterResponse && !answering;
        }

        void forget() {
            open.remove(context, this);
        }

        private void close() {
            try {
                context.serverSocket().close();
            } catch (RuntimeException alreadyGone) {
                // The client went away by itself: nothing left to close.
            }
        }
    }

    /** Starts guarding a connection just accepted; may evict another one to keep the reserve free. */
    Tracked track(ConnectionContext context) {
        long now = System.nanoTime();
        Tracked tracked = new Tracked(context, now);
        open.put(context, tracked);
        while (open.size() > highWater && evictLongestWaiting(tracked)) {
            // Connections accepted at the same time may pick the same one: try until the count is down.
        }
        return tracked;
    }

    /** Closes the connection that has waited longest without a request in progress; false when there is none. */
    private boolean evictLongestWaiting(Tracked newcomer) {
        Tracked oldest = null;
        for (Tracked each : open.values()) {
            if (each != newcomer && !each.answering && (oldest == null || each.waitingSince - oldest.waitingSince < 0)) {
                oldest = each;
            }
        }
        if (oldest == null) {
            return false;
        }
        if (open.remove(oldest.context, oldest)) {
            evicted.incrementAndGet();
            ClosedCounters.EVICTED.increment();
            oldest.close();
        }
        return true;
    }

    @Override
    public void prologue(ConnectionContext context, HttpPrologue prologue) {
        Tracked tracked = open.get(context);
        if (tracked == null) {
            return;
        }
        if (tracked.closeAfterResponse) {
            // A pipelined request after the one that closed the connection: RFC 9112 §9.6 says it is not served.
            throw new CloseConnectionException("a request after Connection: close");
        }
        // A request read from bytes that were already buffered started without a read.
        tracked.arrived();
    }

    @Override
    public void headers(ConnectionContext context, Headers headers) {
        Tracked tracked = open.get(context);
        if (tracked != null) {
            tracked.deadline = NONE;
            tracked.answering = true;
            if (headers.containsToken(HeaderValues.CONNECTION_CLOSE)) {
                tracked.closeAfterResponse = true;
            }
        }
    }

    /** Listens to responses: one that says {@code Connection: close} ends its connection as a request's would. */
    public Http1ConnectionListener responses() {
        return responses;
    }

    private final Http1ConnectionListener responses = new Http1ConnectionListener() {
        @Override
        public void headers(ConnectionContext context, Headers headers) {
            Tracked tracked = open.get(context);
            if (tracked != null && headers.containsToken(HeaderValues.CONNECTION_CLOSE)) {
                tracked.closeAfterResponse = true;
            }
        }
    };

    private void sweep() {
        long now = System.nanoTime();
        open.forEach((context, tracked) -> {
            long deadline = tracked.deadline;
            if (deadline != NONE && now - deadline > 0 && open.remove(context, tracked)) {
                timedOut.incrementAndGet();
                ClosedCounters.TIMED_OUT.increment();
                tracked.close();
            }
        });
    }

    /**
     * Registers the process's counts of closed connections in Helidon's global meter registry, where
     * {@code /observe/metrics} shows them (at 0 until a close): once that registry is up, not when a
     * guard is made, since setting the registry up is the longest part of a start and a scrape of
     * {@code /metrics} needs none of it.
     */
    public static void registerMeters() {
        ClosedCounters.EVICTED.count();
    }

    /** The same closes for every endpoint of the process, at {@code /observe/metrics}; made on first use. */
    private static final class ClosedCounters {
        static final Counter TIMED_OUT = closedCounter("read_timeout");
        static final Counter EVICTED = closedCounter("evicted");
    }

    private static Counter closedCounter(String reason) {
        return Metrics.globalRegistry().getOrCreate(Counter.builder(CLOSED_SERIES)
                .description("Connections the HTTP edge closed before a request was complete: read_timeout (its head "
                        + "did not arrive within --web.read-timeout), evicted (it waited longest without a request "
                        + "when the connections neared --web.max-connections)")
                .tags(List.of(Tag.create("reason", reason))));
    }

    /** Connections open now (accepted and not yet closed). */
    public int open() {
        return open.size();
    }

    /** Connections waiting for the rest of a request's head now, under the read timeout. */
    public int pending() {
        return (int) open.values().stream().filter(tracked -> tracked.deadline != NONE).count();
    }

    /** Connections closed because their request's head did not arrive within the read timeout. */
    public long timedOut() {
        return timedOut.get();
    }

    /** Connections closed to keep the reserve free for new ones. */
    public long evicted() {
        return evicted.get();
    }

    @Override
    public void close() {
        sweep.cancel(false);
        open.clear();
    }
}
