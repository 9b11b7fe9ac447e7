package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.testkit.CacheFileImage;

import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.domain.DeviceUsage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static io.hamiobserve.adapters.cachefile.Images.GIB;
import static io.hamiobserve.adapters.cachefile.Images.GPU_A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SeqlockTest {
    @TempDir
    Path root;

    private static CacheFileImage.Process process(int pid, long k) {
        // Every field derives from k: a slot read half-old, half-new breaks the relation.
        return new CacheFileImage.Process(pid, pid + 1000, CacheFileImage.STATUS_RUNNING,
                List.of(new CacheFileImage.DeviceUse(k, 2 * k, 3 * k, 6 * k, k % 1000)));
    }

    @Test
    void aSlotLeftMidWriteIsSkippedAndCountedWhileTheOthersAreServed() throws Exception {
        Path file = Files.createDirectories(root.resolve("pod_c")).resolve("f.cache");
        CacheFileImage.v1(2).device(GPU_A, GIB, 0).process(process(1, 10)).process(process(2, 20))
                .build().writeTo(file);
        try (CacheFileImage.Updater updater = CacheFileImage.update(file)) {
            updater.beginSlotWrite(1);
        }
        Images.Recorder recorder = new Images.Recorder();
        List<ContainerUsage> usages = CacheFiles.directory(root).read(recorder);
        assertEquals(List.of("slot/slot_unsettled"), recorder.reasons);
        DeviceUsage device = usages.get(0).devices().get(0);
        assertEquals(60, device.usedBytes());
        assertEquals(1, device.liveProcesses());

        try (CacheFileImage.Updater updater = CacheFileImage.update(file)) {
            updater.endSlotWrite(1);
        }
        assertEquals(180, CacheFiles.directory(root).read(new Images.Recorder()).get(0).devices().get(0).usedBytes());
    }

    @Test
    void neverReportsAHalfWrittenSlotWhileAWriterRewritesIt() throws Exception {
        Path file = Files.createDirectories(root.resolve("pod_c")).resolve("f.cache");
        CacheFileImage.v1(2).device(GPU_A, GIB, 0).process(process(1, 1)).build().writeTo(file);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try (CacheFileImage.Updater updater = CacheFileImage.update(file)) {
                for (long k = 2; !stop.get(); k++) {
                    updater.writeProcess(0, process(1, k * 1_000_003L));
                }
            } catch (Throwable e) {
                writerFailure.set(e);
            }
        });
        writer.start();
        CacheFileReader reader = new CacheFileReader();
        int consistent = 0;
        int unsettled = 0;
        long deadline = System.nanoTime() + 1_500_000_000L;
        try {
            while (System.nanoTime() < deadline) {
                ReadResult result = reader.read(file);
                assertTrue(result.ok(), () -> result.reason() + " " + result.detail());
                if (result.content().slots().isEmpty()) {
                    assertEquals(Skips.Reason.SLOT_UNSETTLED, result.content().problems().get(0).reason());
                    unsettled++;
                    continue;
                }
                CacheFileContent.Slot slot = result.content().slots().get(0);
                long k = slot.contextBytes()[0];
                assertEquals(2 * k, slot.moduleBytes()[0]);
                assertEquals(3 * k, slot.dataBytes()[0]);
                assertEquals(6 * k, slot.totalBytes()[0]);
                assertEquals(0, slot.seqlock() & 1);
                consistent++;
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        assertNull(writerFailure.get());
        assertTrue(consistent > 100, "consistent reads: " + consistent + ", unsettled: " + unsettled);
    }
}
