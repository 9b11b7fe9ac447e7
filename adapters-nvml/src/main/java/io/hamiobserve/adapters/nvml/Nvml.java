package io.hamiobserve.adapters.nvml;

import io.hamiobserve.ports.HostCardSource;
import io.hamiobserve.ports.SourceUnavailableException;

/** Entry point of the NVML adapter. Placeholder until the JNA binding lands. */
public final class Nvml {
    private Nvml() {
    }

    /** Opens the driver's {@code libnvidia-ml.so.1}. */
    public static HostCardSource open() throws SourceUnavailableException {
        throw new SourceUnavailableException("NVML adapter not implemented yet");
    }
}
