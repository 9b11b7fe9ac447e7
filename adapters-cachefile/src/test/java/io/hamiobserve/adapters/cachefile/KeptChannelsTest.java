package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.testkit.CacheFileImage;

import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.ports.ContainerUsageSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

import static io.hamiobserve.adapters.cachefile.Images.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The exporter's source keeps its files' channels open between reads: a file that stays the same
 * file is read through its kept channel, and a file replaced, deleted, swapped for a symbolic
 * link or a FIFO, or cut short is read (or skipped) as it is now, never through the old file; a
 * channel is closed when its file is gone. Descriptors are counted in {@code /proc/self/fd}.
 */
class KeptChannelsTest {
    @TempDir
    Path root;
    @TempDir
    Path outside;

    private static CacheFileImage image(long dataBytes) {
        return Images.oneProcess(dataBytes);
    }

    private static long used(List<ContainerUsage> usages) {
        assertEquals(1, usages.size(), usages.toString());
        return usages.get(0).devices().get(0).usedBytes();
    }

    /** Descriptors this process holds open on files under {@code directory}. */
    static long openUnder(Path directory) throws IOException {
        Path fds = Path.of("/proc/self/fd");
        assumeTrue(Files.isDirectory(fds), "needs /proc/self/fd (Linux)");
        long open = 0;
        try (Stream<Path> entries = Files.list(fds)) {
            for (Path fd : entries.toList()) {
                try {
                    if (Files.readSymbolicLink(fd).toString().startsWith(directory.toString())) {
                        open++;
                    }
                } catch (IOException closedMeanwhile) {
                    // The listing's own descriptor, gone by now.
                }
            }
        }
        return open;
    }

    @Test
    void aFileThatStaysTheSameIsReadThroughOneKeptChannel() throws IOException {
        Path file = Files.createDirectories(root.resolve("pod-1_main")).resolve("a.cache");
        image(1000 * MIB).writeTo(file);
        ContainerUsageSource source = CacheFiles.directory(root);
        Images.Recorder recorder = new Images.Recorder();

        long first = used(source.read(recorder));
        assertEquals(1, openUnder(root), "kept open for the next read");
        // Written in place, as HAMi-Core writes it: the kept channel sees the new figures.
        Files.write(file, image(2000 * MIB).toBytes(), StandardOpenOption.WRITE);
        long second = used(source.read(recorder));
        for (int i = 0; i < 20; i++) {
            source.read(recorder);
        }

        assertEquals(List.of(), recorder.reasons);
        assertEquals(first + 1000 * MIB, second);
        assertEquals(1, openUnder(root), "one channel for the file, however often it is read");
    }

