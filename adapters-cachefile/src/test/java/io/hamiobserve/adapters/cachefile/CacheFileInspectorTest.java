package io.hamiobserve.adapters.cachefile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CacheFileInspectorTest {
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
        String json = CacheFileInspector.describe(file, true);
        assertTrue(json.contains("\"reason\": \"unknown_size\""), json);
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

        String json = CacheFileInspector.describe(root, true);

        assertTrue(json.startsWith("{\n  \"containers_directory\": "), json);
        assertTrue(json.contains("\"pod_uid\": \"pod-a\""), json);
        assertTrue(json.contains("\"reason\": \"no_underscore\""), json);
        assertTrue(json.contains("\"reason\": \"bad_uuid\""), json);
        assertTrue(json.contains("\"version\": \"v0\""), json);
        assertTrue(json.contains("\"last_kernel_time\": \"not recorded in v0\""), json);
        assertEquals(-1, json.indexOf('\u001b'));
        assertBalanced(json);
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

    @Test
    void escapesJsonStrings() {
        assertEquals("\"a\\\"b\\\\c\\n\\u0001\"\n", Tree.json("a\"b\\c\n\u0001"));
    }

    private static void assertBalanced(String json) {
        int depth = 0;
        boolean inString = false;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
                assertTrue(depth >= 0);
            }
        }
        assertEquals(0, depth);
        assertTrue(!inString);
    }
}
