package io.hamiobserve.edge.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BodyTest {
    @Test
    void writesBackExactlyWhatWasWrittenAcrossGrowthAndChunkBoundaries() throws IOException {
        writesBackExactly(new Body.Writer());
    }

    /** A size hint from an earlier body, smaller, near or larger than this one, never changes the bytes. */
    @ParameterizedTest
    @ValueSource(longs = {1, 70_000, Body.CHUNK - 1, Body.CHUNK, 5L * Body.CHUNK + 12_345, Long.MAX_VALUE / 2})
    void aSizeHintChangesNoByte(long expectedLength) throws IOException {
        writesBackExactly(new Body.Writer(expectedLength));
    }

    private static void writesBackExactly(Body.Writer writer) throws IOException {
        Random random = new Random(3);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        // Pieces from one byte to past a chunk, so writes straddle every boundary.
        while (expected.size() < 5 * Body.CHUNK + 12_345) {
            byte[] piece = new byte[random.nextInt(10) == 0 ? Body.CHUNK + random.nextInt(1000) : random.nextInt(5000)];
            random.nextBytes(piece);
            int offset = piece.length > 2 ? random.nextInt(piece.length / 2) : 0;
            writer.write(piece, offset, piece.length - offset);
            expected.write(piece, offset, piece.length - offset);
            if (random.nextInt(50) == 0) {
                writer.write(7);
                expected.write(7);
            }
        }
        writer.close();
        Body body = writer.body();

        ByteArrayOutputStream actual = new ByteArrayOutputStream();
        body.writeTo(actual);
        assertEquals(expected.size(), body.length());
        assertArrayEquals(expected.toByteArray(), actual.toByteArray());
    }

    /**
     * A body as long as the last one of its kind is held in arrays no larger than the prediction
     * (its length plus 1/16): no doubled array, no mostly empty last chunk, no trimming copy.
     */
    @ParameterizedTest
    @ValueSource(ints = {100, 70_000, 1_148_205, 3 * Body.CHUNK + 5})
    void aBodyLikeTheLastOneTakesNoMoreThanItsPrediction(int length) throws IOException {
        byte[] bytes = new byte[length];
        new Random(length).nextBytes(bytes);
        Body.Writer writer = new Body.Writer(length);
        for (int at = 0; at < length; at += 4096) {
            writer.write(bytes, at, Math.min(4096, length - at));
        }
        writer.close();
        Body body = writer.body();

        ByteArrayOutputStream actual = new ByteArrayOutputStream();
        body.writeTo(actual);
        assertArrayEquals(bytes, actual.toByteArray());
        long predicted = length + length / 16;
        assertTrue(body.capacity() >= length && body.capacity() <= Math.max(predicted, length),
                "holds " + body.capacity() + " bytes for " + length);
    }

    @Test
    void anEmptyBodyIsEmptyAndAClosedWriterTakesNoMore() throws IOException {
        Body.Writer writer = new Body.Writer();
        writer.close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writer.body().writeTo(out);
        assertEquals(0, writer.body().length());
        assertEquals(0, out.size());
        assertThrows(IllegalStateException.class, () -> writer.write(new byte[1], 0, 1));
        assertThrows(IllegalStateException.class, () -> new Body.Writer().body());
    }

    /** A released body's arrays make the next body like it: it allocates none, and its bytes are its own. */
    @Test
    void aReleasedBodysArraysWriteTheNextBodyAndTheReleasedOneCannotBeSentAgain() throws IOException {
        BodyArrays arrays = new BodyArrays(BodyArrays.DEFAULT_CAPACITY);
        int length = 1_148_205;
        Body first = written(arrays, length, (byte) 'a', 0);
        assertEquals(0, arrays.reused());
        first.release();
        assertTrue(first.released());
        assertTrue(arrays.keptBytes() >= length, "kept " + arrays.keptBytes());
        assertThrows(IllegalStateException.class, () -> first.writeTo(new ByteArrayOutputStream()),
                "a released body is never sent: its arrays may be another body's now");

        Body second = written(arrays, length, (byte) 'b', length);
        assertEquals(2, arrays.reused(), "a 1 MiB chunk and the rest, both taken back");
        assertEquals(0, arrays.keptBytes());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        second.writeTo(out);
        byte[] expected = new byte[length];
        java.util.Arrays.fill(expected, (byte) 'b');
        assertArrayEquals(expected, out.toByteArray());
        second.release();
        second.release();
        assertTrue(arrays.keptBytes() >= length && arrays.keptBytes() <= length + length / 16 + BodyArrays.GRANULE,
                "released twice, kept once: " + arrays.keptBytes());
    }

    @Test
    void keptArraysAreBoundedAndASmallBodyDoesNotTakeALargeOnesArray() {
        BodyArrays arrays = new BodyArrays(3 * Body.CHUNK);
        for (int i = 0; i < 5; i++) {
            arrays.giveBack(new byte[Body.CHUNK]);
        }
        assertEquals(3L * Body.CHUNK, arrays.keptBytes(), "the oldest beyond the bound are dropped");
        int small = arrays.take(100_000).length;
        assertTrue(small >= 100_000 && small < 100_000 + BodyArrays.GRANULE, "a 100 KB body gets its own array, not a 1 MiB one: " + small);
        assertEquals(0, arrays.reused());
        assertEquals(Body.CHUNK, arrays.take(Body.CHUNK - 5).length);
        assertEquals(1, arrays.reused());
        BodyArrays none = BodyArrays.none();
        none.giveBack(new byte[Body.MIN_ARRAY]);
        assertEquals(0, none.keptBytes());
    }

    private static Body written(BodyArrays arrays, int length, byte fill, long hint) throws IOException {
        Body.Writer writer = new Body.Writer(hint == 0 ? length : hint, arrays);
        byte[] piece = new byte[64 * 1024];
        java.util.Arrays.fill(piece, fill);
        for (int at = 0; at < length; at += piece.length) {
            writer.write(piece, 0, Math.min(piece.length, length - at));
        }
        writer.close();
        return writer.body();
    }
}
