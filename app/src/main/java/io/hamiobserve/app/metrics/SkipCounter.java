package io.hamiobserve.app.metrics;

import io.hamiobserve.exposition.MetricFamily;
import io.hamiobserve.exposition.Families;

import io.hamiobserve.ports.SkipKey;
import io.hamiobserve.ports.SkipReporter;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Counts every skipped input by source, kind and reason, and logs it: the first skip of each
 * reason at WARNING with the item named, repeats at FINE so a tenant rewriting a corrupt file
 * every second cannot flood the log. Items are logged cut and escaped ({@link SkipReporter#loggable}).
 */
public final class SkipCounter implements SkipReporter {
    private static final Logger LOG = Logger.getLogger(SkipCounter.class.getName());

    static final MetricFamily SKIPPED = MetricFamily.counter("hami_observe_skipped_inputs",
            "Inputs skipped because they could not be used (malformed annotation, corrupt cache file, failing "
                    + "device call), by source, kind and reason", "source", "kind", "reason");

    private final Map<SkipKey, LongAdder> counts = new ConcurrentHashMap<>();
    private final AtomicLong changes = new AtomicLong();

    @Override
    public void skipped(SkipKey key, String item) {
        skipped(key, item, 1);
    }

    @Override
    public void skipped(SkipKey key, String item, int skips) {
        if (skips <= 0) {
            return;
        }
        LongAdder count = counts.get(key);
        boolean first = count == null;
        if (first) {
            count = counts.computeIfAbsent(key, k -> new LongAdder());
        }
        count.add(skips);
        changes.incrementAndGet();
        LOG.log(first ? Level.WARNING : Level.FINE, "skipped {0} {1} from {2}: {3}",
                new Object[] {key.kind(), SkipReporter.loggable(item), key.source(), key.reason()});
    }

    /** Increases with every skip; equal values mean equal counts. */
    public long changes() {
        return changes.get();
    }

    void addTo(Families families) {
        var points = families.of(SKIPPED);
        counts.forEach((key, count) -> points.add(count.sum(), key.source(), key.kind(), key.reason()));
    }
}
