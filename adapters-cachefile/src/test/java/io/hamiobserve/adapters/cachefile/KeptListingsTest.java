package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.testkit.CacheFileImage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;

import static io.hamiobserve.adapters.cachefile.Images.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exporter's source lists a directory again only when its identity or change time moved: after
 * every change a tenant can make to its container directory (or HAMi to the containers' root),
 * it reads exactly what a source that lists everything afresh reads, skips included.
 */
class KeptListingsTest {
    private static final String POD = "7d6c1a2e-8f3b-4c5d-9e0f-a1b2c3d4e5f6";

    @TempDir
    Path root;
    @TempDir
    Path outside;

    private static CacheFileImage image(long dataBytes) {
        return Images.oneProcess(dataBytes);
    }

    private Path container(String name) throws IOException {
        Path directory = Files.createDirectories(root.resolve(POD + "_" + name));
        image(100 * MIB).writeTo(directory.resolve("libvgpu.cache"));
        return directory;
    }

    private record Read(List<ContainerUsage> usages, List<String> reasons, List<String> items) {
    }

    private static Read read(CacheFileSource source) {
        Images.Recorder recorder = new Images.Recorder();
        List<ContainerUsage> usages = source.read(recorder);
        return new Read(usages, recorder.reasons, recorder.items);
    }

    /** The kept source's read equals a fresh source's, skips included; returns it. */
    private Read sameAsFresh(CacheFileSource kept) {
        Read fresh = read(new CacheFileSource(root, false));
        Read read = read(kept);
        assertEquals(fresh, read, "the kept listings read what a fresh listing reads");
        return read;
    }

    private static void settle() throws InterruptedException {
        Thread.sleep(DirectoryStamp.SETTLED_AFTER_MILLIS + 200);
    }

    private static long used(Read read, String container) {
        return read.usages().stream().filter(usage -> usage.containerName().equals(container)).findFirst()
                .orElseThrow(() -> new AssertionError(container + " not in " + read.usages()))
                .devices().getFirst().usedBytes();
    }

    @Test
    void everyChangeToAContainerDirectoryOrTheRootIsSeenAtTheNextRead() throws Exception {
        Path added = container("added");
        Path emptied = container("emptied");
        Path linked = container("linked");
        Path renamed = container("renamed");
        Path swapped = container("swapped");
        Path recreated = container("recreated");
        Path backdated = container("backdated");
        Path rewritten = container("rewritten");
        Files.createDirectories(outside.resolve("elsewhere"));
        image(900 * MIB).writeTo(outside.resolve("elsewhere").resolve("libvgpu.cache"));
        image(800 * MIB).writeTo(outside.resolve("target.cache"));
        settle();

        CacheFileSource source = new CacheFileSource(root, true);
        Read first = sameAsFresh(source);
        assertEquals(8, first.usages().size());
        assertEquals(List.of(), first.reasons());
        long reusedBefore = source.listingsReused();
        Read second = sameAsFresh(source);
        assertEquals(first, second);
        assertEquals(reusedBefore + 9, source.listingsReused(), "the root and 8 unchanged directories not listed again");

        // Within the same second as the last listing, each directory changed as a tenant can change it.
        image(200 * MIB).writeTo(added.resolve("second.cache"));
        Files.delete(emptied.resolve("libvgpu.cache"));
        Path link = linked.resolve("link.tmp");
        Files.createSymbolicLink(link, outside.resolve("target.cache"));
        Files.move(link, linked.resolve("libvgpu.cache"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.move(renamed.resolve("libvgpu.cache"), renamed.resolve("libvgpu.cache.old"));
        Files.move(swapped, outside.resolve("swapped-away"));
        Files.createSymbolicLink(swapped, outside.resolve("elsewhere"));
        Files.move(recreated, outside.resolve("recreated-away"));
        Files.createDirectories(recreated);
        image(700 * MIB).writeTo(recreated.resolve("libvgpu.cache"));
        FileTime before = Files.getLastModifiedTime(backdated);
        image(300 * MIB).writeTo(backdated.resolve("extra.cache"));
        Files.setLastModifiedTime(backdated, before);
        image(400 * MIB).writeTo(rewritten.resolve("libvgpu.cache"));
        container("new");

        Read changed = sameAsFresh(source);
        assertTrue(used(changed, "added") > used(first, "added"), "the second file of 'added' is merged");
        assertEquals(List.of("directory/empty_directory", "file/symlink", "directory/no_cache_file", "directory/symlink"),
                changed.reasons(), "emptied, linked, renamed and swapped are skipped as they are now: " + changed.items());
        assertTrue(changed.usages().stream().noneMatch(usage -> usage.containerName().equals("swapped")));
        assertTrue(used(changed, "recreated") > used(first, "recreated"), "the new directory's file is read");
        assertTrue(used(changed, "backdated") > used(first, "backdated"), "a modification time set back hides nothing");
        assertTrue(used(changed, "rewritten") > used(first, "rewritten"), "a file's content is always read");
        assertEquals(used(first, "added"), used(changed, "new"), "a new container in the root");

        // Changed just now, the directories are listed at every read until they settle.
        sameAsFresh(source);
        settle();
        sameAsFresh(source);
        long settledReused = source.listingsReused();
        sameAsFresh(source);
        assertTrue(source.listingsReused() > settledReused, "settled again, kept again");
    }

    @Test
    void aListingThatReportedASkipIsRedoneSoItsSkipIsCountedAtEveryRead() throws Exception {
        Path empty = Files.createDirectories(root.resolve(POD + "_empty"));
        container("fine");
        Files.writeString(empty.resolve("notes.txt"), "no cache file here");
        settle();
        CacheFileSource source = new CacheFileSource(root, true);
        for (int i = 0; i < 3; i++) {
            Read read = sameAsFresh(source);
            assertEquals(List.of("directory/no_cache_file"), read.reasons(), "read " + i);
        }
    }

    @Test
    void keepsOnlySettledListingsAndNoneOlderThanItsBoundOrUnlookedAt() throws Exception {
        Path directory = container("bounded");
        settle();
        DirectoryStamp settled = DirectoryStamp.of(directory);
        assertTrue(settled.settled() && settled.directory() && !settled.symbolicLink(), settled.toString());
        List<Path> entries = List.of(directory.resolve("libvgpu.cache"));

        KeptListings listings = new KeptListings();
        listings.keep(directory, settled, entries, System.nanoTime());
        assertEquals(entries, listings.entries(directory, DirectoryStamp.of(directory)));
        listings.sweep();
        assertNotNull(listings.entries(directory, DirectoryStamp.of(directory)), "looked at in the pass: kept");
        listings.sweep();
        listings.sweep();
        assertNull(listings.entries(directory, DirectoryStamp.of(directory)), "a pass without a look drops it");

        KeptListings neverOld = new KeptListings(0);
        neverOld.keep(directory, settled, entries, System.nanoTime());
        assertNull(neverOld.entries(directory, DirectoryStamp.of(directory)), "older than the bound: listed again");

        // Stamped within a second of its last change: a change in the same clock tick could follow unseen.
        long now = System.currentTimeMillis();
        DirectoryStamp fresh = new DirectoryStamp(false, true, settled.device(), settled.inode(),
                FileTime.fromMillis(now - DirectoryStamp.SETTLED_AFTER_MILLIS + 1), now);
        assertTrue(!fresh.settled(), fresh.toString());
        KeptListings unsettled = new KeptListings();
        unsettled.keep(directory, fresh, entries, System.nanoTime());
        assertNull(unsettled.entries(directory, fresh), "an unsettled listing is not kept");
        assertEquals(0, unsettled.size());
    }
}
