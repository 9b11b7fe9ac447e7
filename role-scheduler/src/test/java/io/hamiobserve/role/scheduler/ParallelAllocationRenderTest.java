package io.hamiobserve.role.scheduler;

import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.NodeStamps;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.exposition.Families;
import io.hamiobserve.exposition.FamilyDecorator;
import io.hamiobserve.exposition.FamilySelection;
import io.hamiobserve.exposition.RenderCache;
import io.hamiobserve.exposition.SegmentedExposition;
import io.hamiobserve.exposition.testing.CountingSegments;
import io.hamiobserve.exposition.testing.GzipMemberReader;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.DataFormatException;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster large enough that a scrape renders its changed segments in parallel and compresses each
 * as it is rendered (a section of many segments): after random events, single and in bursts that
 * touch dozens of nodes, the body a stamp-keyed cache writes compressed, gunzipped, equals a
 * rendering from scratch made on one thread, byte for byte, in both formats, whole and sharded.
 */
class ParallelAllocationRenderTest {
    private static final Families NO_TAIL = new Families();
    /** More nodes than a scrape renders in parallel from (256), so that a burst of events makes it do so. */
    private static final int NODES = 300;

    private final AtomicLong rendered = new AtomicLong();

    private SegmentedExposition exposition(Ledger.StampedView stamped, NodeStamps stamps, Shard shard, boolean legacy,
                                           RenderCache cache) {
        SegmentedExposition exposition = new SegmentedExposition(cache,
                legacy ? AllocationMetrics.LEGACY_NAMES : FamilyDecorator.NONE, FamilySelection.ALL);
        AllocationMetrics.describe(stamped.view(), stamps, shard, ContainerSeries.POD_EFFECTIVE,
                new CountingSegments(exposition, rendered));
        exposition.append(NO_TAIL);
        return exposition;
    }

    /**
     * A rendering from scratch, keyed by records, on a pool of one thread: a parallel stream started
     * there runs its parts one after the other on that thread.
     */
    private String serialFromScratch(Ledger.StampedView stamped, Shard shard, boolean legacy, ExpositionFormat format)
            throws Exception {
        ForkJoinPool one = new ForkJoinPool(1);
        try {
            return one.submit(() -> {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                exposition(stamped, null, shard, legacy, new RenderCache()).write(out, format);
                return out.toString(StandardCharsets.UTF_8);
            }).get();
        } catch (ExecutionException failed) {
            throw new AssertionError(failed.getCause());
        } finally {
            one.shutdown();
        }
    }

    @Test
    void afterRandomEventsTheParallelCompressedBodyIsTheSerialRenderingFromScratch() throws Exception {
        long mostRendered = 0;
        int mostPieces = 0;
        for (long seed = 1; seed <= 3; seed++) {
            RandomCluster cluster = new RandomCluster(seed, NODES);
            Ledger ledger = cluster.ledger(2 * NODES);
            boolean legacy = seed % 2 == 0;
            List<Shard> shards = seed % 3 == 0 ? List.of(new Shard(0, 2), new Shard(1, 2)) : List.of(Shard.ALL);
            List<RenderCache> kept = new ArrayList<>();
            shards.forEach(shard -> kept.add(new RenderCache()));
            for (int step = 0; step < 5; step++) {
                // Bursts that touch most nodes (rendered in parallel) between single events.
                cluster.change(ledger, step % 3 == 0 ? 600 : 1);
                Ledger.StampedView stamped = ledger.stampedView();
                for (int i = 0; i < shards.size(); i++) {
                    for (ExpositionFormat format : ExpositionFormat.values()) {
                        String expected = serialFromScratch(stamped, shards.get(i), legacy, format);
                        long before = rendered.get();
                        ByteArrayOutputStream body = new ByteArrayOutputStream();
                        exposition(stamped, stamped.stamps(), shards.get(i), legacy, kept.get(i))
                                .writeGzip(body, format);
                        mostRendered = Math.max(mostRendered, rendered.get() - before);
                        mostPieces = Math.max(mostPieces, pieces(body.toByteArray()));
                        String context = "seed " + seed + ", step " + step + ", " + shards.get(i) + ", " + format;
                        assertEquals(expected, gunzip(body.toByteArray()), context);
                        // The same cache written uncompressed (members inflated) says the same.
                        ByteArrayOutputStream plain = new ByteArrayOutputStream();
                        exposition(stamped, stamped.stamps(), shards.get(i), legacy, kept.get(i)).write(plain, format);
                        assertEquals(expected, plain.toString(StandardCharsets.UTF_8), context + ", uncompressed");
                    }
                }
            }
        }
        // The paths under test were taken: many segments rendered in one scrape, a body of pieces.
        assertTrue(mostRendered >= 256, "at most " + mostRendered + " segments rendered in a scrape");
        assertTrue(mostPieces >= 2 * NODES, "at most " + mostPieces + " deflate pieces in a body");
    }

    private static String gunzip(byte[] body) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * The deflate pieces of a body of one gzip member: each piece compressed apart ends with a sync
     * flush's empty stored block, whose last four bytes are 00 00 FF FF (a stream compressed whole
     * has them only by chance, about once in 4 GB).
     */
    private static int pieces(byte[] body) throws DataFormatException {
        if (GzipMemberReader.members(body).size() != 1) {
            throw new AssertionError("a body of more than one gzip member");
        }
        int pieces = 0;
        for (int i = 3; i < body.length; i++) {
            if (body[i - 3] == 0 && body[i - 2] == 0 && body[i - 1] == (byte) 0xff && body[i] == (byte) 0xff) {
                pieces++;
            }
        }
        return pieces;
    }
}
