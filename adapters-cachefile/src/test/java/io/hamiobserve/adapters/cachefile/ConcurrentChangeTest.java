package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.testkit.CacheFileImage;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.ports.ContainerUsageSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Files truncated, re-grown, replaced and deleted under the reader, in a loop: nothing escapes, a
 * read yields the file's numbers (or zeros where a racing truncation cut it) or is skipped with a
 * reason, and the other container is always served. (A memory-mapped reader would take a SIGBUS here.)
 */
class ConcurrentChangeTest {
    private static final Set<String> ACCEPTED = Set.of("file/truncated", "file/unknown_size",
            "file/not_initialized", "file/vanished", "file/replaced",
            "directory/empty_directory", "directory/no_cache_file");

    @TempDir
    Path root;

    @Test
    void survivesFilesTruncatedAndRegrownWhileRead() throws Exception {
        byte[] image = Images.v12();
        long expectedUsed = ContainerAccounting.of(Images.read(image).content()).get(0).usedBytes();
        Path file = Files.createDirectories(root.resolve("pod-1_victim")).resolve("v.cache");
        Files.write(file, image);
        Images.twoDevices(CacheFileImage.v0()).build().writeTo(
                Files.createDirectories(root.resolve("pod-2_bystander")).resolve("b.cache"));

        TreeMap<String, Integer> seen;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            Random random = new Random(7);
            int[] cuts = {0, 3, 12, 1000, CacheLayout.V1.procs + 10, CacheLayout.V1.slotOffset(1) + 100,
                    CacheLayout.V0.structSize, CacheLayout.V1.procNum + 2};
            seen = hammer(() -> () -> {
                int cut = random.nextBoolean() ? cuts[random.nextInt(cuts.length)] : random.nextInt(image.length);
                channel.truncate(cut);
                ByteBuffer rest = ByteBuffer.wrap(image);
                while (rest.hasRemaining()) {
                    channel.write(rest, rest.position());
                }
            }, expectedUsed, 1);
        }
        assertTrue(seen.getOrDefault("ok", 0) > 0, seen.toString());
        assertTrue(seen.keySet().stream().anyMatch(key -> key.startsWith("file/")), seen.toString());
    }

    @Test
    void survivesFilesReplacedAndDeletedWhileRead() throws Exception {
        CacheFileImage image = Images.twoDevices(CacheFileImage.v1(2)).build();
        long expectedUsed = ContainerAccounting.of(Images.read(image.toBytes()).content()).get(0).usedBytes();
        Path file = Files.createDirectories(root.resolve("pod-1_victim")).resolve("v.cache");
        image.writeTo(file);
        Images.twoDevices(CacheFileImage.v0()).build().writeTo(
                Files.createDirectories(root.resolve("pod-2_bystander")).resolve("b.cache"));

        TreeMap<String, Integer> seen = hammer(() -> {
            Random random = new Random(11);
            return () -> {
                if (random.nextInt(3) == 0) {
                    Files.deleteIfExists(file);
                }
                image.writeTo(file);
            };
        }, expectedUsed, 0);
        assertTrue(seen.getOrDefault("ok", 0) > 0, seen.toString());
    }

    interface Step {
        void run() throws Exception;
    }

    interface StepFactory {
        Step open() throws Exception;
    }

    /** Runs the changing writer for a while against a reading loop; returns what the reader saw. */
    private TreeMap<String, Integer> hammer(StepFactory factory, long expectedUsed, int writersOwnDescriptors)
            throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                Step step = factory.open();
                while (!stop.get()) {
                    step.run();
                }
            } catch (Throwable e) {
                writerFailure.set(e);
            }
        });
        TreeMap<String, Integer> seen = new TreeMap<>();
        // One source for the whole run, as the node role holds one: its kept channels meet every change.
        ContainerUsageSource source = CacheFiles.directory(root);
        writer.start();
        try {
            long deadline = System.nanoTime() + 1_500_000_000L;
            while (System.nanoTime() < deadline) {
                Images.Recorder recorder = new Images.Recorder();
                List<ContainerUsage> usages = source.read(recorder);
                for (String reason : recorder.reasons) {
                    assertTrue(ACCEPTED.contains(reason), reason + " " + recorder.items);
                    seen.merge(reason, 1, Integer::sum);
                }
                assertTrue(usages.stream().anyMatch(usage -> usage.podUid().equals("pod-2")), "bystander served");
                usages.stream().filter(usage -> usage.podUid().equals("pod-1")).forEach(usage -> {
                    // A read racing a truncation can see the zeros Linux leaves where the file was cut,
                    // just as if the tenant had written zeros: never more than the truth, never a fault.
                    long used = usage.devices().isEmpty() ? 0 : usage.devices().get(0).usedBytes();
                    assertTrue(used <= expectedUsed, "used " + used);
                    seen.merge(used == expectedUsed ? "ok" : "ok_zeros_seen", 1, Integer::sum);
                });
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        if (writerFailure.get() != null && !(writerFailure.get() instanceof java.nio.file.NoSuchFileException)) {
            assertNull(writerFailure.get());
        }
        // Every replaced or deleted file's channel was closed: at most the two current files' channels
        // stay kept, beside what the writer itself holds open.
        long open = KeptChannelsTest.openUnder(root) - writersOwnDescriptors;
        assertTrue(open <= 2, open + " descriptors left open by the reader under " + root);
        return seen;
    }
}
