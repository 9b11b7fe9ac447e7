package io.hamiobserve.edge.testing;

import io.hamiobserve.edge.http.MetricsSource;
import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.edge.Servers;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A source for edge tests: counts its collections, can hold them until released, and serves
 * {@code edge_test_collection} = the number of the collection that produced the exposition.
 */
public class EdgeTestSource implements MetricsSource, AutoCloseable {
    public final AtomicInteger collections = new AtomicInteger();
    public final CountDownLatch entered = new CountDownLatch(1);
    private final AtomicReference<Optional<Object>> stamp;
    private volatile CountDownLatch gate = new CountDownLatch(0);
    public volatile boolean closed;
    public volatile Runnable onClose = () -> { };

    public EdgeTestSource(Optional<Object> stamp) {
        this.stamp = new AtomicReference<>(stamp);
    }

    public static EdgeTestSource uncached() {
        return new EdgeTestSource(Optional.empty());
    }

    public static EdgeTestSource stamped(Object stamp) {
        return new EdgeTestSource(Optional.of(stamp));
    }

    /** Collections from now on wait until {@link #release()}. */
    public EdgeTestSource hold() {
        gate = new CountDownLatch(1);
        return this;
    }

    public void release() {
        gate.countDown();
    }

    public void restamp(Object value) {
        stamp.set(Optional.of(value));
    }

    @Override
    public Optional<Object> stateStamp() {
        return stamp.get();
    }

    @Override
    public Exposition collect() {
        int number = collections.incrementAndGet();
        entered.countDown();
        try {
            if (!gate.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never released the collection");
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        return Exposition.of(MetricSnapshots.of(GaugeSnapshot.builder().name("edge_test_collection").help("which collection")
                .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(number).build()).build()));
    }

    @Override
    public boolean ready() {
        return true;
    }

    @Override
    public String notReadyReason() {
        return "";
    }

    @Override
    public void close() {
        onClose.run();
        closed = true;
    }

    /** Waits until {@code count} scrapes are in flight at the endpoint (at most 10 s), then checks it. */
    public static void awaitInFlight(Servers.Served served, int count) throws InterruptedException {
        long end = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
        while (served.endpoint().inFlight() < count && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        org.junit.jupiter.api.Assertions.assertEquals(count, served.endpoint().inFlight(), "scrapes in flight");
    }
}
