package io.hamiobserve.exposition;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a reader of {@link Families#fingerprint} relies on (the console reads a node's allocations
 * again only where its fingerprint moved): equal points give the same number, whatever else the
 * collection holds and however the strings were made; any change of a label value, a value, the
 * order, or which family holds a point gives another; every number is a whole one below 2^52, so a
 * sample's double carries it exactly.
 */
class FingerprintTest {
    private static final MetricFamily SHARE = MetricFamily.hamiGauge("hami_test_share_bytes", "share", "pod", "container");
    private static final MetricFamily CORES = MetricFamily.hamiGauge("hami_test_share_cores", "cores", "pod", "container");

    /** The fingerprint of what {@code node} adds after a mark, in a collection that already holds other points. */
    private static double fingerprint(Consumer<Families> node) {
        Families families = new Families();
        families.of(SHARE).add(1, "before-the-mark", "x");
        families.of(CORES);
        Families.Mark mark = families.mark(SHARE, CORES);
        node.accept(families);
        return families.fingerprint(mark);
    }

    private static void twoPods(Families families) {
        families.get(SHARE).add(4096, "train-0", "worker");
        families.get(CORES).add(30, "train-0", "worker");
        families.get(SHARE).add(2048, "serve-1", "server");
    }

    @Test
    void equalPointsGiveTheSameFingerprintAndAnyChangeAnother() {
        double same = fingerprint(FingerprintTest::twoPods);
        // The same values in other String objects (a ledger read again), and the points before the mark changed.
        assertEquals(same, fingerprint(families -> {
            families.get(SHARE).add(4096, new String("train-0"), new StringBuilder("work").append("er").toString());
            families.get(CORES).add(30, "train-0", "worker");
            families.get(SHARE).add(2048, "serve-1", "server");
        }));
        Set<Double> seen = new HashSet<>();
        seen.add(same);
        for (Consumer<Families> changed : java.util.List.<Consumer<Families>>of(
                families -> { // a value
                    twoPods(families);
                    families.get(SHARE).add(1, "serve-2", "server");
                },
                families -> { // one byte more
                    families.get(SHARE).add(4097, "train-0", "worker");
                    families.get(CORES).add(30, "train-0", "worker");
                    families.get(SHARE).add(2048, "serve-1", "server");
                },
                families -> { // a label value, of the same length
                    families.get(SHARE).add(4096, "train-1", "worker");
                    families.get(CORES).add(30, "train-0", "worker");
                    families.get(SHARE).add(2048, "serve-1", "server");
                },
                families -> { // where one label value ends and the next begins
                    families.get(SHARE).add(4096, "train-0w", "orker");
                    families.get(CORES).add(30, "train-0", "worker");
                    families.get(SHARE).add(2048, "serve-1", "server");
                },
                families -> { // the order of the points
                    families.get(SHARE).add(2048, "serve-1", "server");
                    families.get(SHARE).add(4096, "train-0", "worker");
                    families.get(CORES).add(30, "train-0", "worker");
                },
                families -> { // the family that holds a point
                    families.get(SHARE).add(4096, "train-0", "worker");
                    families.get(SHARE).add(30, "train-0", "worker");
                    families.get(SHARE).add(2048, "serve-1", "server");
                },
                families -> { // a pod gone
                    families.get(SHARE).add(4096, "train-0", "worker");
                    families.get(CORES).add(30, "train-0", "worker");
                },
                families -> { // nothing at all
                })) {
            double fingerprint = fingerprint(changed);
            assertTrue(seen.add(fingerprint), "a change gave a fingerprint seen before: " + fingerprint);
        }
    }

    @Test
    void fingerprintsAreWholeNumbersBelowTwoToTheFiftyTwoAndSpreadOverThem() {
        double top = 0;
        Set<Double> seen = new HashSet<>();
        for (int pod = 0; pod < 20_000; pod++) {
            int p = pod;
            double fingerprint = fingerprint(families -> families.get(SHARE).add(p % 7, "pod-" + p, "main"));
            assertEquals(Math.floor(fingerprint), fingerprint);
            assertTrue(fingerprint >= 0 && fingerprint < 0x1p52, String.valueOf(fingerprint));
            assertTrue(seen.add(fingerprint), "two of 20,000 pods share a fingerprint");
            top = Math.max(top, fingerprint);
        }
        // Spread over the 52 bits, not bunched low: the largest of 20,000 is near the top.
        assertTrue(top > 0x1p51, "the largest of 20,000 fingerprints is " + top);
    }

    @Test
    void everyCharacterOfALabelValueCountsWhereverItIsAndTheValuesEndToo() {
        // Label values are folded four characters a step: a change at any position of a card's
        // UUID (37 characters: nine whole steps and a rest), to any other character, and a value
        // that only gains trailing NULs, each give a fingerprint of its own.
        String uuid = "GPU-002cd5f0-0000-4000-a000-000016f179d0";
        Set<Double> seen = new HashSet<>();
        seen.add(fingerprint(families -> families.get(SHARE).add(1, uuid, "main")));
        for (int at = 0; at < uuid.length(); at++) {
            for (char other : new char[] {'0', 'f', 'Z', '\u0000', '\u00e9', '\uffff'}) {
                if (uuid.charAt(at) == other) {
                    continue;
                }
                String changed = uuid.substring(0, at) + other + uuid.substring(at + 1);
                assertTrue(seen.add(fingerprint(families -> families.get(SHARE).add(1, changed, "main"))),
                        "a change at " + at + " to " + (int) other + " gave a fingerprint seen before");
            }
        }
        for (String padded = "a"; padded.length() <= 9; padded += "\u0000") {
            String value = padded;
            assertTrue(seen.add(fingerprint(families -> families.get(SHARE).add(1, value, "main"))),
                    "\"a\" and " + (value.length() - 1) + " NULs gave a fingerprint seen before");
        }
    }

    @Test
    void labelValuesOfTheSameJavaHashAndLengthDiffer() {
        // "Aa" and "BB" have the same String.hashCode and length: a fingerprint made of the strings'
        // own hashes (cheaper: they are kept in the strings) would miss such a change. Measured
        // not to make a scrape after 1,000 pod events any faster (docs/benchmarks.md), so not done.
        assertEquals("Aa".hashCode(), "BB".hashCode());
        assertNotEquals(fingerprint(families -> families.get(SHARE).add(1, "Aa", "main")),
                fingerprint(families -> families.get(SHARE).add(1, "BB", "main")));
    }
}
