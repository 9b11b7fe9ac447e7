package io.hamiobserve.app.cli;

import java.io.PrintStream;
import java.util.Map;
import java.util.Objects;

/**
 * What a command runs with: the process's output streams (expositions are written as bytes) and
 * its environment (HAMi's {@code NODE_NAME} and {@code HOOK_PATH}), given so that tests run the
 * commands as the process does.
 */
public record Launch(PrintStream out, PrintStream err, Map<String, String> env) {
    public Launch {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(err, "err");
        env = Map.copyOf(env);
    }

    /** The process's own. */
    public static Launch ofProcess() {
        return new Launch(System.out, System.err, System.getenv());
    }
}
