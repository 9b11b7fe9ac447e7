package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.ports.ContainerUsageSource;

import java.nio.file.Path;

/**
 * Entry point of the cache-file adapter: HAMi-Core's per-container accounting on a GPU node.
 *
 * <p>The source never throws for bad input and never writes: any file it cannot use is skipped
 * and reported to the {@link io.hamiobserve.ports.SkipReporter} with source {@code cachefile}, a
 * kind ({@code directory}, {@code file}, {@code device}, {@code slot}) and a stable reason (see
 * {@code docs/adapters-cachefile.md}); every other container is still returned.
 */
public final class CacheFiles {
    private CacheFiles() {
    }

    /**
     * The container-usage source reading {@code containersDirectory} ({@code $HOOK_PATH/containers},
     * on the host {@code /usr/local/vgpu/containers}). Each call reads the files afresh (through
     * channels kept open while each path names the same file).
     */
    public static ContainerUsageSource directory(Path containersDirectory) {
        return new CacheFileSource(containersDirectory, true);
    }
}
