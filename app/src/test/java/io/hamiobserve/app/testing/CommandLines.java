package io.hamiobserve.app.testing;

import io.hamiobserve.app.cli.EdgeFlags;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Launcher;
import io.hamiobserve.edge.http.EdgeConfig;
import picocli.CommandLine.Model.CommandSpec;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs and parses {@code hami-observe} with the commands on the test's class path, as the process
 * does: what a command printed and its exit code, or the options picocli set (nothing runs).
 */
public final class CommandLines {
    private CommandLines() {
    }

    /** What a command that does not serve printed, and its exit code. */
    public record Outcome(int exit, String out, String err) {
    }

    public static Outcome run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Launcher.run(new Launch(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env), args);
        return new Outcome(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    public static Outcome run(String... args) {
        return run(Map.of(), args);
    }

    /** The command {@code args} name, its options set as picocli parsed them; nothing runs. */
    public static CommandSpec parsed(String... args) {
        return Launcher.commandLine(Launch.ofProcess()).parseArgs(args).subcommand().commandSpec();
    }

    /** The value picocli set for {@code option}. */
    public static <T> T value(CommandSpec command, String option) {
        return command.findOption(option).getValue();
    }

    /** The object behind a command's {@code @Mixin} field {@code name}. */
    @SuppressWarnings("unchecked")
    public static <T> T mixin(CommandSpec command, String name) {
        return (T) command.mixins().get(name).userObject();
    }

    /** The HTTP edge a serving command's flags describe. */
    public static EdgeConfig edge(CommandSpec command) {
        EdgeFlags flags = mixin(command, "edge");
        return flags.edge();
    }

    /** A mistake: one line on stderr that says {@code said}, nothing on stdout, exit code 2. */
    public static void assertRefused(Outcome outcome, String... said) {
        assertEquals(2, outcome.exit(), outcome.toString());
        assertEquals(1, outcome.err().lines().count(), outcome.err());
        assertTrue(outcome.err().startsWith("hami-observe: "), outcome.err());
        for (String words : said) {
            assertTrue(outcome.err().contains(words), outcome.err());
        }
        assertEquals("", outcome.out());
    }
}
