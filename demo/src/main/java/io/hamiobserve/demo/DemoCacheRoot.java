package io.hamiobserve.demo;

import io.hamiobserve.testkit.ScratchDirectory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The demo's temporary directory of HAMi-Core cache files, removed however the demo stops: by
 * {@link #close()} (the last step of a graceful stop), or by a shutdown hook on SIGTERM, Ctrl-C
 * or a failed start. Writers go through {@link #whileOpen}, which excludes removal: a scrape
 * still writing when the demo stops can neither leave files behind nor write into a removed tree.
 */
public final class DemoCacheRoot implements AutoCloseable {
    private final Path path;
    private boolean closed;

    private DemoCacheRoot(Path path) {
        this.path = path;
    }

    /** A fresh directory under the system's temporary directory. */
    public static DemoCacheRoot create() {
        DemoCacheRoot root;
        try {
            root = new DemoCacheRoot(Files.createTempDirectory("hami-observe-demo"));
        } catch (IOException failed) {
            throw new UncheckedIOException("cannot create the demo's cache directory", failed);
        }
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("hami-observe-demo-cleanup").unstarted(root::close));
        return root;
    }

    public Path path() {
        return path;
    }

    /** Writes into the directory. */
    @FunctionalInterface
    interface Write {
        void run() throws IOException;
    }

    /** Runs {@code write} unless the directory has been removed; returns whether it ran. */
    synchronized boolean whileOpen(Write write) throws IOException {
        if (closed) {
            return false;
        }
        write.run();
        return true;
    }

    /** Removes the directory and everything in it; later writes are refused. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            ScratchDirectory.deleteTree(path);
        } catch (IOException ignored) {
            // Already gone, or a file vanished while it was walked: nothing is left to remove.
        }
    }
}
