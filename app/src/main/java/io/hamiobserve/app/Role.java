package io.hamiobserve.app;

import io.hamiobserve.edge.http.MetricsSource;

import java.util.Optional;

/**
 * A role of the process, served behind an endpoint of its own: the scheduler's allocation view, a
 * node's usage view, the console. Its sources start ({@link #start}; in {@link Serving#serve}, once
 * its server listens) and are released after the server has stopped ({@link #close}); readiness
 * ({@link #ready}) is its sources' having delivered once.
 */
public interface Role extends MetricsSource, AutoCloseable {
    /** What the endpoint serves, in the line printed at start: "allocation", "usage", "console". */
    String view();

    /** Starts the role's sources and returns without waiting for them to deliver. */
    Role start();

    /**
     * Why the role can never become ready, when a source has given up for good (a snapshot that is
     * not a dump): the start of a process serving it ends with that line and exit 2. Empty while
     * every source is fine or still trying.
     */
    default Optional<String> givenUp() {
        return Optional.empty();
    }

    /** Releases the role's sources: connections, threads, native handles. */
    @Override
    void close();
}
