package io.hamiobserve.ports;

import io.hamiobserve.domain.ContainerUsage;

import java.util.List;

/**
 * Where per-container usage comes from: HAMi-Core's accounting of each container on this node.
 * Read at scrape time; a container whose record cannot be read is skipped and reported, the
 * others are returned.
 */
public interface ContainerUsageSource {
    /** Reads every container's current accounting. Never throws for bad input. */
    List<ContainerUsage> read(SkipReporter skips);
}
