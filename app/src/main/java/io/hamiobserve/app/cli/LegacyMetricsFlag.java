package io.hamiobserve.app.cli;

import picocli.CommandLine.Option;

/** HAMi's {@code --legacy-metrics}, a mixin of every command that serves HAMi's series. */
public final class LegacyMetricsFlag {
    @Option(names = "--legacy-metrics", negatable = true, arity = "0..1", fallbackValue = "true",
            description = "also emit HAMi's pre-2.9 metric names (GPUDeviceMemoryLimit, "
                    + "vGPU_device_memory_usage_in_bytes, ...)")
    private boolean legacyMetrics;

    public boolean on() {
        return legacyMetrics;
    }
}
