package io.hamiobserve.role.node;

import io.hamiobserve.adapters.cachefile.CacheFileInspector;
import io.hamiobserve.app.cli.HamiObserve;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Subcommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** {@code hami-observe inspect-cache PATH}: what HAMi-Core's cache files hold, read as the node role reads them. */
@Command(name = "inspect-cache",
        description = "What a HAMi-Core cache file, a container's directory or $HOOK_PATH/containers holds, and "
                + "why a file is rejected.")
public final class InspectCacheCommand implements Subcommand {
    @ParentCommand
    private HamiObserve hamiObserve;

    @Parameters(paramLabel = "PATH", description = "a *.cache file, a container directory, or a containers directory")
    private Path path;

    @Option(names = "--json", negatable = true, arity = "0..1", fallbackValue = "true", description = "JSON output")
    private boolean json;

    @Override
    public int rank() {
        return 50;
    }

    @Override
    public Integer call() {
        Launch launch = hamiObserve.launch();
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            launch.err().println("hami-observe: inspect-cache: no such file or directory: " + path);
            return 1;
        }
        launch.out().print(CacheFileInspector.describe(path, json));
        launch.out().flush();
        return 0;
    }
}
