package io.hamiobserve.exposition.testing;

import io.hamiobserve.exposition.Families;
import io.hamiobserve.exposition.Segments;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A catalogue's segments handed on to {@code into}, each producer counted when it runs: how a test
 * sees which segments an exposition rendered anew (a kept segment's producer does not run).
 */
public final class CountingSegments implements Segments {
    private final Segments into;
    private final AtomicLong produced;

    /** @param produced counts every producer run, over as many expositions as share it */
    public CountingSegments(Segments into, AtomicLong produced) {
        this.into = into;
        this.produced = produced;
    }

    @Override
    public Section section(String name, Consumer<Families> layout) {
        Section section = into.section(name, layout);
        return (key, producer) -> section.segment(key, families -> {
            produced.incrementAndGet();
            producer.accept(families);
        });
    }
}
