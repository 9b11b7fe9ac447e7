/**
 * Reads HAMi-Core's per-container shared cache files: the container-usage port on a GPU node.
 * Every byte of those files is written inside tenants' containers and treated as untrusted.
 *
 * <p>Public API: {@link io.hamiobserve.adapters.cachefile.CacheFiles#directory} (the port) and
 * {@link io.hamiobserve.adapters.cachefile.CacheFileInspector} (operators' view of a file or
 * directory). Everything else is package-private. The layout it reads is its own module's
 * ({@code io.hamiobserve.adapters.cachefile.layout}), shared with the testkit's writer.
 */
module io.hamiobserve.adapters.cachefile {
    // CacheFiles.directory returns the port type: its users need the ports module too.
    requires transitive io.hamiobserve.ports;
    requires io.hamiobserve.adapters.cachefile.layout;
    // The inspector's JSON.
    requires tools.jackson.databind;

    exports io.hamiobserve.adapters.cachefile;
}
