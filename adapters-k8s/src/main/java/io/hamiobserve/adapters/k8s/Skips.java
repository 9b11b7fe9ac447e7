package io.hamiobserve.adapters.k8s;

import io.hamiobserve.ports.SkipReporter;
import io.hamiobserve.ports.spi.DeviceVendor.Problem;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reports skipped input to the {@link SkipReporter}: the reason to the counter, the item and what
 * was wrong with it to the reporter's log line, which bounds what an input can put into the log
 * ({@link SkipReporter#loggable}).
 */
final class Skips {
    static final String SOURCE = "kubernetes";
    static final String NODE_ANNOTATION = "node_annotation";
    static final String POD_ANNOTATION = "pod_annotation";
    static final String QUOTA = "quota";
    static final String SNAPSHOT = "snapshot";

    private static final Logger LOG = Logger.getLogger(Skips.class.getName());

    private final SkipReporter reporter;

    Skips(SkipReporter reporter) {
        this.reporter = reporter;
    }

    void skip(String kind, String item, Problem problem) {
        skip(kind, item, problem.reason(), problem.detail());
    }

    void skip(String kind, String item, String reason, String detail) {
        try {
            reporter.skipped(SOURCE, kind, reason, item + ": " + detail);
        } catch (RuntimeException e) {
            // A failing counter must not stop the ledger from being fed.
            LOG.log(Level.WARNING, "skip reporter failed", e);
        }
    }
}
