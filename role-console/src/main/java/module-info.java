/**
 * The console role: the web console over a Prometheus that scrapes the endpoints, and right-sizing
 * on the command line ({@code console}, {@code rightsize}). Deployed with the scheduler's image.
 */
module io.hamiobserve.role.console {
    requires io.hamiobserve.app;
    requires io.hamiobserve.console;
    requires io.hamiobserve.adapters.prometheus;
    // --prices files: read as every file an operator writes.
    requires io.hamiobserve.configfiles;

    // The demo serves the console over its own history.
    exports io.hamiobserve.role.console;
    opens io.hamiobserve.role.console to info.picocli;

    provides io.hamiobserve.app.cli.Subcommand with io.hamiobserve.role.console.ConsoleCommand,
            io.hamiobserve.role.console.RightsizeCommand, io.hamiobserve.role.console.ShowbackCommand;
}
