package io.hamiobserve.app.cli;

import io.hamiobserve.app.http.EdgeStartup;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Builds the command line from the {@link Subcommand}s on the module path and runs it. Mistakes
 * end with one line that says what is wrong and exit code 2: a flag of another command names the
 * commands it belongs to, an unknown command lists those there are.
 */
public final class Launcher {
    private Launcher() {
    }

    /** Runs {@code args}; returns the exit code, or {@link Subcommand#KEEP_RUNNING}. */
    public static int run(Launch launch, String... args) {
        CommandLine line = commandLine(launch);
        return line.execute(withDefaultCommand(line, args));
    }

    /** The command line with every command on the module path, for {@link #run} and for tests that parse. */
    public static CommandLine commandLine(Launch launch) {
        CommandLine line = new CommandLine(new HamiObserve(launch));
        line.addSubcommand("help", new CommandLine.HelpCommand());
        List<Subcommand> commands = new ArrayList<>();
        ServiceLoader.load(Subcommand.class).forEach(commands::add);
        commands.sort(Comparator.comparingInt(Subcommand::rank));
        commands.forEach(line::addSubcommand);
        // --format csv, --demo.prometheus off: enum values as users spell them.
        line.setCaseInsensitiveEnumValuesAllowed(true);
        // A flag given twice takes its last value, as it always has (wrappers append to a base command).
        line.setOverwrittenOptionsAllowed(true);
        line.setOut(new PrintWriter(launch.out(), true));
        line.setErr(new PrintWriter(launch.err(), true));
        line.setParameterExceptionHandler((mistake, arguments) -> {
            launch.err().println("hami-observe: " + explain(line, mistake));
            return mistake.getCommandLine().getCommandSpec().exitCodeOnInvalidInput();
        });
        line.setExecutionExceptionHandler((failure, command, parsed) -> {
            if (failure instanceof EdgeStartup.Failure unusable) {
                // One line an operator can act on: a busy port, a missing certificate, a limit too low.
                launch.err().println("hami-observe: " + unusable.getMessage());
                return command.getCommandSpec().exitCodeOnInvalidInput();
            }
            throw failure;
        });
        return line;
    }

    /**
     * {@code args} with the default command in front when they name none: {@code hami-observe} and
     * {@code hami-observe --legacy-metrics} run the demo where it is on the module path.
     */
    static String[] withDefaultCommand(CommandLine line, String[] args) {
        boolean namesNone = args.length == 0 || args[0].startsWith("-")
                && !List.of("-h", "--help", "-V", "--version").contains(args[0]);
        if (!namesNone) {
            return args;
        }
        for (CommandLine command : line.getSubcommands().values()) {
            if (command.getCommand() instanceof Subcommand subcommand && subcommand.isDefault()) {
                String[] withCommand = new String[args.length + 1];
                withCommand[0] = command.getCommandName();
                System.arraycopy(args, 0, withCommand, 1, args.length);
                return withCommand;
            }
        }
        return args;
    }

    private static String explain(CommandLine line, ParameterException mistake) {
        CommandSpec spec = mistake.getCommandLine().getCommandSpec();
        if (mistake instanceof UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
            String argument = unmatched.getUnmatched().getFirst();
            if (spec.parent() == null && !argument.startsWith("-")) {
                return "unknown command '" + argument + "'; the commands are "
                        + String.join(", ", line.getSubcommands().keySet());
            }
            if (argument.startsWith("-")) {
                String flag = argument.contains("=") ? argument.substring(0, argument.indexOf('=')) : argument;
                List<String> owners = new ArrayList<>();
                line.getSubcommands().forEach((name, command) -> {
                    OptionSpec option = command.getCommandSpec().findOption(flag);
                    if (option != null && flag.startsWith("--")) {
                        owners.add(name);
                    }
                });
                String command = spec.parent() == null ? "hami-observe" : spec.name();
                return owners.isEmpty()
                        ? "unknown flag " + flag + " for " + command + " ('hami-observe " + (spec.parent() == null
                        ? "" : spec.name() + " ") + "--help' lists its flags)"
                        : flag + " does not apply to " + command + "; it is a flag of " + String.join(", ", owners);
            }
        }
        return mistake.getMessage();
    }
}
