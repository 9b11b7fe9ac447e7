package io.hamiobserve.configfiles;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/** A small file named by the operator, refused with a one-line message when it is not one. */
public final class OperatorFile {
    private OperatorFile() {
    }

    /**
     * The bytes of {@code file}, which must be a regular file (a device such as {@code /dev/zero}, a
     * FIFO or a directory is refused before it is opened, so nothing can hang or run without end)
     * of at most {@code maxBytes}. {@code what} names the file in messages, e.g. "web config".
     */
    public static byte[] read(Path file, int maxBytes, String what) {
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

    /**
     * A path written in a file, resolved against the file's folder ({@code base}; none: as written),
     * as Prometheus resolves its own config's paths. {@code key} and {@code name} say where it was.
     */
    public static Path resolve(Path base, String written, String key, String name) {
        try {
            return base == null ? Path.of(written) : base.resolve(written);
        } catch (InvalidPathException invalid) {
            throw new IllegalArgumentException(name + ": " + key + " is not a file path: " + oneLine(written));
        }
    }

    /** A key or value quoted in a message: its first line, control characters replaced, at most 120 characters. */
    public static String oneLine(String text) {
        if (text == null) {
            return "(none)";
        }
        String line = text.lines().findFirst().orElse("").replaceAll("\\p{Cntrl}", "?");
        return line.length() > 120 ? line.substring(0, 120) + "..." : line;
    }
}
