package io.hamiobserve.app.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * The top of the command line: {@code hami-observe [COMMAND] [FLAGS]}. The commands are the
 * {@link Subcommand}s on the module path; this holds what they run with.
 */
@Command(name = "hami-observe", mixinStandardHelpOptions = true, versionProvider = Version.class,
        // --help and --version on every command too.
        scope = ScopeType.INHERIT,
        synopsisSubcommandLabel = "[COMMAND]",
        description = "Prometheus metrics for GPUs shared with HAMi: the allocation view (what the scheduler "
                + "handed out), the usage view (what containers use) and the gap between them.",
        footer = {"", "Durations: 500ms, 8s, 1m (a bare number is seconds). Booleans: --flag, --flag=true|false, "
                + "--no-flag.", "'hami-observe COMMAND --help' lists the flags of a command."})
public final class HamiObserve implements Callable<Integer> {
    private final Launch launch;

    @Spec
    private CommandSpec spec;

    public HamiObserve(Launch launch) {
        this.launch = launch;
    }

    /** The process's streams and environment. */
    public Launch launch() {
        return launch;
    }

    /** No command was named, and no command runs by default on this module path. */
    @Override
    public Integer call() {
        launch.err().println("hami-observe: name a command: " + String.join(", ",
                spec.subcommands().keySet().stream().filter(name -> !name.equals("help")).toList()));
        spec.commandLine().usage(launch.err());
        return spec.exitCodeOnInvalidInput();
    }
}
