package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.testkit.CacheFileImage;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.domain.Quantities;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Fuzzes the cache-file reader: mutates valid v0 and v1 files (sizes around the thresholds,
 * magic, versions, counts, statuses, UUID bytes, seqlocks, memory figures, random bytes) and
 * checks that every one is either read within bounds or rejected with a known reason, never with
 * an exception; what is read is summed into the domain's records (which refuse anything out of
 * bounds) and described by the inspector in both formats.
 *
 * <p>A mutant is the shared, never-copied base file plus a few patched bytes, so a run does not
 * copy 2 MB per file: the long run reaches 10^7 files. Run with
 * {@code bin/fuzz cachefile [--count N] [--seed S]}.
 */
public final class CacheFileFuzz {
    private static final tools.jackson.databind.ObjectMapper JSON = new tools.jackson.databind.ObjectMapper();
    static final long DEFAULT_SEED = 20_251_129L;

    private static final int[] SIZES = {0, 1, 4, 11, 12, 13, 804_681, CacheLayout.V0.procs,
            CacheLayout.V0.structSize - 1, CacheLayout.V0.structSize, CacheLayout.V0.structSize + 1,
            CacheLayout.V0.structSize + 2, CacheLayout.V1.structSize - 1, CacheLayout.V1.structSize,
            CacheLayout.V1.structSize + 1, CacheLayout.V1.structSize + 2, CacheLayout.V1.procNum};

    private CacheFileFuzz() {
    }

    /** Runs {@code count} mutants from {@code seed}; returns how often each outcome occurred. Throws on the first escape. */
    static Map<String, Integer> run(long seed, long count) {
        Random random = new Random(seed);
        byte[][] bases = {
                Images.v12(),
                Images.twoDevices(CacheFileImage.v1(0)).build().toBytes(),
                Images.twoDevices(CacheFileImage.v0()).build().toBytes(),
                many(CacheFileImage.v1(2)),
        };
        Map<String, Integer> outcomes = new TreeMap<>();
        CacheFileReader reader = new CacheFileReader();
        for (long i = 0; i < count; i++) {
            Mutant mutant = mutate(bases[random.nextInt(bases.length)], random);
            ReadResult result;
            try {
                result = reader.read(mutant);
                if (result.ok()) {
                    // The inspector's two renderings of a file cost more than reading it: every 8th is enough.
                    check(result.content(), i % 8 == 0);
                }
            } catch (Throwable e) {
                throw new AssertionError("mutant " + i + " of seed " + seed + " escaped", e);
            }
            outcomes.merge(result.ok() ? "ok" : result.reason().label(), 1, Integer::sum);
            if (result.ok()) {
                result.content().problems().forEach(p -> outcomes.merge("problem:" + p.reason().label(), 1,
                        Integer::sum));
            }
        }
        return outcomes;
    }

    private static void check(CacheFileContent content, boolean describe) {
        if (content.devices().size() > CacheLayout.MAX_DEVICES || content.slots().size() > CacheLayout.MAX_PROCS) {
            throw new AssertionError("unclamped counts");
        }
        for (CacheFileContent.Device device : content.devices()) {
            if (device.usable() && !(Quantities.isMemoryBytes(device.limitBytes())
                    && Quantities.isPercent(device.smLimitRaw()))) {
                throw new AssertionError("usable device out of bounds: " + device);
            }
        }
        // The domain's records refuse negative figures: building them is part of the check.
        List<DeviceUsage> devices = ContainerAccounting.of(content);
        for (DeviceUsage d : devices) {
            if (d.uuid().isEmpty() || d.uuid().chars().anyMatch(c -> c <= 0x20 || c >= 0x7f)) {
                throw new AssertionError("unprintable UUID: " + d);
            }
        }
        if (describe) {
            java.util.Map<String, Object> tree = CacheFileInspector.content(content);
            TextTree.text(tree);
            JSON.writeValueAsString(tree);
        }
    }

    private static byte[] many(CacheFileImage.Builder builder) {
        for (int d = 0; d < 4; d++) {
            builder.device("GPU-fuzz-" + d, Images.GIB, 25);
        }
        for (int p = 0; p < 6; p++) {
            CacheFileImage.DeviceUse use = CacheFileImage.DeviceUse.of(p, p, p, p);
            builder.process(p, p, use, use, use, use);
        }
        return builder.build().toBytes();
    }

    /** A base file seen through a few patched bytes and another size: what the reader gets, never copied whole. */
    static final class Mutant implements ByteSource {
        private static final byte[] ZEROS = new byte[1 << 16];
        private final byte[] base;
        private int size;
        /** Patches in the order written; a later one wins where two overlap. */
        private final List<long[]> patches = new ArrayList<>();

        Mutant(byte[] base) {
            this.base = base;
            this.size = base.length;
        }

        void resize(int newSize) {
            size = newSize;
        }

        void putInt(int at, int value) {
            put(at, value & 0xFFFFFFFFL, 4);
        }

        void putLong(int at, long value) {
            put(at, value, 8);
        }

        void putByte(int at, int value) {
            put(at, value & 0xFF, 1);
        }

