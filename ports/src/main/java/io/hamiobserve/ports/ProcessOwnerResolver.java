package io.hamiobserve.ports;

import io.hamiobserve.domain.ProcessOwner;

import java.util.Collection;
import java.util.Map;

/**
 * Who owns a host process: the pod and container it runs in. Needs to see the host's processes
 * (host PID namespace and read access to {@code /proc}); without that it throws
 * {@link SourceUnavailableException}, and attribution is left out with the reason reported.
 */
public interface ProcessOwnerResolver {
    /** Owners of those of {@code hostPids} that belong to a pod; others are absent from the map. */
    Map<Long, ProcessOwner> owners(Collection<Long> hostPids) throws SourceUnavailableException;
}
