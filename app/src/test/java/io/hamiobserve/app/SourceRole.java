package io.hamiobserve.app;

import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.edge.testing.EdgeTestSource;

import java.util.Optional;

/** A role over a test source: ready when the test says so, its sources' start the test's hook. */
final class SourceRole implements Role {
    final EdgeTestSource source;
    volatile boolean ready;
    volatile Runnable onStart = () -> { };

    SourceRole(EdgeTestSource source) {
        this.source = source;
    }

    @Override
    public String view() {
        return "test";
    }

    @Override
    public Role start() {
        onStart.run();
        return this;
    }

    @Override
    public Optional<Object> stateStamp() {
        return source.stateStamp();
    }

    @Override
    public Exposition collect() {
        return source.collect();
    }

    @Override
    public boolean ready() {
        return ready;
    }

    @Override
    public String notReadyReason() {
        return "the test's ledger has not been read";
    }

    @Override
    public void close() {
        source.close();
    }
}