        private void put(int at, long value, int width) {
            if (at >= 0 && at + width <= size) {
                patches.add(new long[] {at, value, width});
            }
        }

        int length() {
            return size;
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            if (position >= size) {
                return -1;
            }
            int n = (int) Math.min(dst.remaining(), size - position);
            int start = dst.position();
            int fromBase = (int) Math.max(0, Math.min(n, base.length - position));
            if (fromBase > 0) {
                dst.put(base, (int) position, fromBase);
            }
            for (int left = n - Math.max(0, fromBase); left > 0; ) {
                int chunk = Math.min(left, ZEROS.length);
                dst.put(ZEROS, 0, chunk); // a file grown past its base reads as zeros
                left -= chunk;
            }
            for (long[] patch : patches) {
                for (int b = 0; b < patch[2]; b++) {
                    long at = patch[0] + b;
                    if (at >= position && at < position + n) {
                        // Little endian, as HAMi-Core writes on every platform it runs on.
                        dst.put(start + (int) (at - position), (byte) (patch[1] >>> (8 * b)));
                    }
                }
            }
            return n;
        }
    }

    static Mutant mutate(byte[] base, Random random) {
        Mutant mutant = new Mutant(base);
        if (random.nextInt(4) == 0) {
            mutant.resize(SIZES[random.nextInt(SIZES.length)]);
        }
        boolean v1 = base.length > CacheLayout.V1.structSize - 1;
        CacheLayout layout = v1 ? CacheLayout.V1 : CacheLayout.V0;
        int mutations = 1 + random.nextInt(6);
        for (int m = 0; m < mutations; m++) {
            switch (random.nextInt(11)) {
                case 0 -> mutant.putInt(0, pick(random, CacheLayout.MAGIC, 0, 1, CacheLayout.MAGIC + 1));
                case 1 -> mutant.putInt(layout == CacheLayout.V1 ? layout.majorVersion : 4, pick(random, 0, 1, 2, -1));
                case 2 -> mutant.putInt(layout == CacheLayout.V1 ? layout.minorVersion : 8, pick(random, 0, 1, 2, 3, -1));
                case 3 -> mutant.putLong(layout.deviceNum, pickLong(random, 0, 1, 16, 17, -1L, Long.MIN_VALUE,
                        random.nextLong()));
                case 4 -> mutant.putInt(layout.procNum, pick(random, 0, 1, 1024, 1025, -1, Integer.MIN_VALUE,
                        random.nextInt()));
                case 5 -> mutant.putInt(layout.slotOffset(random.nextInt(8)) + layout.slotStatus,
                        pick(random, 0, 1, 2, 3, -1));
                case 6 -> mutant.putByte(layout.uuidOffset(random.nextInt(CacheLayout.MAX_DEVICES))
                        + random.nextInt(CacheLayout.UUID_BYTES), pick(random, 0, 0x7f, 0x80, 0xff, ' ',
                        random.nextInt(256)));
                case 7 -> mutant.putLong(layout.slotOffset(random.nextInt(8))
                        + (layout.slotSeqlock == CacheLayout.ABSENT ? 1152 : layout.slotSeqlock),
                        pickLong(random, 1, 2, 3, -1L, random.nextLong()));
                case 8 -> mutant.putLong(layout.slotOffset(random.nextInt(8)) + layout.usedOffset(random.nextInt(16),
                        random.nextInt(4)), figure(random));
                case 9 -> mutant.putLong(layout.limit + 8 * random.nextInt(CacheLayout.MAX_DEVICES), figure(random));
                default -> {
                    int region = random.nextBoolean() ? layout.procs : Math.min(mutant.length(), layout.slotOffset(8));
                    if (region > 0 && mutant.length() > 0) {
                        mutant.putByte(random.nextInt(Math.min(region, mutant.length())), random.nextInt(256));
                    }
                }
            }
        }
        return mutant;
    }

    /** A memory figure around the domain's bound, a uint64 beyond a long, or anything. */
    private static long figure(Random random) {
        return pickLong(random, -1L, Long.MAX_VALUE, Quantities.MAX_MEMORY_BYTES, Quantities.MAX_MEMORY_BYTES + 1, 0,
                random.nextLong(), random.nextLong() >>> 14);
    }

    private static int pick(Random random, int... values) {
        return values[random.nextInt(values.length)];
    }

    private static long pickLong(Random random, long... values) {
        return values[random.nextInt(values.length)];
    }

    /** A long run ({@code -Dfuzz.count}, default 10^7; {@code -Dfuzz.seed}): prints the outcome counts and the rate. */
    public static void main(String[] args) {
        long count = Long.getLong("fuzz.count", 10_000_000L);
        long seed = Long.getLong("fuzz.seed", DEFAULT_SEED);
        long start = System.nanoTime();
        Map<String, Integer> outcomes = run(seed, count);
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("cachefile: %,d files, seed %d, %.1f s (%,.0f/s), nothing escaped%n", count, seed, seconds,
                count / seconds);
        outcomes.forEach((outcome, n) -> System.out.printf("  %-28s %,d%n", outcome, n));
    }
}
