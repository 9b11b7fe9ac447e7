package io.hamiobserve.app.cli;

import io.hamiobserve.edge.http.EdgeStartup;
import io.hamiobserve.edge.startup.StartupTimeline;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
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
        return run(launch, () -> { }, args);
    }

    /**
     * As {@link #run(Launch, String...)}; {@code beforeServing} runs first when {@code args} name a
     * command that {@linkplain Subcommand#serves() serves}, so that what every server needs is set up
     * while the command line is built and parsed. A command named in {@code args} is the only one
     * the command line is built with: picocli reads each command's annotations, options and mixins
     * by reflection when it is added, which on a cold JVM took longer than the rest of a start up to
     * the listening server (docs/benchmarks.md, start-up).
     */
    public static int run(Launch launch, Runnable beforeServing, String... args) {
        Optional<Subcommand> named = named(args);
        named.filter(Subcommand::serves).ifPresent(command -> beforeServing.run());
        CommandLine line = named.map(command -> commandLine(launch, List.of(command), true))
                .orElseGet(() -> commandLine(launch));
        StartupTimeline.mark("command line built (picocli)");
        return line.execute(withDefaultCommand(line, args));
    }

    /** The command line with every command on the module path, for {@link #run} and for tests that parse. */
    public static CommandLine commandLine(Launch launch) {
        List<Subcommand> commands = new ArrayList<>();
        ServiceLoader.load(Subcommand.class).forEach(commands::add);
        return commandLine(launch, commands, false);
    }

    /** {@code namedOnly}: {@code subcommands} is the one command the arguments name. */
    private static CommandLine commandLine(Launch launch, List<Subcommand> subcommands, boolean namedOnly) {
        CommandLine line = new CommandLine(new HamiObserve(launch));
        if (!namedOnly) {
            // 'hami-observe help COMMAND'. Not when args name a command: then they cannot name this
            // one, and picocli building it took 17-27 ms of main's way to the listening server.
            line.addSubcommand("help", new CommandLine.HelpCommand());
        }
        List<Subcommand> commands = new ArrayList<>(subcommands);
        commands.sort(Comparator.comparingInt(Subcommand::rank));
        commands.forEach(line::addSubcommand);
        // --format csv, --demo.prometheus off: enum values as users spell them.
        line.setCaseInsensitiveEnumValuesAllowed(true);
        // A flag given twice takes its last value, as it always has (wrappers append to a base command).
        line.setOverwrittenOptionsAllowed(true);
        line.setOut(new PrintWriter(launch.out(), true));
        line.setErr(new PrintWriter(launch.err(), true));
        line.setParameterExceptionHandler((mistake, arguments) -> {
            // A mistake is explained against every command (which one a flag belongs to), built only now.
            CommandLine every = namedOnly ? commandLine(launch) : line;
            launch.err().println("hami-observe: " + explain(every, mistake));
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
     * The command {@code args} name, when one on the module path has that name: only its class is
     * instantiated (its annotation read, none of the others').
     */
    static Optional<Subcommand> named(String[] args) {
        if (args.length == 0 || args[0].startsWith("-")) {
            return Optional.empty();
        }
        return ServiceLoader.load(Subcommand.class).stream()
                .filter(provider -> {
                    Command command = provider.type().getAnnotation(Command.class);
                    return command != null && (command.name().equals(args[0])
                            || List.of(command.aliases()).contains(args[0]));
                })
                .findFirst()
                .map(ServiceLoader.Provider::get);
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
