package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.domain.DeviceUsage;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mutates valid v0 and v1 files (sizes around the thresholds, magic, versions, counts, statuses,
 * UUID bytes, seqlocks, random bytes) and checks that every one is either read within bounds or
 * rejected with a known reason, never with an exception.
 *
 * <p>Bounded for the suite (fixed seed, a few seconds). Run it longer with
 * {@code mvn -o -pl adapters-cachefile test -Dtest=CacheFileFuzzTest -Dcachefile.fuzz.iterations=1000000
 * -Dcachefile.fuzz.seed=42} or without Maven via {@code bin/bench adapters-cachefile
 * io.hamiobserve.adapters.cachefile.CacheFileFuzzTest ITERATIONS SEED}.
 */
class CacheFileFuzzTest {
    static final long DEFAULT_SEED = 20_251_129L;
    static final int DEFAULT_ITERATIONS = 2000;

    private static final int[] SIZES = {0, 1, 4, 11, 12, 13, 804_681, CacheLayout.V0.procs,
            CacheLayout.V0.structSize - 1, CacheLayout.V0.structSize, CacheLayout.V0.structSize + 1,
            CacheLayout.V0.structSize + 2, CacheLayout.V1.structSize - 1, CacheLayout.V1.structSize,
            CacheLayout.V1.structSize + 1, CacheLayout.V1.structSize + 2, CacheLayout.V1.procNum};

    @Test
    void noByteSequenceEscapesTheReader() throws Exception {
        long seed = Long.getLong("cachefile.fuzz.seed", DEFAULT_SEED);
        int iterations = Integer.getInteger("cachefile.fuzz.iterations", DEFAULT_ITERATIONS);
        Map<String, Integer> outcomes = run(seed, iterations);
        assertTrue(outcomes.getOrDefault("ok", 0) > iterations / 10, outcomes.toString());
        for (String expected : List.of(Reasons.BAD_MAGIC, Reasons.UNKNOWN_SIZE, Reasons.UNKNOWN_VERSION,
                "problem:" + Reasons.SLOT_UNSETTLED, "problem:" + Reasons.BAD_UUID, "problem:" + Reasons.BAD_STATUS,
                "problem:" + Reasons.DEVICE_NUM_CLAMPED, "problem:" + Reasons.PROC_NUM_CLAMPED)) {
            assertTrue(outcomes.containsKey(expected), "mutations reach " + expected + ": " + outcomes);
        }
    }

    /** Runs the fuzzer; returns how often each outcome occurred. Throws on the first escape. */
    static Map<String, Integer> run(long seed, int iterations) throws Exception {
        Random random = new Random(seed);
        byte[][] bases = {
                Images.v12(),
                Images.twoDevices(CacheFileImage.v1(0)).build().toBytes(),
                Images.twoDevices(CacheFileImage.v0()).build().toBytes(),
                many(CacheFileImage.v1(2)),
        };
        Set<String> known = knownReasons();
        Map<String, Integer> outcomes = new TreeMap<>();
        CacheFileReader reader = new CacheFileReader();
        for (int i = 0; i < iterations; i++) {
            byte[] bytes = mutate(bases[random.nextInt(bases.length)], random);
            ReadResult result;
            try {
                result = reader.read(ByteSource.of(bytes));
                if (result.ok()) {
                    check(result.content());
                } else if (!known.contains(result.reason())) {
                    throw new AssertionError("unknown reason " + result.reason());
                }
            } catch (Throwable e) {
                throw new AssertionError("iteration " + i + " of seed " + seed + " escaped", e);
            }
            outcomes.merge(result.ok() ? "ok" : result.reason(), 1, Integer::sum);
            if (result.ok()) {
                result.content().problems().forEach(p -> outcomes.merge("problem:" + p.reason(), 1, Integer::sum));
            }
        }
        return outcomes;
    }

