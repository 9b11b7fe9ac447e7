package io.hamiobserve.ports;

import io.hamiobserve.domain.NodePod;

import java.util.List;

/**
 * Which HAMi pods live on this node, with their container names, runtime container IDs and
 * placements. Kept current in the background between {@link #start} and {@link #close}.
 */
public interface NodePodDirectory extends AutoCloseable {
    void start(SkipReporter skips);

    /** Whether the directory has been filled once. */
    boolean isSynced();

    /** The pods known now. */
    List<NodePod> pods();

    @Override
    void close();
}
