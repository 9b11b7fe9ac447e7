/**
 * What every role of hami-observe shares above the edge: the launcher ({@code hami-observe [COMMAND]},
 * on picocli, with the commands of the role modules on the module path, found as
 * {@link io.hamiobserve.app.cli.Subcommand} services), the role lifecycle ({@link io.hamiobserve.app.Role},
 * served by {@link io.hamiobserve.app.Serving} behind the HTTP edge) and the exporter's own series
 * (build, skipped inputs, source health). It knows no adapter and no role: a role is a module that
 * requires it.
 */
module io.hamiobserve.app {
    // SkipCounter is the SkipReporter the roles hand to their adapters.
    requires transitive io.hamiobserve.ports;
    // In the API the roles build on: Role is a MetricsSource, Servers serves it, the engine's families.
    requires transitive io.hamiobserve.edge;
    requires transitive info.picocli;
    requires java.logging;

    exports io.hamiobserve.app;
    exports io.hamiobserve.app.cli;
    exports io.hamiobserve.app.metrics;

    // picocli reads the launcher's annotations and sets the shared flags.
    opens io.hamiobserve.app.cli to info.picocli;

    uses io.hamiobserve.app.cli.Subcommand;
}