    private static void check(CacheFileContent content) {
        if (content.devices().size() > CacheLayout.MAX_DEVICES || content.slots().size() > CacheLayout.MAX_PROCS) {
            throw new AssertionError("unclamped counts");
        }
        List<DeviceUsage> devices = ContainerAccounting.of(content);
        for (DeviceUsage d : devices) {
            if (d.usedBytes() < 0 || d.contextBytes() < 0 || d.moduleBytes() < 0 || d.bufferBytes() < 0
                    || d.limitBytes() < 0 || d.smLimitPercent() < 0 || d.smUtilPercent() < 0
                    || d.lastKernelEpochSeconds() < 0 || d.uuid().isEmpty()) {
                throw new AssertionError("out of range: " + d);
            }
        }
        CacheFileInspector.describe(content, true);
        CacheFileInspector.describe(content, false);
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

    static byte[] mutate(byte[] base, Random random) {
        byte[] bytes = random.nextInt(4) == 0 ? Images.resized(base, SIZES[random.nextInt(SIZES.length)]) : base.clone();
        boolean v1 = base.length > CacheLayout.V1.structSize - 1;
        CacheLayout layout = v1 ? CacheLayout.V1 : CacheLayout.V0;
        ByteBuffer b = Images.le(bytes);
        int mutations = 1 + random.nextInt(6);
        for (int m = 0; m < mutations; m++) {
            switch (random.nextInt(10)) {
                case 0 -> putInt(b, 0, pick(random, CacheLayout.MAGIC, 0, 1, CacheLayout.MAGIC + 1));
                case 1 -> putInt(b, layout == CacheLayout.V1 ? layout.majorVersion : 4, pick(random, 0, 1, 2, -1));
                case 2 -> putInt(b, layout == CacheLayout.V1 ? layout.minorVersion : 8, pick(random, 0, 1, 2, 3, -1));
                case 3 -> putLong(b, layout.deviceNum, pickLong(random, 0, 1, 16, 17, -1L, Long.MIN_VALUE,
                        random.nextLong()));
                case 4 -> putInt(b, layout.procNum, pick(random, 0, 1, 1024, 1025, -1, Integer.MIN_VALUE,
                        random.nextInt()));
                case 5 -> putInt(b, layout.slotOffset(random.nextInt(8)) + layout.slotStatus,
                        pick(random, 0, 1, 2, 3, -1));
                case 6 -> {
                    int at = layout.uuidOffset(random.nextInt(CacheLayout.MAX_DEVICES)) + random.nextInt(CacheLayout.UUID_BYTES);
                    if (at < bytes.length) {
                        bytes[at] = (byte) pick(random, 0, 0x7f, 0x80, 0xff, ' ', random.nextInt(256));
                    }
                }
                case 7 -> putLong(b, layout.slotOffset(random.nextInt(8))
                        + (layout.slotSeqlock == CacheLayout.ABSENT ? 1152 : layout.slotSeqlock),
                        pickLong(random, 1, 2, 3, -1L, random.nextLong()));
                case 8 -> putLong(b, layout.slotOffset(random.nextInt(8)) + layout.usedOffset(random.nextInt(16),
                        CacheLayout.USED_TOTAL), pickLong(random, -1L, Long.MAX_VALUE, random.nextLong()));
                default -> {
                    int region = random.nextBoolean() ? layout.procs : Math.min(bytes.length, layout.slotOffset(8));
                    if (region > 0 && bytes.length > 0) {
                        bytes[random.nextInt(Math.min(region, bytes.length))] = (byte) random.nextInt(256);
                    }
                }
            }
        }
        return bytes;
    }

    private static void putInt(ByteBuffer b, int at, int value) {
        if (at + 4 <= b.capacity()) {
            b.putInt(at, value);
        }
    }

    private static void putLong(ByteBuffer b, int at, long value) {
        if (at + 8 <= b.capacity()) {
            b.putLong(at, value);
        }
    }

    private static int pick(Random random, int... values) {
        return values[random.nextInt(values.length)];
    }

    private static long pickLong(Random random, long... values) {
        return values[random.nextInt(values.length)];
    }

    private static Set<String> knownReasons() throws IllegalAccessException {
        Set<String> reasons = new HashSet<>();
        for (Field field : Reasons.class.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                reasons.add((String) field.get(null));
            }
        }
        return reasons;
    }

    /** Long runs: {@code ITERATIONS [SEED]}; prints the outcome counts and the rate. */
    public static void main(String[] args) throws Exception {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : DEFAULT_SEED;
        long start = System.nanoTime();
        Map<String, Integer> outcomes = run(seed, iterations);
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("fuzz: %d iterations, seed %d, %.1f s (%.0f/s), no escapes%n", iterations, seed, seconds,
                iterations / seconds);
        outcomes.forEach((outcome, count) -> System.out.printf("  %-20s %d%n", outcome, count));
    }
}
