package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.adapters.cachefile.Skips.Reason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.hamiobserve.adapters.cachefile.Images.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A FIFO swapped in for a cache file between the type check and the open would block {@code open(2)}
 * until its maker writes: the open is given up on after its deadline and the file skipped
 * ({@code open_blocked}), its directory skipped without another thread until that open returns,
 * and no more than the limit of opens is ever left behind. Each blocked open here is a real one,
 * on a real FIFO, released at the end by opening the FIFO for writing as its maker could.
 */
class OpenDeadlineTest {
    /** Far beyond the deadline: a read that takes this long was waiting for the FIFO's writer. */
    private static final Duration NO_HANG = Duration.ofSeconds(10);

    @TempDir
    Path root;

    private final List<Path> fifos = new ArrayList<>();

    private Path fifo(Path path) throws IOException {
        fifos.add(Images.fifo(path));
        return path;
    }

    /** Releases every open still waiting on a FIFO: a writer arrives (O_RDWR never blocks on Linux). */
    private void writeTo(Path fifo) throws IOException {
        try (FileChannel writer = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            assertTrue(writer.isOpen());
        }
    }

    @AfterEach
    void releaseBlockedOpens() throws IOException {
        for (Path fifo : fifos) {
            if (Files.exists(fifo)) {
                writeTo(fifo);
            }
        }
    }

    private static void awaitLeftBehind(OpenDeadline opens, int expected) throws InterruptedException {
        long giveUp = System.nanoTime() + NO_HANG.toNanos();
        while (opens.leftBehind() != expected && System.nanoTime() < giveUp) {
            Thread.sleep(5);
        }
        assertEquals(expected, opens.leftBehind(), "opens left behind");
    }

    @Test
    void aFifoSwappedInAfterTheCheckIsSkippedNotWaitedFor() throws Exception {
        Path container = Files.createDirectories(root.resolve("pod-1_main"));
        Path file = container.resolve("a.cache");
        Images.oneProcess(1000 * MIB).writeTo(file);
        Path sibling = container.resolve("b.cache");
        Images.oneProcess(2000 * MIB).writeTo(sibling);
        Path elsewhere = Files.createDirectories(root.resolve("pod-2_main")).resolve("c.cache");
        Images.oneProcess(3000 * MIB).writeTo(elsewhere);
        OpenDeadline opens = new OpenDeadline(Duration.ofMillis(100), 4);
        CacheFileReader decoder = new CacheFileReader();
        // The tenant's move, at the worst moment: after lstat saw a regular file, before the open.
        ChangingFile.Opener swapping = path -> {
            Files.delete(path);
            fifo(path);
            return opens.open(path);
        };

        ReadResult swapped = assertTimeoutPreemptively(NO_HANG,
                () -> ChangingFile.read(file, decoder::read, null, swapping::open));
        assertFalse(swapped.ok());
        assertEquals(Reason.OPEN_BLOCKED, swapped.reason(), swapped.detail());
        assertTrue(swapped.detail().contains("did not return within 100 ms"), swapped.detail());
        assertEquals(1, opens.leftBehind());

        // The same container's other file: skipped at once, without a thread of its own.
        ReadResult sameDirectory = assertTimeoutPreemptively(NO_HANG,
                () -> ChangingFile.read(sibling, decoder::read, null, opens::open));
        assertEquals(Reason.OPEN_BLOCKED, sameDirectory.reason(), sameDirectory.detail());
        assertTrue(sameDirectory.detail().contains("earlier open in pod-1_main"), sameDirectory.detail());
        assertEquals(1, opens.leftBehind());
        // Another container is read as ever.
        assertTrue(ChangingFile.read(elsewhere, decoder::read, null, opens::open).ok());

        // Its maker writes at last: the open returns, its channel is closed, the directory read again.
        writeTo(file);
        awaitLeftBehind(opens, 0);
        assertEquals(0, KeptChannelsTest.openUnder(container), "the channel the late open returned is closed");
        assertTrue(ChangingFile.read(sibling, decoder::read, null, opens::open).ok());
        // And the FIFO itself is what the check before the open sees now.
        assertEquals(Reason.NOT_REGULAR_FILE, ChangingFile.read(file, decoder::read, null, opens::open).reason());
    }

    @Test
    void pastTheLimitNoOpenIsTriedUntilOneReturns() throws Exception {
        OpenDeadline opens = new OpenDeadline(Duration.ofMillis(50), 2);
        Path one = fifo(Files.createDirectories(root.resolve("pod-1_a")).resolve("a.cache"));
        Path two = fifo(Files.createDirectories(root.resolve("pod-2_a")).resolve("a.cache"));
        Path three = fifo(Files.createDirectories(root.resolve("pod-3_a")).resolve("a.cache"));
        Path regular = Files.createDirectories(root.resolve("pod-4_a")).resolve("a.cache");
        Images.oneProcess(1000 * MIB).writeTo(regular);

        for (Path fifo : List.of(one, two)) {
            OpenDeadline.OpenBlockedException blocked = assertThrows(OpenDeadline.OpenBlockedException.class,
                    () -> assertTimeoutPreemptively(NO_HANG, () -> opens.open(fifo)));
            assertTrue(blocked.getMessage().contains("did not return"), blocked.getMessage());
        }
        assertEquals(2, opens.leftBehind());
        for (Path path : List.of(three, regular)) {
            OpenDeadline.OpenBlockedException refused = assertThrows(OpenDeadline.OpenBlockedException.class,
                    () -> assertTimeoutPreemptively(NO_HANG, () -> opens.open(path)));
            assertTrue(refused.getMessage().contains("2 opens have not returned"), refused.getMessage());
        }
        assertEquals(2, opens.leftBehind(), "nothing more was tried");

        writeTo(one);
        awaitLeftBehind(opens, 1);
        try (FileChannel channel = opens.open(regular)) {
            assertEquals(Files.size(regular), channel.size());
        }
    }

    @Test
    void anOpenThatFailsFailsAsFileChannelOpenWould() throws Exception {
        OpenDeadline opens = new OpenDeadline(Duration.ofMillis(100), 2);
        Path missing = root.resolve("none.cache");
        assertThrows(java.nio.file.NoSuchFileException.class, () -> opens.open(missing));
        Path target = root.resolve("target.cache");
        Images.oneProcess(1000 * MIB).writeTo(target);
        Path link = Files.createSymbolicLink(root.resolve("link.cache"), target);
        IOException loop = assertThrows(IOException.class, () -> opens.open(link));
        assertTrue(loop.getMessage().contains("symbolic links"), loop.toString());
        // A link swapped in after the check: O_NOFOLLOW still refuses it.
        assertEquals(Reason.SYMLINK, ChangingFile.read(target, new CacheFileReader()::read, null,
                path -> opens.open(link)).reason());
        assertEquals(0, opens.leftBehind());
    }
}
