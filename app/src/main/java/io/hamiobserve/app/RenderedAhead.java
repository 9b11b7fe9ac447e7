package io.hamiobserve.app;

import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.edge.http.MetricsSource;
import io.hamiobserve.edge.Servers;

import java.time.Duration;
import java.util.Optional;

/**
 * A role as its endpoint serves it: a role that stamps its state is rendered ahead of the first
 * scrape once it is ready, and is ready only once that rendering is kept (or has failed: the
 * scrape then answers 500 and the log says why). A pod that reports ready then serves Prometheus's
 * first scrape from the kept rendering, not from the first rendering of a large ledger, which
 * takes seconds while the JIT has compiled nothing (the scheduler at 100,000 containers). A role
 * that collects at every scrape is served as it is: it would render again anyway.
 */
final class RenderedAhead implements MetricsSource {
    /** How often the role's readiness is looked at before its exposition is rendered ahead. */
    private static final Duration READY_POLL = Duration.ofMillis(20);

    private final Role role;
    private volatile boolean rendered;

    RenderedAhead(Role role) {
        this.role = role;
    }

    /**
     * Once the role is ready, renders its exposition at {@code served}'s endpoint as Prometheus
     * asks for it, on a thread of its own; gives up when the server stops or the role gives up
     * first.
     */
    void renderOnceReady(Servers.Served served) {
        if (role.stateStamp().isEmpty()) {
            return;
        }
        Thread.ofVirtual().name("hami-observe-render-ahead").start(() -> {
            try {
                while (!role.ready() && role.givenUp().isEmpty()) {
                    if (!served.server().isRunning()) {
                        return;
                    }
                    Thread.sleep(READY_POLL);
                }
                if (role.givenUp().isEmpty() && served.server().isRunning()) {
                    try {
                        served.endpoint().renderAhead();
                    } finally {
                        // Whatever the rendering did, readiness must not wait for it forever: a
                        // failure is the first scrape's to report (500, logged).
                        rendered = true;
                    }
                }
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
            }
        });
    }

    @Override
    public Optional<Object> stateStamp() {
        return role.stateStamp();
    }

    @Override
    public Exposition collect() {
        return role.collect();
    }

    @Override
    public boolean ready() {
        return role.ready() && (rendered || role.stateStamp().isEmpty());
    }

    @Override
    public String notReadyReason() {
        return role.ready() ? "rendering the exposition ahead of the first scrape" : role.notReadyReason();
    }
}
