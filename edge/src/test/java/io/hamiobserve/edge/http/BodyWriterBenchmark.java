package io.hamiobserve.edge.http;

import java.util.Arrays;

/**
 * What the endpoint's body writer allocates for a body as long as the last one of its kind (the
 * node endpoint's 1,148,205 bytes at 8 cards and 200 containers by default), written in the text
 * writer's 64 KiB flushes, into fresh arrays and into the last body's. Run: {@code bin/bench app io.hamiobserve.edge.http.BodyWriterBenchmark [LENGTH [ROUNDS]]}.
 */
public final class BodyWriterBenchmark {
    private BodyWriterBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int length = args.length > 0 ? Integer.parseInt(args[0]) : 1_148_205;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        byte[] flush = new byte[64 * 1024];
        Arrays.fill(flush, (byte) 'x');
        // HotSpot's per-thread allocation counter, called reflectively: the module reads neither
        // java.management nor jdk.management (the benchmark runs on the class path).
        Object threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                .invoke(null);
        java.lang.reflect.Method allocatedBytes = Class.forName("com.sun.management.ThreadMXBean")
                .getMethod("getCurrentThreadAllocatedBytes");
        // Each body released before the next is written, as the endpoint does once no scrape reads it.
        for (BodyArrays arrays : new BodyArrays[] {BodyArrays.none(), new BodyArrays(BodyArrays.DEFAULT_CAPACITY)}) {
            long[] allocated = new long[rounds];
            long[] nanos = new long[rounds];
            long held = 0;
            for (int i = -200; i < rounds; i++) {
                long before = (long) allocatedBytes.invoke(threads);
                long start = System.nanoTime();
                Body.Writer writer = new Body.Writer(length, arrays);
                for (int at = 0; at < length; at += flush.length) {
                    writer.write(flush, 0, Math.min(flush.length, length - at));
                }
                writer.close();
                Body body = writer.body();
                if (i >= 0) {
                    nanos[i] = System.nanoTime() - start;
                    allocated[i] = (long) allocatedBytes.invoke(threads) - before;
                    held = body.capacity();
                }
                body.release();
            }
            Arrays.sort(allocated);
            Arrays.sort(nanos);
            System.out.printf("body of %,d bytes (hint: the same length), %s: allocated %,d bytes (%.2f MiB), "
                    + "held %,d bytes, median %.3f ms%n", length,
                    arrays.reused() == 0 ? "fresh arrays" : "the last body's arrays", allocated[rounds / 2],
                    allocated[rounds / 2] / 1048576.0, held, nanos[rounds / 2] / 1e6);
        }
    }
}
