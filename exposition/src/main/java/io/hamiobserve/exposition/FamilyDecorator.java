package io.hamiobserve.exposition;

/**
 * Families derived from those a catalogue produced, added after it has run, for every collection
 * the engine makes (a whole scrape, or each segment of one): how HAMi's pre-2.9 names are offered
 * beside the modern ones, without the catalogue knowing. {@link Twins} derives them point by point.
 */
public interface FamilyDecorator {
    /** Adds nothing. */
    FamilyDecorator NONE = new FamilyDecorator() {
        @Override
        public void layout(Families families) {
        }

        @Override
        public void decorate(Families families) {
        }
    };

    /** Starts the decorator's families beside those the catalogue has started. */
    void layout(Families families);

    /** Adds the decorator's points from the points the catalogue has added; after {@link #layout}. */
    void decorate(Families families);

    /** {@code families}, complete as the catalogue left them, with the decorator's added. */
    default Families decorated(Families families) {
        layout(families);
        decorate(families);
        return families;
    }
}
