/**
 * Reads HAMi-Core's per-container shared cache files: the container-usage port on a GPU node.
 * Every byte of those files is written inside tenants' containers and treated as untrusted.
 */
module io.hamiobserve.adapters.cachefile {
    requires io.hamiobserve.ports;

    exports io.hamiobserve.adapters.cachefile;
}
