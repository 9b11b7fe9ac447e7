package io.hamiobserve.app.http;

import io.hamiobserve.app.exposition.Exposition;
import io.hamiobserve.app.startup.StartupTimeline;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * Shares the work of concurrent scrapes. A generation is one collection of the source plus the
 * bodies rendered from it, one per (format, gzip) variant, each rendered at most once. A scrape
 * joins the current generation when the source's state stamp equals the generation's, or, for a
 * source without stamps, while the generation's collection is still running; otherwise it starts
 * a new one. Bodies are immutable, so scrapes never see each other's partial output.
 * Collection and rendering run on their own virtual threads so that a scrape can give up at its
 * deadline without abandoning the work others wait for.
 */
final class Renderings {
    /** The stamp of generations of a source that has none: never equal to a real stamp. */
    private static final Object UNSTAMPED = new Object();

    record Variant(ExpositionFormat format, boolean gzip) {
    }

    private record Generation(Object stamp, long startedNanos, CompletableFuture<Exposition> snapshots,
                              Map<Variant, CompletableFuture<Body>> bodies) {
    }

    private final MetricsSource source;
    private final Duration abandonAfter;
    private final Executor executor = task -> Thread.ofVirtual().name("hami-observe-render").start(task);
    private final AtomicReference<Generation> current = new AtomicReference<>();
    private final AtomicLong collections = new AtomicLong();
    private final AtomicLong renderings = new AtomicLong();
    /** The length of each variant's last body: the next one is usually about as long. */
    private final Map<Variant, Long> lastLengths = new ConcurrentHashMap<>();

    /**
     * @param abandonAfter a running collection older than this is not joined any more: a source that
     *                     hangs must not hold every later scrape hostage
     */
    Renderings(MetricsSource source, Duration abandonAfter) {
        this.source = source;
        this.abandonAfter = abandonAfter;
    }

    /** The body for a variant: completes with the bytes, or exceptionally when collecting or rendering failed. */
    CompletableFuture<Body> body(Variant variant) {
        Optional<Object> stamp = source.stateStamp();
        Object key = stamp.isPresent() ? stamp.get() : UNSTAMPED;
        while (true) {
            Generation generation = current.get();
            if (generation == null || !joinable(generation, key)) {
                Generation fresh = new Generation(key, System.nanoTime(), new CompletableFuture<>(),
                        new ConcurrentHashMap<>());
                if (!current.compareAndSet(generation, fresh)) {
                    continue;
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
            Generation chosen = generation;
            return chosen.bodies().computeIfAbsent(variant,
                    wanted -> chosen.snapshots().thenApplyAsync(exposition -> encode(exposition, wanted), executor));
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
            Body.Writer body = new Body.Writer(lastLengths.getOrDefault(variant, 0L));
            if (variant.gzip()) {
                try (GZIPOutputStream zipped = new FastGzip(body)) {
                    exposition.write(zipped, variant.format().writer());
                }
            } else {
                exposition.write(body, variant.format().writer());
                body.close();
            }
            Body written = body.body();
            StartupTimeline.mark("first body rendered");
            lastLengths.put(variant, written.length());
            return written;
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }

    /**
     * gzip at its fastest level: a large exposition (68 MB at 100,000 containers) compresses in a
     * third of the default level's time to a body still about a tenth of its size, and the
     * compressed body is rendered once per state and then served to every scrape.
     */
    private static final class FastGzip extends GZIPOutputStream {
        FastGzip(OutputStream out) throws IOException {
            super(out, 64 * 1024);
            def.setLevel(Deflater.BEST_SPEED);
        }
    }

    long collections() {
        return collections.get();
    }

    long renderings() {
        return renderings.get();
    }
}
