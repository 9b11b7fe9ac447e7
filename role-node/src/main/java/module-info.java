/**
 * The node role: the usage view of one GPU node (NVML, HAMi-Core's cache files, the node's pods,
 * /proc) with its gap to the allocations, and the {@code node} and {@code inspect-cache} commands.
 */
module io.hamiobserve.role.node {
    requires io.hamiobserve.app;
    requires io.hamiobserve.adapters.cachefile;
    requires io.hamiobserve.adapters.nvml;
    requires io.hamiobserve.adapters.k8s;
    requires java.logging;

    // The demo and the all command build the role.
    exports io.hamiobserve.role.node;
    opens io.hamiobserve.role.node to info.picocli;

    provides io.hamiobserve.app.cli.Subcommand with io.hamiobserve.role.node.NodeCommand,
            io.hamiobserve.role.node.InspectCacheCommand;
}