    @Test
    void aReplacedFileIsReadAsTheNewFileAndTheOldChannelClosed() throws IOException {
        Path directory = Files.createDirectories(root.resolve("pod-1_main"));
        Path file = directory.resolve("a.cache");
        image(1000 * MIB).writeTo(file);
        ContainerUsageSource source = CacheFiles.directory(root);
        Images.Recorder recorder = new Images.Recorder();
        long before = used(source.read(recorder));

        Path staged = directory.resolve("a.staged");
        image(3000 * MIB).writeTo(staged);
        Files.move(staged, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        long after = used(source.read(recorder));

        assertEquals(List.of(), recorder.reasons);
        assertEquals(before + 2000 * MIB, after, "the new file's figures, not the kept channel's");
        assertEquals(1, openUnder(root), "the replaced file's channel is closed, the new one kept");
    }

    @Test
    void aDeletedFileOrContainerLeavesNoChannelOpen() throws IOException {
        Path one = Files.createDirectories(root.resolve("pod-1_main")).resolve("a.cache");
        Path two = Files.createDirectories(root.resolve("pod-2_main")).resolve("b.cache");
        image(1000 * MIB).writeTo(one);
        image(1000 * MIB).writeTo(two);
        ContainerUsageSource source = CacheFiles.directory(root);
        Images.Recorder recorder = new Images.Recorder();
        assertEquals(2, source.read(recorder).size());
        assertEquals(2, openUnder(root));

        Files.delete(one);
        List<ContainerUsage> left = source.read(recorder);
        assertEquals(1, left.size());
        assertEquals("pod-2", left.get(0).podUid());
        assertEquals(List.of("directory/empty_directory"), recorder.reasons);
        assertEquals(1, openUnder(root), "the deleted file's channel is closed (its space is freed)");

        Files.delete(two);
        Files.delete(two.getParent());
        source.read(recorder);
        assertEquals(0, openUnder(root), "a container gone takes its channel with it");
    }

    @Test
    void aFileSwappedForASymlinkOrAFifoIsSkippedNotReadThroughTheKeptChannel() throws Exception {
        Path file = Files.createDirectories(root.resolve("pod-1_main")).resolve("a.cache");
        image(1000 * MIB).writeTo(file);
        Path elsewhere = outside.resolve("elsewhere.cache");
        image(5000 * MIB).writeTo(elsewhere);
        ContainerUsageSource source = CacheFiles.directory(root);
        Images.Recorder recorder = new Images.Recorder();
        used(source.read(recorder));

        Files.delete(file);
        Files.createSymbolicLink(file, elsewhere);
        assertEquals(List.of(), source.read(recorder));
        assertEquals(List.of("file/symlink"), recorder.reasons);
        assertEquals(0, openUnder(root), "the kept channel of the file the link replaced is closed");

        Files.delete(file);
        Images.fifo(file);
        assertEquals(List.of(), source.read(recorder));
        assertEquals("file/not_regular_file", recorder.reasons.get(1));
        assertEquals(0, openUnder(root), "a FIFO is never opened");
    }

    @Test
    void aKeptFileCutShortIsRejectedAndReadAgainWhenWhole() throws IOException {
        Path file = Files.createDirectories(root.resolve("pod-1_main")).resolve("a.cache");
        byte[] whole = image(1000 * MIB).toBytes();
        Files.write(file, whole);
        ContainerUsageSource source = CacheFiles.directory(root);
        Images.Recorder recorder = new Images.Recorder();
        long before = used(source.read(recorder));

        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(4096);
        }
        assertEquals(List.of(), source.read(recorder));
        assertEquals(List.of("file/unknown_size"), recorder.reasons);

        Files.write(file, whole, StandardOpenOption.WRITE);
        assertEquals(before, used(source.read(recorder)), "the same inode, whole again");
        assertEquals(1, openUnder(root));
    }

    @Test
    void aSecondReaderMadeForAConcurrentCallClosesWhatItKeptWhenItIsNotNeeded() throws IOException {
        image(1000 * MIB).writeTo(Files.createDirectories(root.resolve("pod-1_main")).resolve("a.cache"));
        Files.createDirectories(root.resolve("a-directory-without-underscore"));
        ContainerUsageSource source = CacheFiles.directory(root);
        List<Integer> innerServed = new java.util.ArrayList<>();
        // The first skip (the directory sorted first) reads again while the outer call holds the reader.
        io.hamiobserve.ports.SkipReporter reentrant = new io.hamiobserve.ports.SkipReporter() {
            @Override
            public void skipped(io.hamiobserve.ports.SkipKey key, String item) {
                if (innerServed.isEmpty()) {
                    innerServed.add(-1);
                    innerServed.set(0, source.read(this).size());
                }
            }
        };

        assertEquals(1, source.read(reentrant).size());
        assertEquals(List.of(1), innerServed);
        assertEquals(1, openUnder(root), "two readers each opened the file; the one not kept closed its channel");
    }

    @Test
    void theInspectorsOneOffReadingKeepsNothingOpen() throws IOException {
        image(1000 * MIB).writeTo(Files.createDirectories(root.resolve("pod-1_main")).resolve("a.cache"));
        Images.Recorder recorder = new Images.Recorder();

        assertEquals(1, new CacheFileSource(root, false).read(recorder).size());
        assertTrue(recorder.reasons.isEmpty(), recorder.reasons.toString());
        assertEquals(0, openUnder(root));
    }
}
