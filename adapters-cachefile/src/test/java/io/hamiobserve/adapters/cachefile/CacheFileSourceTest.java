package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.testkit.CacheFileImage;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.domain.DeviceUsage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

import static io.hamiobserve.adapters.cachefile.Images.GIB;
import static io.hamiobserve.adapters.cachefile.Images.GPU_A;
import static io.hamiobserve.adapters.cachefile.Images.GPU_B;
import static io.hamiobserve.adapters.cachefile.Images.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CacheFileSourceTest {
    private static final String POD = "7d6c1a2e-8f3b-4c5d-9e0f-a1b2c3d4e5f6";

    @TempDir
    Path root;

    private Path container(String name) throws IOException {
        return Files.createDirectories(root.resolve(name));
    }

    private List<ContainerUsage> read(Images.Recorder recorder) {
        return CacheFiles.directory(root).read(recorder);
    }

    @Test
    void mapsEachDirectoryToItsPodAndContainer() throws IOException {
        Images.twoDevices(CacheFileImage.v1(2)).build().writeTo(container(POD + "_train_worker").resolve("a1b2.cache"));
        Files.write(container(POD + "_train_worker").resolve("libvgpu.so"), new byte[]{1, 2, 3});
        Images.twoDevices(CacheFileImage.v0()).build().writeTo(container("pod-2_sidecar").resolve("x.cache"));
        Images.Recorder recorder = new Images.Recorder();

        List<ContainerUsage> usages = read(recorder);

        assertEquals(List.of(), recorder.reasons);
        assertEquals(2, usages.size());
        ContainerUsage train = usages.get(0);
        assertEquals(POD, train.podUid());
        assertEquals("train_worker", train.containerName(), "split at the first underscore only");
        assertEquals(List.of(GPU_A, GPU_B), train.devices().stream().map(DeviceUsage::uuid).toList());
        assertEquals(3630 * MIB, train.devices().get(0).usedBytes());
        assertEquals("pod-2", usages.get(1).podUid());
        assertEquals(0, usages.get(1).devices().get(0).lastKernelEpochSeconds());
    }

    @Test
    void skipsBadDirectoriesAndFilesAndServesTheRest() throws IOException {
        Images.twoDevices(CacheFileImage.v1(2)).build().writeTo(container(POD + "_good").resolve("g.cache"));
        Images.twoDevices(CacheFileImage.v1(2)).build().writeTo(container("nounderscore").resolve("n.cache"));
        Images.twoDevices(CacheFileImage.v1(2)).build().writeTo(container("_nopod").resolve("n.cache"));
        container("pod-e_empty");
        Files.writeString(container("pod-o_other").resolve("notes.txt"), "hello");
        Files.write(container("pod-b_badmagic").resolve("b.cache"), new byte[2_008_953]);
        byte[] preUtilisation = new byte[804_681];
        Images.le(preUtilisation).putInt(0, CacheLayout.MAGIC);
        Files.write(container("pod-s_small").resolve("s.cache"), preUtilisation);
        Path subdirectory = Files.createDirectories(container("pod-d_dir").resolve("d.cache"));
        Files.createSymbolicLink(container("pod-l_link").resolve("l.cache"),
                root.resolve(POD + "_good").resolve("g.cache"));
        Files.createSymbolicLink(root.resolve("pod-k_linkeddir"), root.resolve(POD + "_good"));
        Files.writeString(root.resolve("pod-f_file"), "a stray file");
        Images.Recorder recorder = new Images.Recorder();

        List<ContainerUsage> usages = read(recorder);

        assertEquals(1, usages.size());
        assertEquals("good", usages.get(0).containerName());
        assertEquals(new TreeMap<>(java.util.Map.of(
                        "directory/no_underscore", 2L, "directory/empty_directory", 1L,
                        "directory/no_cache_file", 1L, "file/not_initialized", 1L, "file/unknown_size", 1L,
                        "file/not_regular_file", 1L, "file/symlink", 1L, "directory/symlink", 1L,
                        "directory/not_directory", 1L)),
                count(recorder.reasons));
        assertTrue(Files.isDirectory(subdirectory));
    }

    @Test
    void skipsFifosWithoutOpeningThem() throws Exception {
        Images.fifo(container("pod-p_pipe").resolve("p.cache"));
        Images.Recorder recorder = new Images.Recorder();
        assertEquals(List.of(), read(recorder));
        assertEquals(List.of("file/not_regular_file"), recorder.reasons);
    }

    @Test
    void reportsAMissingContainersDirectory() {
        Images.Recorder recorder = new Images.Recorder();
        assertEquals(List.of(), CacheFiles.directory(root.resolve("absent")).read(recorder));
        assertEquals(List.of("directory/missing"), recorder.reasons);
    }

    @Test
    void mergesSeveralCacheFilesOfOneContainerByDevicePosition() throws IOException {
        Path directory = container(POD + "_multi");
        CacheFileImage.v1(2).device(GPU_A, 8 * GIB, 30).device(GPU_B, 4 * GIB, 0).lastKernelTime(100)
                .process(1, 11, CacheFileImage.DeviceUse.of(MIB, 0, 9 * MIB, 10),
                        CacheFileImage.DeviceUse.of(0, 0, 5 * MIB, 1))
                .build().writeTo(directory.resolve("a.cache"));
        CacheFileImage.v1(2).device(GPU_A, 8 * GIB, 30).lastKernelTime(200)
                .process(2, 12, CacheFileImage.DeviceUse.of(MIB, MIB, 8 * MIB, 20))
                .build().writeTo(directory.resolve("b.cache"));
        // Another card at position 0: not this container's device 0, so not summed into it.
        CacheFileImage.v1(2).device("GPU-other", 8 * GIB, 30).device(GPU_B, 4 * GIB, 0).lastKernelTime(50)
                .process(3, 13, CacheFileImage.DeviceUse.of(0, 0, GIB, 50), CacheFileImage.DeviceUse.of(0, 0, MIB, 2))
                .build().writeTo(directory.resolve("c.cache"));
        Images.Recorder recorder = new Images.Recorder();

        List<ContainerUsage> usages = read(recorder);

        assertEquals(List.of("device/uuid_conflict"), recorder.reasons);
        assertTrue(recorder.items.get(0).endsWith("c.cache: device 0: GPU-other where another file of the container has "
                + GPU_A), recorder.items.get(0));
        List<DeviceUsage> devices = usages.get(0).devices();
        assertEquals(new DeviceUsage(0, GPU_A, 20 * MIB, 2 * MIB, MIB, 17 * MIB, 8 * GIB, 30, 30, 2, 200),
                devices.get(0));
        assertEquals(new DeviceUsage(1, GPU_B, 6 * MIB, 0, 0, 6 * MIB, 4 * GIB, 100, 3, 2, 200), devices.get(1));
    }

    @Test
    void aRejectedFileDoesNotHideTheContainersOtherFile() throws IOException {
        Path directory = container(POD + "_half");
        Images.twoDevices(CacheFileImage.v1(2)).build().writeTo(directory.resolve("a.cache"));
        Files.write(directory.resolve("b.cache"), new byte[]{1, 2, 3, 4});
        Images.Recorder recorder = new Images.Recorder();
        List<ContainerUsage> usages = read(recorder);
        assertEquals(1, usages.size());
        assertEquals(List.of("file/unknown_size"), recorder.reasons);
    }

    @Test
    void boundsTheCacheFilesItMerges() throws IOException {
        Path directory = container(POD + "_many");
        byte[] one = CacheFileImage.v1(2).device(GPU_A, GIB, 0)
                .process(1, 1, CacheFileImage.DeviceUse.of(0, 0, MIB, 1)).build().toBytes();
        for (int i = 0; i < CacheFileSource.MAX_CACHE_FILES + 4; i++) {
            Files.write(directory.resolve(String.format("%02d.cache", i)), one);
        }
        Images.Recorder recorder = new Images.Recorder();
        List<ContainerUsage> usages = read(recorder);
        assertEquals(List.of("directory/too_many_cache_files"), recorder.reasons);
        assertEquals(CacheFileSource.MAX_CACHE_FILES * MIB, usages.get(0).devices().get(0).usedBytes());
    }

    @Test
    void readingNeverChangesTheFiles() throws Exception {
        Path file = container(POD + "_ro").resolve("r.cache");
        Images.twoDevices(CacheFileImage.v1(2)).build().writeTo(file);
        Files.setLastModifiedTime(file, FileTime.fromMillis(1_000_000_000L));
        String before = digest(root);
        for (int i = 0; i < 3; i++) {
            read(new Images.Recorder());
        }
        assertEquals(before, digest(root));
        assertEquals(FileTime.fromMillis(1_000_000_000L), Files.getLastModifiedTime(file));
    }

    private static String digest(Path root) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted().forEach(files::add);
        }
        for (Path path : files) {
            sha.update(path.toString().getBytes());
            if (Files.isRegularFile(path)) {
                sha.update(Files.readAllBytes(path));
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static TreeMap<String, Long> count(List<String> reasons) {
        TreeMap<String, Long> counts = new TreeMap<>();
        reasons.forEach(reason -> counts.merge(reason, 1L, Long::sum));
        return counts;
    }
}
