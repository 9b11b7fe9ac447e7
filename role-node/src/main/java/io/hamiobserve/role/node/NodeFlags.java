package io.hamiobserve.role.node;

import io.hamiobserve.adapters.cachefile.CacheFiles;
import io.hamiobserve.adapters.k8s.KubernetesSources;
import io.hamiobserve.adapters.nvml.Nvml;
import io.hamiobserve.adapters.nvml.ProcCgroupOwners;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.ports.HostCardSource;
import io.hamiobserve.ports.ProcessOwnerResolver;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/**
 * The node role's flags and HAMi's environment ({@code NODE_NAME}, {@code HOOK_PATH}), and the
 * role they describe with the real adapters: NVML, HAMi-Core's cache files, the node's pods, /proc.
 */
public final class NodeFlags {
    static final String DEFAULT_HOOK_PATH = "/usr/local/vgpu";
    static final Path DEFAULT_PROCFS = Path.of("/proc");

    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;

    @Option(names = "--node-name", paramLabel = "NAME", description = "this node (default: $NODE_NAME)")
    private String nodeName;

    @Option(names = "--hook-path", paramLabel = "DIR",
            description = "HAMi-Core's root; cache files are read from DIR/containers (default: $HOOK_PATH, else "
                    + DEFAULT_HOOK_PATH + ")")
    private Path hookPath;

    @Option(names = "--nvml-library", paramLabel = "NAME|PATH", defaultValue = "",
            description = "the NVML library (default: the driver's libnvidia-ml.so.1)")
    private String nvmlLibrary;

    @Option(names = "--process-attribution", negatable = true, arity = "0..1", fallbackValue = "true",
            description = "attribute GPU processes to containers via /proc/<pid>/cgroup (needs hostPID)")
    private boolean processAttribution;

    @Option(names = "--path.procfs", paramLabel = "DIR",
            description = "the host's /proc, as node_exporter names it (default: /proc)")
    private Path procfs;

    @Option(names = "--proc-root", paramLabel = "DIR", description = "deprecated: --path.procfs")
    private void procRoot(Path dir) {
        command.commandLine().getErr().println("hami-observe: --proc-root is deprecated; use --path.procfs");
        procfs = dir;
    }

    /** This node's name: {@code --node-name}, else {@code $NODE_NAME}; a node role cannot run without it. */
    public String nodeName(Map<String, String> env) {
        String name = nodeName != null ? nodeName : env.getOrDefault("NODE_NAME", "");
        if (name.isBlank()) {
            throw new ParameterException(command.commandLine(),
                    "the node role needs its node's name: set NODE_NAME or --node-name");
        }
        return name;
    }

    Path hookPath(Map<String, String> env) {
        return hookPath != null ? hookPath : Path.of(env.getOrDefault("HOOK_PATH", DEFAULT_HOOK_PATH));
    }

    Path procfs() {
        return procfs != null ? procfs : DEFAULT_PROCFS;
    }

    /** The node role with the real adapters. */
    public UsageRole role(Map<String, String> env, boolean legacyMetrics, BuildInfo build) {
        String node = nodeName(env);
        Optional<ProcessOwnerResolver> owners = processAttribution
                ? Optional.of(ProcCgroupOwners.of(procfs()))
                : Optional.empty();
        HostCardSource cards = nvmlLibrary.isEmpty() ? Nvml.open() : Nvml.open(nvmlLibrary, Nvml.DEFAULT_CALL_TIMEOUT);
        return new UsageRole(node, cards, CacheFiles.directory(hookPath(env).resolve("containers")),
                KubernetesSources.nodePods(node), owners, legacyMetrics, build, Clock.systemUTC());
    }
}
