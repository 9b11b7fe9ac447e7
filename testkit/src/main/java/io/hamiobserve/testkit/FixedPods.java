package io.hamiobserve.testkit;

import io.hamiobserve.domain.NodePod;
import io.hamiobserve.ports.NodePodDirectory;
import io.hamiobserve.ports.SkipReporter;

import java.util.List;

/** A node's pod directory that holds the same pods from the start: synced at once, never changing. */
public final class FixedPods implements NodePodDirectory {
    private final List<NodePod> pods;

    public FixedPods(List<NodePod> pods) {
        this.pods = List.copyOf(pods);
    }

    @Override
    public void start(SkipReporter skips) {
    }

    @Override
    public boolean isSynced() {
        return true;
    }

    @Override
    public List<NodePod> pods() {
        return pods;
    }

    @Override
    public void close() {
    }
}
