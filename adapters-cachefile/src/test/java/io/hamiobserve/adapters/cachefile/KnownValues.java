package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.domain.DeviceUsage;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The values src/test/c/cachefile_layout.c writes (and the checked-in fixtures hold): a formula of
 * process p and device d. Keep in step with the C file.
 */
final class KnownValues {
    static final int DEVICES = 3;
    static final int PROCS = 5;

    private KnownValues() {
    }

    static int status(int p) {
        return p == 3 ? 0 : (p == 4 ? 2 : 1);
    }

    static long context(int p, int d) {
        return (long) (p + 1) * (d + 1) * 1000 + 1;
    }

    static long module(int p, int d) {
        return context(p, d) + 1;
    }

    static long data(int p, int d) {
        return context(p, d) * 3;
    }

    static long sm(int p, int d) {
        return (long) p * 10 + d;
    }

    static long limit(int d) {
        return (d + 1) * (1L << 30) + 12345;
    }

    static String uuid(int d) {
        return "GPU-c0ffee00-0000-4000-8000-00000000000" + d;
    }

    /** What the adapter must report for such a file. */
    static List<DeviceUsage> usage(boolean hasLastKernel) {
        List<DeviceUsage> devices = new ArrayList<>();
        for (int d = 0; d < DEVICES; d++) {
            long context = 0;
            long module = 0;
            long data = 0;
            long sm = 0;
            int live = 0;
            for (int p = 0; p < PROCS; p++) {
                if (status(p) != 0) {
                    context += context(p, d);
                    module += module(p, d);
                    data += data(p, d);
                    sm += sm(p, d);
                    live++;
                }
            }
            devices.add(new DeviceUsage(d, uuid(d), context + module + data, context, module, data, limit(d),
                    d == 0 ? 100 : d * 10L, sm, live, hasLastKernel ? 1_700_000_005L : 0));
        }
        return devices;
    }

    /** Checks every decoded field of such a file, slot by slot. */
    static void assertContent(CacheFileContent content, int minor) {
        assertEquals(777, content.ownerPid());
        assertEquals(DEVICES, content.deviceNumRaw());
        assertEquals(PROCS, content.procNumRaw());
        assertEquals(1, content.priority());
        assertEquals(List.of(), content.problems());
        assertEquals(PROCS, content.slots().size());
        for (int p = 0; p < PROCS; p++) {
            CacheFileContent.Slot slot = content.slots().get(p);
            assertEquals(1000 + p, slot.pid());
            assertEquals(2000 + p, slot.hostPid());
            assertEquals(status(p), slot.status());
            assertEquals(minor >= 2 ? 2L * p : 0, slot.seqlock());
            for (int d = 0; d < DEVICES; d++) {
                assertEquals(context(p, d), slot.contextBytes()[d]);
                assertEquals(module(p, d), slot.moduleBytes()[d]);
                assertEquals(data(p, d), slot.dataBytes()[d]);
                assertEquals(context(p, d) + module(p, d) + data(p, d), slot.totalBytes()[d]);
                assertEquals(sm(p, d), slot.smUtil()[d]);
            }
        }
        for (int d = 0; d < DEVICES; d++) {
            assertEquals(uuid(d), content.devices().get(d).uuid());
            assertEquals(limit(d), content.devices().get(d).limitBytes());
        }
    }
}
