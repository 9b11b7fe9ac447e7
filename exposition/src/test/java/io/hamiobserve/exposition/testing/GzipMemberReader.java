package io.hamiobserve.exposition.testing;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Reads a gzip stream member by member, strictly as RFC 1952 lays a member out: the fixed header
 * (deflate, no optional fields), a raw deflate stream, then CRC-32 and length of the member's
 * bytes, both checked. A reader of its own, not the JDK's {@code GZIPInputStream}, so that a test
 * sees where the members are.
 */
public final class GzipMemberReader {
    private GzipMemberReader() {
    }

    /** Each member of {@code body}, decompressed; fails on anything that is not a member. */
    public static List<byte[]> members(byte[] body) throws DataFormatException {
        List<byte[]> members = new ArrayList<>();
        int at = 0;
        while (at < body.length) {
            if (body.length - at < 18 || (body[at] & 0xff) != 0x1f || (body[at + 1] & 0xff) != 0x8b
                    || body[at + 2] != 8 || body[at + 3] != 0) {
                throw new AssertionError("no gzip member header (deflate, no optional fields) at byte " + at);
            }
            Inflater inflater = new Inflater(true);
            inflater.setInput(body, at + 10, body.length - at - 10);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            while (!inflater.finished()) {
                int n = inflater.inflate(buffer);
                if (n == 0 && inflater.needsInput()) {
                    throw new AssertionError("the member at byte " + at + " ends before its deflate stream");
                }
                out.write(buffer, 0, n);
            }
            int trailer = body.length - inflater.getRemaining();
            inflater.end();
            if (body.length - trailer < 8) {
                throw new AssertionError("the member at byte " + at + " has no CRC-32 and length");
            }
            byte[] member = out.toByteArray();
            CRC32 crc = new CRC32();
            crc.update(member);
            if (crc.getValue() != littleEndian(body, trailer) || member.length != littleEndian(body, trailer + 4)) {
                throw new AssertionError("the member at byte " + at + " fails its CRC-32 or length");
            }
            members.add(member);
            at = trailer + 8;
        }
        return members;
    }

    private static long littleEndian(byte[] bytes, int at) {
        long value = 0;
        for (int i = 3; i >= 0; i--) {
            value = (value << 8) | (bytes[at + i] & 0xff);
        }
        return value;
    }
}
