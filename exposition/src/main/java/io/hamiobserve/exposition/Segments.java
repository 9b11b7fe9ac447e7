package io.hamiobserve.exposition;

import java.util.function.BiConsumer;
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

        /**
         * Adds a segment made of parts (a node's pods): {@code producer} adds each part with
         * {@link Parts#part}, then the segment's own points to {@link Parts#families()}. A part's
         * lines are written after the lines of the parts before it, family by family, each part's
         * sorted by label values; the segment's own points come last. Parts must never write the
         * same series: where two sources might (two pods of one name), the producer makes them one
         * part. A filler may keep each part's lines with the segment and, when the segment is
         * rendered again under another key, write again only the parts it has not seen.
         *
         * @param key     as {@link #segment(Object, Consumer)}'s
         * @param lineage names the segment across expositions (a node and what its lines are written
         *                as): the parts of its last rendering are those that may be kept
         */
        default void segment(Object key, Object lineage, Consumer<Parts> producer) {
            segment(key, families -> producer.accept(Parts.allIn(families)));
        }
    }

    /** What a segment of parts fills. */
    interface Parts {
        /**
         * Adds a part. {@code producer} adds its points and folds into the fingerprint given what
         * they are written from; the part's lines and that fingerprint may be kept while a later
         * rendering of the segment's lineage has a part of the same source (the same instance) and an
         * equal detail, and {@code producer} is then not run.
         *
         * @param source what the part is written from, compared by identity; {@code null} is never kept
         * @param detail what else its points depend on, compared by {@code equals}
         */
        void part(Object source, Object detail, BiConsumer<Families, Fingerprint> producer);

        /** The segment's own points, written after its parts'. */
        Families families();

        /** Each part's fingerprint so far, folded in the order the parts were added. */
        double partsFingerprint();

        /** Parts whose points all go into {@code families}, each run as it is added. */
        static Parts allIn(Families families) {
            return new Parts() {
                private final Fingerprint parts = new Fingerprint();

                @Override
                public void part(Object source, Object detail, BiConsumer<Families, Fingerprint> producer) {
                    Fingerprint fingerprint = new Fingerprint();
                    producer.accept(families, fingerprint);
                    parts.add(fingerprint.value());
                }

                @Override
                public Families families() {
                    return families;
                }

                @Override
                public double partsFingerprint() {
                    return parts.value();
                }
            };
        }
    }
}
