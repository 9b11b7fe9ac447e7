package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.domain.ContainerUsage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checked-in files written by src/test/c/cachefile_layout.c (gzipped: a v1 file is 2 MB of mostly
 * zeros), read through the whole source as on a node.
 */
class FixtureTest {
    @TempDir
    Path root;

    static Path unpack(String fixture, Path target) throws IOException {
        try (InputStream in = new GZIPInputStream(FixtureTest.class.getResourceAsStream("/fixtures/" + fixture + ".gz"))) {
            Files.createDirectories(target.getParent());
            Files.copy(in, target);
        }
        return target;
    }

    @Test
    void readsTheCheckedInFixturesLikeANode() throws IOException {
        unpack("v1.2.cache", root.resolve("pod-a_v12/x.cache"));
        unpack("v1.0.cache", root.resolve("pod-b_v10/x.cache"));
        unpack("v0.cache", root.resolve("pod-c_v0/x.cache"));
        unpack("pre-utilisation-804681.cache", root.resolve("pod-d_old/x.cache"));
        Images.Recorder recorder = new Images.Recorder();

        List<ContainerUsage> usages = CacheFiles.directory(root).read(recorder);

        assertEquals(List.of("file/unknown_size"), recorder.reasons);
        assertTrue(recorder.items.get(0).contains("804681 bytes"), recorder.items.get(0));
        assertEquals(List.of("pod-a", "pod-b", "pod-c"), usages.stream().map(ContainerUsage::podUid).toList());
        assertEquals(KnownValues.usage(true), usages.get(0).devices());
        assertEquals(KnownValues.usage(true), usages.get(1).devices());
        assertEquals(KnownValues.usage(false), usages.get(2).devices());
    }

    @Test
    void decodesEveryFieldOfTheFixtures() throws IOException {
        CacheFileReader reader = new CacheFileReader();
        ReadResult v12 = reader.read(unpack("v1.2.cache", root.resolve("a.cache")));
        KnownValues.assertContent(v12.content(), 2);
        assertEquals(2_008_953, v12.content().fileSize());
        ReadResult v0 = reader.read(unpack("v0.cache", root.resolve("b.cache")));
        KnownValues.assertContent(v0.content(), 0);
        assertEquals(1_197_897, v0.content().fileSize());
    }
}
