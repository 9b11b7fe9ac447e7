package io.hamiobserve.exposition;

/**
 * A fingerprint being made: texts and numbers folded in, in order, into a 64-bit hash in the manner
 * of FNV-1a, read as a number below 2<sup>52</sup> that a sample's double holds exactly. Equal
 * sequences give equal fingerprints; after any change another, but for a chance of
 * 2<sup>-52</sup> or a crafted collision (fast, not cryptographic: a reader that relies on it
 * re-reads everything now and then). A reader compares it with the one it last saw to know whether
 * what it covers changed without reading that. Not thread-safe.
 */
public final class Fingerprint {
    /** How many bits of a {@link #value} are kept: as many as a double holds exactly. */
    public static final int BITS = 52;

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private long hash = FNV_OFFSET;

    /**
     * {@code text} and its end folded in, four characters a step: each step is a bijection of the
     * hash (an exclusive or with the four characters packed whole, then an odd multiplier and a
     * rotation, which carries the high bits' changes down), so two texts of one length that differ
     * in any one step's characters fold differently ("Aa" and "BB", whose Java hashes are equal,
     * included). The end folds in the length: "ab","c" and "a","bc" differ. A character a step cost a
     * fifth of a scrape's work after many pod events (docs/benchmarks.md).
     */
    public Fingerprint add(String text) {
        long h = hash;
        int length = text.length();
        int i = 0;
        for (; i + 4 <= length; i += 4) {
            long word = text.charAt(i) | (long) text.charAt(i + 1) << 16 | (long) text.charAt(i + 2) << 32
                    | (long) text.charAt(i + 3) << 48;
            h = Long.rotateLeft((h ^ word) * FNV_PRIME, 29);
        }
        long rest = 0;
        for (int shift = 0; i < length; i++, shift += 16) {
            rest |= (long) text.charAt(i) << shift;
        }
        h = Long.rotateLeft((h ^ rest) * FNV_PRIME, 29);
        hash = (h ^ (0x10000L | (long) length << 17)) * FNV_PRIME;
        return this;
    }

    /**
     * {@code number} folded in, in one step: a rotation that carries the hash's high bits down, the
     * exclusive or, then the odd multiplier (a bijection of the number, so two numbers always fold
     * differently, and the product's top bits, which {@link #value} keeps, depend on all of them).
     * FNV's sixteen bits a step took four steps for each of a pod's figures.
     */
    public Fingerprint add(long number) {
        hash = (Long.rotateLeft(hash, 29) ^ number) * FNV_PRIME;
        return this;
    }

    /** {@code number}'s bits folded in ({@link Double#doubleToLongBits}: 0.0 and -0.0 differ, every NaN is one). */
    public Fingerprint add(double number) {
        return add(Double.doubleToLongBits(number));
    }

    /** The fingerprint of what was folded in so far: a whole number below 2<sup>52</sup>. */
    public double value() {
        // FNV's low bits mix least: its top 52 are kept.
        return hash >>> (64 - BITS);
    }
}
