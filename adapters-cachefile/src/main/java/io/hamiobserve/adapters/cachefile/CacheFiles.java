package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.ports.ContainerUsageSource;

import java.nio.file.Path;
import java.util.List;

/** Entry point of the cache-file adapter. Placeholder until the reader lands. */
public final class CacheFiles {
    private CacheFiles() {
    }

    /** The container-usage source reading {@code containersDirectory} ({@code $HOOK_PATH/containers}). */
    public static ContainerUsageSource directory(Path containersDirectory) {
        return skips -> List.of();
    }
}
