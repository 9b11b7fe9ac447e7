package io.hamiobserve.edge.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads a small file named by the operator, refusing what is not one with a one-line message. */
final class BoundedFile {
    private BoundedFile() {
    }

    /**
     * The bytes of {@code file}, which must be a regular file (a device such as {@code /dev/zero}, a
     * FIFO or a directory is refused before it is opened, so nothing can hang or run without end)
     * of at most {@code maxBytes}. {@code what} names the file in messages, e.g. "web config".
     */
    static byte[] read(Path file, int maxBytes, String what) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(what + " " + file + (Files.exists(file)
                    ? " is not a regular file" : " does not exist"));
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(maxBytes + 1);
        } catch (IOException unreadable) {
            throw new IllegalArgumentException("cannot read " + what + " " + file + ": " + unreadable.getMessage());
        }
        if (bytes.length > maxBytes) {
            throw new IllegalArgumentException(what + " " + file + " is larger than " + maxBytes + " bytes");
        }
        return bytes;
    }
}
