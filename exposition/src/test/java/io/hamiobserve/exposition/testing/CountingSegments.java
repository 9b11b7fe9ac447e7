package io.hamiobserve.exposition.testing;

import io.hamiobserve.exposition.Families;
import io.hamiobserve.exposition.Fingerprint;
import io.hamiobserve.exposition.Segments;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A catalogue's segments handed on to {@code into}, each producer counted when it runs: how a test
 * sees which segments an exposition rendered anew (a kept segment's producer does not run), and of
 * a segment of parts, which parts (a kept part's producer does not run).
 */
public final class CountingSegments implements Segments {
    private final Segments into;
    private final AtomicLong produced;
    private final AtomicLong partsProduced;

    /** @param produced counts every producer run, over as many expositions as share it */
    public CountingSegments(Segments into, AtomicLong produced) {
        this(into, produced, new AtomicLong());
    }

    /**
     * @param produced      counts every segment's producer run
     * @param partsProduced counts every part's producer run
     */
    public CountingSegments(Segments into, AtomicLong produced, AtomicLong partsProduced) {
        this.into = into;
        this.produced = produced;
        this.partsProduced = partsProduced;
    }

    @Override
    public Section section(String name, Consumer<Families> layout) {
        Section section = into.section(name, layout);
        return new Section() {
            @Override
            public void segment(Object key, Consumer<Families> producer) {
                section.segment(key, families -> {
                    produced.incrementAndGet();
                    producer.accept(families);
                });
            }

            @Override
            public void segment(Object key, Object lineage, Consumer<Parts> producer) {
                section.segment(key, lineage, parts -> {
                    produced.incrementAndGet();
                    producer.accept(new Parts() {
                        @Override
                        public void part(Object source, Object detail, BiConsumer<Families, Fingerprint> part) {
                            parts.part(source, detail, (families, fingerprint) -> {
                                partsProduced.incrementAndGet();
                                part.accept(families, fingerprint);
                            });
                        }

                        @Override
                        public Families families() {
                            return parts.families();
                        }

                        @Override
                        public double partsFingerprint() {
                            return parts.partsFingerprint();
                        }
                    });
                });
            }
        };
    }
}
