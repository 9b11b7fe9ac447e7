package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CacheFileInspectorTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path root;

    @Test
    void describesAFileAsText() throws IOException {
        Path file = FixtureTest.unpack("v1.2.cache", root.resolve("pod-a_main/x.cache"));
        String text = CacheFileInspector.describe(file, false);
        assertTrue(text.contains("status: read\n"), text);
        assertTrue(text.contains("version: v1.2\n"), text);
        assertTrue(text.contains("uuid: GPU-c0ffee00-0000-4000-8000-000000000001\n"), text);
        assertTrue(text.contains("exited_slots: 1\n"), text);
        assertTrue(text.contains("status: suspended\n"), text);
        // Σ over the four live processes of device 0: context 1000·(1+2+3+5)+4 = 11004, ×5+4 in total.
        assertTrue(text.contains("used_bytes: 55024\n"), text);
    }

    @Test
    void explainsARejectedFile() throws IOException {
        Path file = FixtureTest.unpack("pre-utilisation-804681.cache", root.resolve("old.cache"));
        String text = CacheFileInspector.describe(file, false);
        assertTrue(text.contains("status: rejected\nreason: unknown_size\ndetail: 804681 bytes: smaller than the v0 layout"),
                text);
        JsonNode json = JSON.readTree(CacheFileInspector.describe(file, true));
        assertEquals("rejected", json.path("status").asString());
        assertEquals("unknown_size", json.path("reason").asString());
    }

    @Test
    void describesAContainersDirectoryAsJson() throws IOException {
        FixtureTest.unpack("v0.cache", root.resolve("pod-a_main/x.cache"));
        Files.createDirectories(root.resolve("no-underscore"));
        Path bad = Files.createDirectories(root.resolve("pod-b_side")).resolve("y.cache");
        byte[] uuidWithEscape = Images.v12();
        // A tenant's UUID bytes: rejected as not printable, and never echoed raw.
        uuidWithEscape[CacheLayout.V1.uuidOffset(0) + 3] = 0x1b;
        Files.write(bad, uuidWithEscape);

        String text = CacheFileInspector.describe(root, true);
        JsonNode json = JSON.readTree(text);

        assertEquals(root.toString(), json.path("containers_directory").asString());
        assertEquals("pod-a", json.path("served").path(0).path("pod_uid").asString());
        assertEquals(List.of("directory/no_underscore", "device/bad_uuid"), kindsAndReasons(json.path("skipped")));
        assertEquals("v0", json.path("files").path(0).path("version").asString());
        assertEquals("not recorded in v0", json.path("files").path(0).path("last_kernel_time").asString());
        assertEquals("(bad_uuid)", json.path("files").path(1).path("devices").path(0).path("uuid").asString());
        // A tenant's bytes are never echoed raw: JSON escapes what is not printable ASCII.
        assertEquals(-1, text.indexOf('\u001b'));
        assertTrue(text.chars().allMatch(c -> c == '\n' || (c >= 0x20 && c < 0x7f)), text);
    }

    /**
     * The inspector lists the files the exporter reads and no others: a container's first 16 cache
     * files by name. A 17th is counted as too_many_cache_files and not described.
     */
    @Test
    void walksAContainersDirectoryAsTheSourceDoes() throws IOException {
        Path directory = Files.createDirectories(root.resolve("pod-a_main"));
        byte[] bytes = Images.v12();
        for (int i = 1; i <= CacheFileSource.MAX_CACHE_FILES + 1; i++) {
            Files.write(directory.resolve(String.format("f%02d.cache", i)), bytes);
        }
        Path seventeenth = directory.resolve("f17.cache");

        for (Path inspected : List.of(root, directory)) {
            JsonNode json = JSON.readTree(CacheFileInspector.describe(inspected, true));
            List<String> files = new ArrayList<>();
            json.path("files").forEach(file -> files.add(file.path("file").asString()));
            assertEquals(CacheFileSource.MAX_CACHE_FILES, files.size(), files::toString);
            assertEquals(directory.resolve("f01.cache").toString(), files.getFirst());
            assertFalse(files.contains(seventeenth.toString()), files::toString);
            assertEquals(List.of("directory/too_many_cache_files"), kindsAndReasons(json.path("skipped")));
            // Served: the 16 files merged, as the exporter serves them.
            assertEquals(16L * 2, json.path("served").path(0).path("devices").path(0).path("live_processes").asLong());
        }
        String text = CacheFileInspector.describe(root, false);
        assertFalse(text.contains("f17.cache"), text);
    }

    private static List<String> kindsAndReasons(JsonNode skipped) {
        List<String> found = new ArrayList<>();
        skipped.forEach(skip -> found.add(skip.path("kind").asString() + "/" + skip.path("reason").asString()));
        return found;
    }

    @Test
    void describesOneContainerDirectory() throws IOException {
        Path directory = root.resolve("pod-a_main");
        FixtureTest.unpack("v1.0.cache", directory.resolve("a.cache"));
        FixtureTest.unpack("v1.2.cache", directory.resolve("b.cache"));
        String text = CacheFileInspector.describe(directory, false);
        assertTrue(text.startsWith("container_directory: " + directory + "\nserved:\n  -\n    pod_uid: pod-a\n"), text);
        // Two identical files merged: twice the single file's use.
        assertTrue(text.contains("used_bytes: 110048\n"), text);
    }
}
