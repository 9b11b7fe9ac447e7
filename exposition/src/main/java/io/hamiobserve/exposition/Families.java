package io.hamiobserve.exposition;

import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The families of one collection (a scrape, or one segment of it) and their data points; families
 * without data points are left out of the snapshots, as HAMi does. Not thread-safe.
 */
public final class Families {
    private final List<MetricFamily.Points> all = new ArrayList<>();
    /** Per family looked up by label values: the first value of each label set. */
    private final Map<MetricFamily, Map<List<String>, Double>> indexes = new HashMap<>();
    private final MetricFamily.LastRow lastRow = new MetricFamily.LastRow();

    /** Starts a family for this scrape. */
    public MetricFamily.Points of(MetricFamily family) {
        MetricFamily.Points points = family.points(lastRow);
        all.add(points);
        return points;
    }

    /** Whether {@code family} was started in this collection. */
    public boolean holds(MetricFamily family) {
        for (MetricFamily.Points points : all) {
            if (points.family() == family) {
                return true;
            }
        }
        return false;
    }

    /**
     * The value of {@code family}'s data point with these label values (in the family's label
     * order), the first one added where several were; empty when there is none. Indexes the
     * family's points on first use: call once the family is complete.
     */
    public OptionalDouble valueOf(MetricFamily family, String... labelValues) {
        Map<List<String>, Double> index = indexes.computeIfAbsent(family, started -> {
            Map<List<String>, Double> byLabels = new HashMap<>();
            get(started).forEach((labels, value) -> byLabels.putIfAbsent(Arrays.asList(labels), value));
            return byLabels;
        });
        Double value = index.get(Arrays.asList(labelValues));
        return value == null ? OptionalDouble.empty() : OptionalDouble.of(value);
    }

    /** How many bits of a {@link #fingerprint} are kept: as many as a double holds exactly. */
    public static final int FINGERPRINT_BITS = 52;

    /**
     * Where {@code families}' points stand now (each must have been started): a
     * {@link #fingerprint} of the mark covers the points added after it, whatever the collection
     * held before (a segment's own families, or one collection shared by every segment).
     */
    public Mark mark(MetricFamily... families) {
        int[] sizes = new int[families.length];
        for (int i = 0; i < families.length; i++) {
            sizes[i] = get(families[i]).added();
        }
        return new Mark(families.clone(), sizes);
    }

    /** Where some families' points stood: {@link #mark}. */
    public record Mark(MetricFamily[] families, int[] sizes) {
    }

    /**
     * A fingerprint of the points added to {@code since}'s families after it (label values and
     * values, in the order added), as a number below 2<sup>52</sup> that a sample's double holds
     * exactly: equal for equal points; after any change different but for a chance of
     * 2<sup>-52</sup>, or a crafted collision (the hash is in the manner of FNV-1a, fast, not cryptographic: a reader
     * that relies on it re-reads everything now and then). A reader compares it with the one it last
     * saw to know whether the points changed without reading them.
     */
    public double fingerprint(Mark since) {
        long hash = FNV_OFFSET;
        for (int i = 0; i < since.families().length; i++) {
            MetricFamily family = since.families()[i];
            long[] state = {mixed(hash, family.name())};
            get(family).forEachFrom(since.sizes()[i], (labels, value) -> {
                long h = state[0];
                for (String label : labels) {
                    h = mixed(h, label);
                }
                long bits = Double.doubleToLongBits(value);
                for (int shift = 0; shift < 64; shift += 16) {
                    h = (h ^ ((bits >>> shift) & 0xffff)) * FNV_PRIME;
                }
                state[0] = h;
            });
            hash = state[0];
        }
        // FNV's low bits mix least: its top 52 are kept.
        return hash >>> (64 - FINGERPRINT_BITS);
    }

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    /**
     * {@code text} and its end folded into {@code hash}, four characters a step: each step is a
     * bijection of the hash (an exclusive or with the four characters packed whole, then an odd
     * multiplier and a rotation, which carries the high bits' changes down), so two texts of one
     * length that differ in any one step's characters fold differently ("Aa" and "BB", whose Java
     * hashes are equal, included). The end folds in the length: "ab","c" and "a","bc" differ. A
     * character a step cost a fifth of a scrape's work after many pod events (docs/benchmarks.md).
     */
    private static long mixed(long hash, String text) {
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
        return (h ^ (0x10000L | (long) length << 17)) * FNV_PRIME;
    }

    /** The points of a family started earlier, so a layout and its producers can be written apart. */
    public MetricFamily.Points get(MetricFamily family) {
        for (MetricFamily.Points points : all) {
            if (points.family() == family) {
                return points;
            }
        }
        throw new IllegalArgumentException(family.name() + " was not started in this collection");
    }

    /** The families started so far, in order. */
    public List<MetricFamily> started() {
        return all.stream().map(MetricFamily.Points::family).toList();
    }

    /** The families with data points, in the order started. */
    List<MetricFamily.Points> nonEmpty() {
        List<MetricFamily.Points> nonEmpty = new ArrayList<>(all.size());
        for (MetricFamily.Points points : all) {
            if (!points.isEmpty()) {
                nonEmpty.add(points);
            }
        }
        return nonEmpty;
    }

    /** The snapshots of the families with data points. */
    public MetricSnapshots snapshots() {
        return snapshots(new LabelSets());
    }

    /** The snapshots of the families with data points, their label sets made through {@code labelSets}. */
    public MetricSnapshots snapshots(LabelSets labelSets) {
        List<MetricSnapshot> snapshots = new ArrayList<>();
        for (MetricFamily.Points points : all) {
            if (!points.isEmpty()) {
                snapshots.add(points.snapshot(labelSets));
            }
        }
        return new MetricSnapshots(snapshots);
    }
}
