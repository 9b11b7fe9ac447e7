package io.hamiobserve.demo;

import io.hamiobserve.testkit.ScratchDirectory;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DemoCacheRootTest {
    @Test
    void closeRemovesTheTreeDeletingLinksWithoutFollowingThemAndRefusesLaterWrites() throws IOException {
        try (ScratchDirectory outside = ScratchDirectory.create("demo-cache-root-outside")) {
            Path kept = Files.writeString(outside.path().resolve("not-the-demo's.cache"), "keep me");
            DemoCacheRoot root = DemoCacheRoot.create();
            Path pod = Files.createDirectories(root.path().resolve("pod-uid_container"));
            Files.write(pod.resolve("1.cache"), new byte[4096]);
            Files.createSymbolicLink(pod.resolve("link-to-outside"), outside.path());
            Files.createSymbolicLink(root.path().resolve("dangling"), root.path().resolve("gone"));

            root.close();
            root.close();

            assertFalse(Files.exists(root.path(), LinkOption.NOFOLLOW_LINKS));
            assertTrue(Files.exists(kept), "a link's target outside the tree is not deleted");
            assertEquals("keep me", Files.readString(kept));
            assertFalse(root.whileOpen(() -> Files.writeString(root.path().resolve("late"), "x")));
        }
    }

    @Test
    void deleteTreeOfAMissingDirectoryNamesIt() {
        Path missing = Path.of(System.getProperty("java.io.tmpdir"), "hami-observe-no-such-tree-" + System.nanoTime());
        IOException failure = assertThrows(IOException.class,
                () -> ScratchDirectory.deleteTree(missing));
        assertTrue(failure.getMessage().contains(missing.getFileName().toString()), failure::getMessage);
    }
}
