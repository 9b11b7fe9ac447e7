package io.hamiobserve.edge.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Reads an HTTP/1.0 request's head as the HTTP/1.1 request Helidon serves (see {@link GuardedHttp1}). */
final class Http10 {
    private static final byte[] VERSION_1_0 = " HTTP/1.0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLOSE = "Connection: close\r\n".getBytes(StandardCharsets.US_ASCII);

    private Http10() {
    }

    /** The index of the first CRLF, or -1. */
    static int lineEnd(byte[] bytes) {
        return indexOf(bytes, 0, "\r\n");
    }

    /** The index just after the CRLF CRLF that ends the head, or -1. */
    static int headEnd(byte[] bytes) {
        int blank = indexOf(bytes, 0, "\r\n\r\n");
        return blank < 0 ? -1 : blank + 4;
    }

    /** Whether the request line ending at {@code lineEnd} names HTTP/1.0. */
    static boolean isHttp10(byte[] bytes, int lineEnd) {
        if (lineEnd < VERSION_1_0.length) {
            return false;
        }
        for (int i = 0; i < VERSION_1_0.length; i++) {
            if (bytes[lineEnd - VERSION_1_0.length + i] != VERSION_1_0[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The same bytes with the request line's version made 1.1, {@code Connection: close} added, and
     * {@code Host} added when the head has none. What follows the head is kept as it is.
     */
    static byte[] asHttp11(byte[] bytes, int lineEnd, int headEnd, String host) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length + 64);
        out.write(bytes, 0, lineEnd - 1);
        out.write('1');
        out.write('\r');
        out.write('\n');
        out.writeBytes(CLOSE);
        if (!hasHost(bytes, lineEnd + 2, headEnd - 2)) {
            out.writeBytes(("Host: " + host + "\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        out.write(bytes, lineEnd + 2, bytes.length - lineEnd - 2);
        return out.toByteArray();
    }

    /** Whether a header line between {@code from} and {@code to} (each line ending in CRLF) is Host. */
    private static boolean hasHost(byte[] bytes, int from, int to) {
        int line = from;
        while (line < to) {
            if (to - line >= 5 && new String(bytes, line, 5, StandardCharsets.US_ASCII).equalsIgnoreCase("host:")) {
                return true;
            }
            int end = indexOf(bytes, line, "\r\n");
            if (end < 0) {
                return false;
            }
            line = end + 2;
        }
        return false;
    }

    private static int indexOf(byte[] bytes, int from, String what) {
        byte[] needle = what.getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = from; i <= bytes.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (bytes[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
