package io.hamiobserve.edge.http;

import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.edge.startup.StartupTimeline;
import io.hamiobserve.exposition.ExpositionFormat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Shares the work of concurrent scrapes. A generation is one collection of the source plus the
 * bodies rendered from it, one per (format, gzip) variant, each rendered at most once. A scrape
 * joins the current generation when the source's state stamp equals the generation's, or, for a
 * source without stamps, while the generation's collection is still running; otherwise it starts
 * a new one. Bodies are immutable, so scrapes never see each other's partial output.
 * Collection and rendering run on their own virtual threads so that a scrape can give up at its
 * deadline without abandoning the work others wait for.
 *
 * <p>A generation is held while it is current and by each scrape that {@linkplain #lease leased} it;
 * when the last hold goes, its bodies' arrays go back to {@link BodyArrays} for the next bodies.
 */
final class Renderings {
    /** The stamp of generations of a source that has none: never equal to a real stamp. */
    private static final Object UNSTAMPED = new Object();

    record Variant(ExpositionFormat format, boolean gzip) {
    }

    private record Generation(Object stamp, long startedNanos, CompletableFuture<Exposition> snapshots,
                              Map<Variant, CompletableFuture<Body>> bodies, AtomicInteger holds) {
        /** Holds this generation, unless it was replaced and every hold has gone (its bodies are released). */
        boolean hold() {
            int now;
            do {
                now = holds.get();
                if (now == 0) {
                    return false;
                }
            } while (!holds.compareAndSet(now, now + 1));
            return true;
        }

        void letGo() {
            if (holds.decrementAndGet() == 0) {
                bodies.values().forEach(body -> body.thenAccept(Body::release));
            }
        }
    }

    /** A scrape's hold on its body: the body's arrays are not reused before {@link #close()}. */
    static final class Lease implements AutoCloseable {
        private final Generation generation;
        private final CompletableFuture<Body> body;
        private boolean closed;

        private Lease(Generation generation, CompletableFuture<Body> body) {
            this.generation = generation;
            this.body = body;
        }

        CompletableFuture<Body> body() {
            return body;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                generation.letGo();
            }
        }
    }

    private final MetricsSource source;
    private final Duration abandonAfter;
    private final Executor executor = task -> Thread.ofVirtual().name("hami-observe-render").start(task);
    private final AtomicReference<Generation> current = new AtomicReference<>();
    private final AtomicLong collections = new AtomicLong();
    private final AtomicLong renderings = new AtomicLong();
    /** The length of each variant's last body: the next one is usually about as long. */
    private final Map<Variant, Long> lastLengths = new ConcurrentHashMap<>();
    private final BodyArrays arrays = new BodyArrays(BodyArrays.DEFAULT_CAPACITY);

    /**
     * @param abandonAfter a running collection older than this is not joined any more: a source that
     *                     hangs must not hold every later scrape hostage
     */
    Renderings(MetricsSource source, Duration abandonAfter) {
        this.source = source;
        this.abandonAfter = abandonAfter;
    }

    /**
     * The body for a variant, held until the lease is closed: completes with the bytes, or
     * exceptionally when collecting or rendering failed.
     */
    Lease lease(Variant variant) {
        while (true) {
            Generation generation = generation();
            if (generation.hold()) {
                return new Lease(generation, body(generation, variant));
            }
        }
    }

    /**
     * The body for a variant, not held: for waiting on a rendering, not for reading its bytes (they
     * may go to a later body once its generation is replaced).
     */
    CompletableFuture<Body> body(Variant variant) {
        return body(generation(), variant);
    }

    private CompletableFuture<Body> body(Generation generation, Variant variant) {
        return generation.bodies().computeIfAbsent(variant,
                wanted -> generation.snapshots().thenApplyAsync(exposition -> encode(exposition, wanted), executor));
    }

    /** The current generation, or a new one when it cannot be joined. */
    private Generation generation() {
        Optional<Object> stamp = source.stateStamp();
        Object key = stamp.isPresent() ? stamp.get() : UNSTAMPED;
        while (true) {
            Generation generation = current.get();
            if (generation == null || !joinable(generation, key)) {
                Generation fresh = new Generation(key, System.nanoTime(), new CompletableFuture<>(),
                        new ConcurrentHashMap<>(), new AtomicInteger(1));
                if (!current.compareAndSet(generation, fresh)) {
                    continue;
                }
                if (generation != null) {
                    generation.letGo();
                }
                collections.incrementAndGet();
                executor.execute(() -> {
                    try {
                        fresh.snapshots().complete(source.collect());
                        StartupTimeline.mark("first collection done");
                    } catch (Throwable failure) {
                        fresh.snapshots().completeExceptionally(failure);
                    }
                });
                generation = fresh;
            }
            return generation;
        }
    }

    private boolean joinable(Generation generation, Object key) {
        CompletableFuture<Exposition> snapshots = generation.snapshots();
        if (snapshots.isCompletedExceptionally()) {
            return false;
        }
        if (key == UNSTAMPED) {
            return generation.stamp() == UNSTAMPED && !snapshots.isDone()
                    && System.nanoTime() - generation.startedNanos() < abandonAfter.toNanos();
        }
        if (!key.equals(generation.stamp())) {
            return false;
        }
        return snapshots.isDone() || System.nanoTime() - generation.startedNanos() < abandonAfter.toNanos();
    }

    private Body encode(Exposition exposition, Variant variant) {
        renderings.incrementAndGet();
        try {
            Body.Writer body = new Body.Writer(lastLengths.getOrDefault(variant, 0L), arrays);
            // gzip at deflate's fastest level, as members where the exposition keeps parts of
            // itself compressed (see Exposition.writeGzip): a large exposition (126 MB at 100,000
            // containers) then compresses only what changed.
            if (variant.gzip()) {
                exposition.writeGzip(body, variant.format());
            } else {
                exposition.write(body, variant.format());
            }
            body.close();
            Body written = body.body();
            StartupTimeline.mark("first body rendered");
            lastLengths.put(variant, written.length());
            return written;
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }

    long collections() {
        return collections.get();
    }

    long renderings() {
        return renderings.get();
    }

    /** How many body arrays were reused from bodies no scrape read any more. */
    long reusedBodyArrays() {
        return arrays.reused();
    }
}
