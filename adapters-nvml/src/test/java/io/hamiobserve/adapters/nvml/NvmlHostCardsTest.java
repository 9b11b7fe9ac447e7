package io.hamiobserve.adapters.nvml;

import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.HostCardReading.CardProcess;
import io.hamiobserve.ports.HostCardSource;
import io.hamiobserve.ports.SkipReporter;
import io.hamiobserve.ports.SourceUnavailableException;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NvmlHostCardsTest extends FakeDriverTestBase {
    private static final String T4 = FakeNvml.card("GPU-cccccccc-0000-0000-0000-000000000002", "Tesla T4",
            15 * GIB, 0, 0, 0, 30, 9_800, "00000000:86:00.0");

    private NvmlHostCards open() {
        return open(fake, Duration.ofSeconds(5), Duration.ZERO);
    }

    @Test
    void readsEveryCardWithItsOwnFigures() throws Exception {
        fake.script(A100 + H100 + T4);

        List<HostCardReading> cards = open().read(reporter);

        assertEquals(3, cards.size());
        HostCardReading a100 = cards.get(0);
        assertEquals(0, a100.index());
        assertEquals("GPU-aaaaaaaa-0000-0000-0000-000000000000", a100.uuid());
        assertEquals("NVIDIA-NVIDIA A100-SXM4-40GB", a100.deviceType());
        assertEquals(OptionalLong.of(3 * GIB), a100.memoryUsedBytes());
        assertEquals(OptionalLong.of(40 * GIB), a100.memoryTotalBytes());
        assertEquals(OptionalDouble.of(35), a100.gpuUtilPercent());
        assertEquals(OptionalDouble.of(12), a100.memoryControllerUtilPercent());
        assertEquals(OptionalDouble.of(41), a100.temperatureCelsius());
        assertEquals(OptionalDouble.of(215.5), a100.powerWatts());
        assertEquals(Optional.of("00000000:07:00.0"), a100.pciBusId());
        assertEquals(Optional.of(List.of()), a100.processes());

        HostCardReading h100 = cards.get(1);
        assertEquals(1, h100.index());
        assertEquals("NVIDIA H100 80GB HBM3", h100.name());
        assertEquals(OptionalLong.of(70 * GIB), h100.memoryUsedBytes());
        assertEquals(OptionalDouble.of(97), h100.gpuUtilPercent());
        assertEquals(OptionalDouble.of(612.0), h100.powerWatts());
        assertEquals(Optional.of("00000000:3B:00.0"), h100.pciBusId());

        assertEquals("Tesla T4", cards.get(2).name());
        assertEquals(OptionalLong.of(0), cards.get(2).memoryUsedBytes());
        assertEquals(List.of(), skips);
    }

    @Test
    void notSupportedFieldsAreLeftOutQuietly() throws Exception {
        fake.script(A100 + H100 + "fail temperature 3 0\nfail power 3\nfail pci 3 1\nfail utilization 3 1\n");

        List<HostCardReading> cards = open().read(reporter);

        assertEquals(2, cards.size());
        assertEquals(OptionalDouble.empty(), cards.get(0).temperatureCelsius());
        assertEquals(OptionalDouble.empty(), cards.get(0).powerWatts());
        assertEquals(OptionalDouble.of(35), cards.get(0).gpuUtilPercent());
        assertEquals(Optional.of("00000000:07:00.0"), cards.get(0).pciBusId());
        assertEquals(OptionalDouble.of(66), cards.get(1).temperatureCelsius());
        assertEquals(OptionalDouble.empty(), cards.get(1).gpuUtilPercent());
        assertEquals(OptionalDouble.empty(), cards.get(1).memoryControllerUtilPercent());
        assertEquals(Optional.empty(), cards.get(1).pciBusId());
        assertEquals(OptionalLong.of(70 * GIB), cards.get(1).memoryUsedBytes());
        assertEquals(List.of(), skips);
    }

    @Test
    void otherFieldErrorsLeaveTheFieldOutAndAreReported() throws Exception {
        fake.script(A100 + H100 + "fail memory 4 1\nfail name 999 0\n");

        List<HostCardReading> cards = open().read(reporter);

        assertEquals(2, cards.size());
        assertEquals("", cards.get(0).name());
        assertEquals(OptionalLong.of(3 * GIB), cards.get(0).memoryUsedBytes());
        assertEquals(OptionalLong.empty(), cards.get(1).memoryUsedBytes());
        assertEquals(OptionalLong.empty(), cards.get(1).memoryTotalBytes());
        assertEquals(OptionalDouble.of(97), cards.get(1).gpuUtilPercent());
        assertEquals(List.of(
                "nvml/field/unknown/card 0 GPU-aaaaaaaa-0000-0000-0000-000000000000 name",
                "nvml/field/no_permission/card 1 GPU-bbbbbbbb-0000-0000-0000-000000000001 memory"), skips);
    }

    @Test
    void aFailingCardNeverRemovesTheOthers() throws Exception {
        fake.script(A100 + H100 + T4 + "fail handle 15 1\n");
        NvmlHostCards source = open();

        List<HostCardReading> cards = source.read(reporter);

        assertEquals(List.of(0, 2), cards.stream().map(HostCardReading::index).toList());
        assertEquals(List.of("nvml/device/gpu_is_lost/card 1"), skips);

        skips.clear();
        fake.script(A100 + H100 + T4 + "fail memory 15 2\nfail uuid 14 0\n");
        cards = source.read(reporter);
        assertEquals(List.of(1), cards.stream().map(HostCardReading::index).toList());
        assertEquals(List.of("nvml/device/corrupted_inforom/card 0",
                "nvml/device/gpu_is_lost/card 2 GPU-cccccccc-0000-0000-0000-000000000002"), skips);
    }

    @Test
    void listsComputeProcessesAndGrowsItsBufferWhenTheDriverAsks() throws Exception {
        StringBuilder many = new StringBuilder("procs 1");
        for (int pid = 5000; pid < 5040; pid++) {
            many.append(' ').append(pid).append(':').append(pid * 1024L);
        }
        fake.script(A100 + H100 + "procs 0 4242:1073741824 77:na\n" + many + "\n");

        List<HostCardReading> cards = open().read(reporter);

        // The fake holds no utilisation samples: the driver's NOT_FOUND, no process used the SMs.
        assertEquals(Optional.of(List.of(new CardProcess(4242, OptionalLong.of(GIB), OptionalDouble.of(0)),
                        new CardProcess(77, OptionalLong.empty(), OptionalDouble.of(0)))),
                cards.get(0).processes());
        List<CardProcess> listed = cards.get(1).processes().orElseThrow();
        assertEquals(40, listed.size());
        assertEquals(new CardProcess(5039, OptionalLong.of(5039 * 1024L), OptionalDouble.of(0)), listed.get(39));
        assertEquals(List.of(), skips);
    }

    @Test
    void olderDriversListProcessesThroughV2() throws Exception {
        FakeNvml old = FakeNvml.create(FakeNvml.WITHOUT_V3, dir);
        old.script(A100 + "procs 0 31337:2048\n");

        List<HostCardReading> cards = open(old, Duration.ofSeconds(5), Duration.ZERO).read(reporter);

        assertEquals(Optional.of(List.of(new CardProcess(31337, OptionalLong.of(2048), OptionalDouble.of(0)))),
                cards.get(0).processes());
    }

    @Test
    void initialisesOnceAndShutsDownOnClose() throws Exception {
        fake.script(A100);
        int inits = fake.initCalls();
        int shutdowns = fake.shutdownCalls();
        int refcount = fake.refcount();
        Set<Thread> before = nvmlThreads();
        NvmlHostCards source = open();
        Thread worker = onlyNewThread(before);

        for (int i = 0; i < 3; i++) {
            assertEquals(1, source.read(reporter).size());
        }
        assertEquals(inits + 1, fake.initCalls());
        assertEquals(refcount + 1, fake.refcount());

        source.close();
        assertEquals(shutdowns + 1, fake.shutdownCalls());
        assertEquals(refcount, fake.refcount());
        worker.join(1000);
        assertFalse(worker.isAlive(), "the worker thread ends after close");
        SourceUnavailableException closed = assertThrows(SourceUnavailableException.class, () -> source.read(reporter));
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
        source.close();
        assertEquals(shutdowns + 1, fake.shutdownCalls());
    }

    @Test
    void initFailureNamesTheErrorAndIsRetriedLater() throws Exception {
        fake.script(A100 + "fail init 9\n");
        NvmlHostCards source = open();

        SourceUnavailableException failed = assertThrows(SourceUnavailableException.class, () -> source.read(reporter));
        assertTrue(failed.getMessage().contains("nvmlInit_v2 failed: DRIVER_NOT_LOADED (9)"), failed.getMessage());

        fake.script(A100);
        assertEquals(1, source.read(reporter).size());
    }

    @Test
    void initIsNotRetriedBeforeTheBackOffHasPassed() throws Exception {
        fake.script(A100 + "fail init 18\n");
        NvmlHostCards source = open(fake, Duration.ofSeconds(5), Duration.ofHours(1));
        assertThrows(SourceUnavailableException.class, () -> source.read(reporter));
        int inits = fake.initCalls();

        fake.script(A100);
        SourceUnavailableException failed = assertThrows(SourceUnavailableException.class, () -> source.read(reporter));

        assertTrue(failed.getMessage().contains("LIB_RM_VERSION_MISMATCH (18)"), failed.getMessage());
        assertEquals(inits, fake.initCalls());
    }

    @Test
    void aFailingDeviceCountFailsTheReadAndReinitialises() throws Exception {
        fake.script(A100 + "fail count 999\n");
        NvmlHostCards source = open();
        SourceUnavailableException failed = assertThrows(SourceUnavailableException.class, () -> source.read(reporter));
        assertTrue(failed.getMessage().contains("nvmlDeviceGetCount_v2 failed: UNKNOWN (999)"), failed.getMessage());
        int inits = fake.initCalls();

        fake.script(A100);
        assertEquals(1, source.read(reporter).size());
        assertEquals(inits + 1, fake.initCalls());
    }

    @Test
    void aMissingLibraryMakesTheSourceUnavailable() {
        HostCardSource source = closedAfterTheTest(Nvml.open(dir.resolve("nowhere/libnvidia-ml.so.1").toString(), Duration.ofSeconds(5)));

        SourceUnavailableException failed = assertThrows(SourceUnavailableException.class, () -> source.read(reporter));

        assertTrue(failed.getMessage().startsWith("NVML library not found"), failed.getMessage());
        assertTrue(failed.getMessage().contains("nowhere/libnvidia-ml.so.1"), failed.getMessage());
    }

    @Test
    void aLibraryWithoutNvmlIsReportedAsFunctionNotFound() {
        HostCardSource source = closedAfterTheTest(Nvml.open("libm.so.6", Duration.ofSeconds(5)));

        SourceUnavailableException failed = assertThrows(SourceUnavailableException.class, () -> source.read(reporter));

        assertEquals("nvmlInit_v2 failed: FUNCTION_NOT_FOUND (13)", failed.getMessage());
    }

    @Test
    void theDefaultLibraryIsAbsentOnAHostWithoutDriver() {
        boolean driverInstalled = Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"))
                || Files.exists(Path.of("/usr/lib64/libnvidia-ml.so.1")) || Files.exists(Path.of("/usr/lib/libnvidia-ml.so.1"));
        org.junit.jupiter.api.Assumptions.assumeFalse(driverInstalled, "a real driver is installed here");
        HostCardSource source = closedAfterTheTest(Nvml.open());

        SourceUnavailableException failed = assertThrows(SourceUnavailableException.class, () -> source.read(reporter));

        assertTrue(failed.getMessage().contains("libnvidia-ml.so.1, nvidia-ml"), failed.getMessage());
    }

    @Test
    void aHangingCallNeitherHangsTheScrapeNorPilesUpThreads() throws Exception {
        fake.script(A100 + H100);
        Set<Thread> before = nvmlThreads();
        NvmlHostCards source = open(fake, Duration.ofMillis(300), Duration.ZERO);
        Thread worker = onlyNewThread(before);
        assertEquals(2, source.read(reporter).size());

        fake.script(A100 + H100 + "hang memory\n");
        long started = System.nanoTime();
        SourceUnavailableException timedOut = assertThrows(SourceUnavailableException.class, () -> source.read(reporter));
        long waitedMs = (System.nanoTime() - started) / 1_000_000;
        assertTrue(waitedMs >= 250 && waitedMs < 1500, "waited " + waitedMs + " ms");
        assertTrue(timedOut.getMessage().contains("nvmlDeviceGetMemoryInfo on card 0"), timedOut.getMessage());

        for (int i = 0; i < 5; i++) {
            long again = System.nanoTime();
            SourceUnavailableException stillStuck = assertThrows(SourceUnavailableException.class, () -> source.read(reporter));
            assertTrue((System.nanoTime() - again) / 1_000_000 < 100, "a read behind a stuck call must fail at once");
            assertTrue(stillStuck.getMessage().contains("has not answered"), stillStuck.getMessage());
        }
        assertEquals(Set.of(worker), newThreads(before));

        fake.script(A100 + H100);
        List<HostCardReading> recovered = null;
        for (int i = 0; i < 100 && recovered == null; i++) {
            try {
                recovered = source.read(reporter);
            } catch (SourceUnavailableException stuck) {
                Thread.sleep(50);
            }
        }
        assertEquals(2, recovered == null ? 0 : recovered.size());
        assertEquals(Set.of(worker), newThreads(before));
    }

    @Test
    void concurrentScrapesShareOneReading() throws Exception {
        fake.script(A100 + H100 + T4);
        Set<Thread> before = nvmlThreads();
        NvmlHostCards source = open();
        Thread worker = onlyNewThread(before);
        source.read(reporter);
        List<Thread> threads = new ArrayList<>();
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 8; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int j = 0; j < 50; j++) {
                    try {
                        sizes.add(source.read(SkipReporter.NONE).size());
                    } catch (SourceUnavailableException e) {
                        sizes.add(-1);
                    }
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(400, sizes.size());
        assertEquals(List.of(3), sizes.stream().distinct().collect(Collectors.toList()));
        assertEquals(Set.of(worker), newThreads(before));
    }

    /** The NVML worker threads alive now (each source names its own {@code nvml-reader-N}). */
    static Set<Thread> nvmlThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("nvml-reader-") && thread.isAlive())
                .collect(Collectors.toSet());
    }

    /** The NVML threads alive now that were not in {@code before}. */
    static Set<Thread> newThreads(Set<Thread> before) {
        Set<Thread> now = nvmlThreads();
        now.removeAll(before);
        return now;
    }

    /** The one NVML thread started since {@code before}: the worker of the source opened since. */
    static Thread onlyNewThread(Set<Thread> before) {
        Set<Thread> started = newThreads(before);
        assertEquals(1, started.size(), started::toString);
        return started.iterator().next();
    }

    @Test
    void returnCodesKeepNvmlsNames() {
        assertEquals(NvmlReturn.GPU_IS_LOST, NvmlReturn.of(15));
        assertEquals(NvmlReturn.INVALID_STATE, NvmlReturn.of(29));
        assertEquals(NvmlReturn.UNKNOWN, NvmlReturn.of(999));
        assertEquals(NvmlReturn.UNKNOWN, NvmlReturn.of(-3));
        assertEquals("UNKNOWN (77)", NvmlReturn.describe(77));
        assertEquals("lib_rm_version_mismatch", NvmlReturn.of(18).label());
        for (NvmlReturn code : NvmlReturn.values()) {
            assertEquals(code, NvmlReturn.of(code.code()));
        }
        assertFalse(NvmlReturn.of(0) != NvmlReturn.SUCCESS);
    }
}
