package io.hamiobserve.exposition;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a reader of a {@link Fingerprint} relies on (the console reads a node's allocations again
 * only where its fingerprint moved): equal sequences give the same number however the strings were
 * made; any change of a text, a number, the order, or where one text ends and the next begins gives
 * another; every number is a whole one below 2^52, so a sample's double carries it exactly.
 */
class FingerprintTest {
    private static double fingerprint(Consumer<Fingerprint> folds) {
        Fingerprint fingerprint = new Fingerprint();
        folds.accept(fingerprint);
        return fingerprint.value();
    }

    private static void twoPods(Fingerprint fingerprint) {
        fingerprint.add("train-0").add("worker").add(4096L).add(30.0);
        fingerprint.add("serve-1").add("server").add(2048L).add(0.0);
    }

    @Test
    void equalSequencesGiveTheSameFingerprintAndAnyChangeAnother() {
        double same = fingerprint(FingerprintTest::twoPods);
        // The same values in other String objects (a ledger read again).
        assertEquals(same, fingerprint(fingerprint -> {
            fingerprint.add(new String("train-0")).add(new StringBuilder("work").append("er").toString())
                    .add(4096L).add(30.0);
            fingerprint.add("serve-1").add("server").add(2048L).add(0.0);
        }));
        Set<Double> seen = new HashSet<>();
        seen.add(same);
        for (Consumer<Fingerprint> changed : List.<Consumer<Fingerprint>>of(
                fingerprint -> { // one more item
                    twoPods(fingerprint);
                    fingerprint.add("serve-2");
                },
                fingerprint -> { // one byte more
                    fingerprint.add("train-0").add("worker").add(4097L).add(30.0);
                    fingerprint.add("serve-1").add("server").add(2048L).add(0.0);
                },
                fingerprint -> { // a text, of the same length
                    fingerprint.add("train-1").add("worker").add(4096L).add(30.0);
                    fingerprint.add("serve-1").add("server").add(2048L).add(0.0);
                },
                fingerprint -> { // where one text ends and the next begins
                    fingerprint.add("train-0w").add("orker").add(4096L).add(30.0);
                    fingerprint.add("serve-1").add("server").add(2048L).add(0.0);
                },
                fingerprint -> { // the order
                    fingerprint.add("serve-1").add("server").add(2048L).add(0.0);
                    fingerprint.add("train-0").add("worker").add(4096L).add(30.0);
                },
                fingerprint -> { // a fraction of a core
                    fingerprint.add("train-0").add("worker").add(4096L).add(30.5);
                    fingerprint.add("serve-1").add("server").add(2048L).add(0.0);
                },
                fingerprint -> { // zero's sign
                    fingerprint.add("train-0").add("worker").add(4096L).add(30.0);
                    fingerprint.add("serve-1").add("server").add(2048L).add(-0.0);
                },
                fingerprint -> { // a pod gone
                    fingerprint.add("train-0").add("worker").add(4096L).add(30.0);
                },
                fingerprint -> { // nothing at all
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
            double fingerprint = fingerprint(folds -> folds.add("pod-" + p).add("main").add(p % 7));
            assertEquals(Math.floor(fingerprint), fingerprint);
            assertTrue(fingerprint >= 0 && fingerprint < 0x1p52, String.valueOf(fingerprint));
            assertTrue(seen.add(fingerprint), "two of 20,000 pods share a fingerprint");
            top = Math.max(top, fingerprint);
        }
        // Spread over the 52 bits, not bunched low: the largest of 20,000 is near the top.
        assertTrue(top > 0x1p51, "the largest of 20,000 fingerprints is " + top);
    }

    @Test
    void everyCharacterOfATextCountsWhereverItIsAndItsEndToo() {
        // Texts are folded four characters a step: a change at any position of a card's UUID (40
        // characters: ten whole steps), to any other character, and a text that only gains trailing
        // NULs, each give a fingerprint of its own.
        String uuid = "GPU-002cd5f0-0000-4000-a000-000016f179d0";
        Set<Double> seen = new HashSet<>();
        seen.add(fingerprint(folds -> folds.add(uuid).add("main")));
        for (int at = 0; at < uuid.length(); at++) {
            for (char other : new char[] {'0', 'f', 'Z', '\u0000', '\u00e9', '\uffff'}) {
                if (uuid.charAt(at) == other) {
                    continue;
                }
                String changed = uuid.substring(0, at) + other + uuid.substring(at + 1);
                assertTrue(seen.add(fingerprint(folds -> folds.add(changed).add("main"))),
                        "a change at " + at + " to " + (int) other + " gave a fingerprint seen before");
            }
        }
        for (String padded = "a"; padded.length() <= 9; padded += "\u0000") {
            String value = padded;
            assertTrue(seen.add(fingerprint(folds -> folds.add(value).add("main"))),
                    "\"a\" and " + (value.length() - 1) + " NULs gave a fingerprint seen before");
        }
    }

    @Test
    void everyBitOfANumberCountsAndSoDoesEachSmallStepWhenItComesLast() {
        // A number is folded in one step and the fingerprint keeps the top 52 bits of 64: a change
        // of any one bit, and every small number in the last place, still shows.
        long number = 0x0123456789abcdefL;
        Set<Double> seen = new HashSet<>();
        seen.add(fingerprint(folds -> folds.add("pod").add(number)));
        for (int bit = 0; bit < 64; bit++) {
            long flipped = number ^ (1L << bit);
            assertTrue(seen.add(fingerprint(folds -> folds.add("pod").add(flipped))), "bit " + bit);
        }
        Set<Double> small = new HashSet<>();
        for (long last = 0; last < 10_000; last++) {
            long value = last;
            assertTrue(small.add(fingerprint(folds -> folds.add("pod").add(value))), "the number " + last);
        }
    }

    @Test
    void textsOfTheSameJavaHashAndLengthDiffer() {
        // "Aa" and "BB" have the same String.hashCode and length: a fingerprint made of the strings'
        // own hashes (cheaper: they are kept in the strings) would miss such a change. Measured
        // not to make a scrape after 1,000 pod events any faster (docs/benchmarks.md), so not done.
        assertEquals("Aa".hashCode(), "BB".hashCode());
        assertNotEquals(fingerprint(folds -> folds.add("Aa").add("main")),
                fingerprint(folds -> folds.add("BB").add("main")));
    }
}
