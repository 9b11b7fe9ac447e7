package io.hamiobserve.exposition;

import io.prometheus.metrics.model.snapshots.Labels;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The label sets of one collection, each made once. Families of a catalogue share their label
 * sets (a container's ten usage series carry the same five labels and {@code zone}), and
 * {@link Labels#of} validates every name of every set it makes, with a fresh UTF-8 encoder per
 * name: at 200 containers that was half of what a node scrape allocated. A set asked for again
 * is the one made before; the library still validates each set it makes. (The node endpoint's
 * text formats make no label set at all: {@link TextWriter} writes its rows.) Not thread-safe:
 * one collection, one thread.
 */
public final class LabelSets {
    private record Key(String[] names, String[] values) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && Arrays.equals(names, key.names) && Arrays.equals(values, key.values);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(names) + Arrays.hashCode(values);
        }
    }

    private final Map<Key, Labels> made = new HashMap<>();

    /** Sets for a collection that starts from nothing. */
    public LabelSets() {
    }

    /** The label set of these names (sorted, as {@code Labels} keeps them) and values. */
    Labels of(String[] sortedNames, String[] values) {
        return made.computeIfAbsent(new Key(sortedNames, values), key -> Labels.of(key.names, key.values));
    }
}
