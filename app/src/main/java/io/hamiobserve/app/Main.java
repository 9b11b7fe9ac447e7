package io.hamiobserve.app;

import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Launcher;
import io.hamiobserve.edge.startup.StartupTimeline;
import io.hamiobserve.edge.Servers;

/**
 * Entry point: {@code hami-observe [COMMAND] [FLAGS]}. The commands are those of the modules on
 * the module path ({@link io.hamiobserve.app.cli.Subcommand}); a command that serves keeps the
 * process running until it is stopped.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        StartupTimeline.mark("main entered");
        int exit = Launcher.run(Launch.ofProcess(), Servers::prepare, args);
        if (exit >= 0) {
            System.exit(exit);
        }
    }
}
