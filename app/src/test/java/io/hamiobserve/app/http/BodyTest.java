package io.hamiobserve.app.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
}
