package io.hamiobserve.app.exposition;

import io.prometheus.metrics.model.snapshots.Labels;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The label sets of one collection, each made once. Families of a catalogue share their label
 * sets (a container's ten usage series carry the same five labels and {@code zone}), and
 * {@link Labels#of} validates every name of every set it makes, with a fresh UTF-8 encoder per
 * name: at 200 containers that was half of what a node scrape allocated. A set asked for again
 * is the one made before; the library still validates each set it makes. A source whose series
 * change little from scrape to scrape (a node's cards and containers) starts each collection's
 * sets with {@link #next()} of the last one, so a set that did not change is not made again; only
 * the sets of the last collection are kept. Not thread-safe: one collection, one thread.
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
    /** The sets of the collection before, looked up before a set is made. */
    private final Map<Key, Labels> before;

    /** Sets for a collection that starts from nothing. */
    public LabelSets() {
        this(Map.of());
    }

    private LabelSets(Map<Key, Labels> before) {
        this.before = before;
    }

    /** Sets for the next collection: those of this one are used again, and dropped if it does not ask for them. */
    public LabelSets next() {
        return new LabelSets(made);
    }

    /** The label set of these names (sorted, as {@code Labels} keeps them) and values. */
    Labels of(String[] sortedNames, String[] values) {
        return made.computeIfAbsent(new Key(sortedNames, values), key -> {
            Labels earlier = before.get(key);
            return earlier != null ? earlier : Labels.of(key.names, key.values);
        });
    }
}
