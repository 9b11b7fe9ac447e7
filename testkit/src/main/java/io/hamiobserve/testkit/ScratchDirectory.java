package io.hamiobserve.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A temporary directory deleted with everything in it when closed: a benchmark writes hundreds of
 * megabytes of cache files (a v1.2 file is about 4.8 MB), run after run.
 */
public final class ScratchDirectory implements AutoCloseable {
    private final Path path;

    private ScratchDirectory(Path path) {
        this.path = path;
    }

    /** A new directory under the system's temporary directory, its name starting with {@code prefix}. */
    public static ScratchDirectory create(String prefix) throws IOException {
        return new ScratchDirectory(Files.createTempDirectory(prefix));
    }

    public Path path() {
        return path;
    }

    /** Deletes the directory and what it holds; links are deleted, never followed. */
    @Override
    public void close() {
        try {
            deleteTree(path);
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot delete " + path, failed);
        }
    }

    /**
     * Deletes {@code root} and everything under it, deepest first; links are deleted, never
     * followed. What can be deleted is, whatever fails on the way; the first failure is thrown after.
     */
    public static void deleteTree(Path root) throws IOException {
        IOException first = null;
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(root)) {
            paths = walk.sorted(Comparator.reverseOrder()).toList();
        } catch (UncheckedIOException vanished) {
            throw vanished.getCause();
        }
        for (Path each : paths) {
            try {
                Files.deleteIfExists(each);
            } catch (IOException failed) {
                first = first == null ? failed : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
