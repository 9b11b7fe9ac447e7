package io.hamiobserve.exposition;

import java.util.ArrayList;
import java.util.List;

/**
 * A decorator whose families each follow one family of the catalogue, point by point: every
 * data point of the source family becomes a point of its twin with the same value, under label
 * values {@link Relabel derived} from the source's. A twin is started only beside its started
 * source, so a section without the source has no twin either.
 */
public final class Twins implements FamilyDecorator {
    /** The twin's label values for one point of the source family. */
    @FunctionalInterface
    public interface Relabel {
        /**
         * @param labels   the source point's label values, in the source family's label order
         * @param families the collection, for the values of other families under the same labels
         * @return the twin's label values, in the twin's label order; null when this point has no
         *         twin (the twin's labels need a figure the source point lacks)
         */
        String[] apply(String[] labels, Families families);
    }

    private record Twin(MetricFamily source, MetricFamily twin, Relabel relabel) {
    }

    private final List<Twin> twins;

    private Twins(List<Twin> twins) {
        this.twins = List.copyOf(twins);
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void layout(Families families) {
        for (Twin twin : twins) {
            if (families.holds(twin.source())) {
                families.of(twin.twin());
            }
        }
    }

    @Override
    public void decorate(Families families) {
        for (Twin twin : twins) {
            if (families.holds(twin.source())) {
                MetricFamily.Points points = families.get(twin.twin());
                families.get(twin.source()).forEach((labels, value) -> {
                    String[] twinLabels = twin.relabel().apply(labels, families);
                    if (twinLabels != null) {
                        points.add(value, twinLabels);
                    }
                });
            }
        }
    }

    /** Collects the twins, in the order their families are started. */
    public static final class Builder {
        private final List<Twin> twins = new ArrayList<>();

        private Builder() {
        }

        /** {@code twin} takes the source's label values in the same positions, under its own label names. */
        public Builder renamed(MetricFamily source, MetricFamily twin) {
            if (twin.labels().size() != source.labels().size()) {
                throw new IllegalArgumentException(twin.name() + " cannot take the labels of " + source.name());
            }
            return derived(source, twin, (labels, families) -> labels);
        }

        /** {@code twin} takes the label values {@code relabel} gives. */
        public Builder derived(MetricFamily source, MetricFamily twin, Relabel relabel) {
            twins.add(new Twin(source, twin, relabel));
            return this;
        }

        public Twins build() {
            return new Twins(twins);
        }
    }
}
