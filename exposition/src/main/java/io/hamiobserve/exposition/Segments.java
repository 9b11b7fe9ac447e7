package io.hamiobserve.exposition;

import java.util.function.Consumer;

/**
 * What a segmented catalogue fills: sections of families, each with the segments that contribute
 * to them. A <em>section</em> is a set of families fed by the same kind of domain object (say,
 * every per-card family); a <em>segment</em> is what one such object contributes to them (one
 * node's cards), named by a key that is equal exactly when the object is. How the segments become
 * bytes is the filler's business: {@link SegmentedExposition} renders and keeps each segment,
 * {@link AllSegments} collects every segment into one set of snapshots.
 */
public interface Segments {
    /**
     * Starts a section. {@code layout} starts its families; it runs before each segment's producer.
     *
     * @param name a name unique in the exposition: segments are kept per section
     */
    Section section(String name, Consumer<Families> layout);

    /** A set of families and the segments that contribute to them. */
    interface Section {
        /**
         * Adds a segment. {@code producer} adds the object's points to the section's families
         * (found with {@link Families#get}).
         *
         * @param key equal exactly when the points would be equal; {@code null} renders every time
         */
        void segment(Object key, Consumer<Families> producer);
    }
}
