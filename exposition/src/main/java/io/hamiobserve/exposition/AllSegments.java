package io.hamiobserve.exposition;

import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Every segment of every section collected into one set of snapshots: what one library writer
 * call over the same data writes, each family sorted by label values. The demo's history is written
 * from it; tests hold a {@link SegmentedExposition} to it.
 */
public final class AllSegments implements Segments {
    private final FamilyDecorator decorator;
    private final List<Families> sections = new ArrayList<>();
    private boolean decorated;

    public AllSegments(FamilyDecorator decorator) {
        this.decorator = decorator;
    }

    @Override
    public Section section(String name, Consumer<Families> layout) {
        Families families = new Families();
        layout.accept(families);
        decorator.layout(families);
        sections.add(families);
        return (key, producer) -> producer.accept(families);
    }

    /** The snapshots of every section's families, decorated; once every segment is in. */
    public MetricSnapshots snapshots() {
        List<MetricSnapshot> all = new ArrayList<>();
        for (Families families : sections) {
            if (!decorated) {
                decorator.decorate(families);
            }
            families.snapshots().forEach(all::add);
        }
        decorated = true;
        return new MetricSnapshots(all);
    }
}
