package io.hamiobserve.app.cli;

import java.util.concurrent.Callable;

/**
 * A command of {@code hami-observe}, provided by the module of its role: the launcher finds every
 * one on the module path with {@link java.util.ServiceLoader}, so an image's module path decides
 * which commands it has. An implementation is a picocli {@code @Command} with a public no-argument
 * constructor, declared in its module with {@code provides io.hamiobserve.app.cli.Subcommand with ...}
 * (and {@code opens} its package to {@code info.picocli}, which sets the options); it reaches the
 * process's streams and environment through its {@code @ParentCommand} {@link HamiObserve}.
 *
 * <p>{@link #call()} returns the exit code, or {@link #KEEP_RUNNING} when it started servers that
 * run until the process is stopped.
 */
public interface Subcommand extends Callable<Integer> {
    /** What a command that started servers returns: the process keeps running. */
    int KEEP_RUNNING = -1;

    /** Where the command is listed among the others (lowest first). */
    int rank();

    /** Whether this command runs when none is named (the demo, where it is on the module path). */
    default boolean isDefault() {
        return false;
    }

    /**
     * Whether the command may start servers (Helidon's, for an endpoint): the launcher then starts
     * setting up what every server shares before it parses the command line. A command that serves
     * only without a flag ({@code --once}) says yes; the set-up it then does not use runs on a
     * daemon thread and is left behind.
     */
    default boolean serves() {
        return false;
    }
}
