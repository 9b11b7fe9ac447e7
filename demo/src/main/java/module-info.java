/**
 * The demo: a simulated cluster behind the same ports the real adapters implement, served by the
 * real roles ({@code demo}, the default command), with its console and the history a local
 * Prometheus is filled with; and {@code all}, both real roles in one process. It requires every
 * role and the testkit (the demo writes real HAMi-Core cache files); no image holds it, and the
 * developer's launcher (bin/hami-observe) runs on its module path, so every command is there.
 */
module io.hamiobserve.demo {
    requires io.hamiobserve.app;
    requires io.hamiobserve.role.scheduler;
    requires io.hamiobserve.role.node;
    requires io.hamiobserve.role.console;
    requires io.hamiobserve.testkit;
    requires io.hamiobserve.adapters.cachefile;
    requires io.hamiobserve.adapters.k8s;
    requires io.hamiobserve.adapters.prometheus;
    requires io.hamiobserve.console;
    requires java.logging;

    opens io.hamiobserve.demo to info.picocli;

    provides io.hamiobserve.app.cli.Subcommand with io.hamiobserve.demo.DemoCommand, io.hamiobserve.demo.AllCommand,
            io.hamiobserve.demo.DemoHistoryCommand;
}
