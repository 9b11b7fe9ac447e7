package io.hamiobserve.role.node;

import io.hamiobserve.edge.http.EdgeConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static io.hamiobserve.app.testing.CommandLines.assertRefused;
import static io.hamiobserve.app.testing.CommandLines.edge;
import static io.hamiobserve.app.testing.CommandLines.mixin;
import static io.hamiobserve.app.testing.CommandLines.parsed;
import static io.hamiobserve.app.testing.CommandLines.run;
import static io.hamiobserve.app.testing.CommandLines.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code hami-observe node} and {@code inspect-cache}, on this module's class path (its commands only). */
class NodeCommandTest {
    @Test
    void theNodeRoleReadsHamisEnvironmentAndNodeExportersPathFlag() {
        CommandSpec node = parsed("node");
        NodeFlags flags = mixin(node, "node");
        Map<String, String> env = Map.of("NODE_NAME", "gpu-7", "HOOK_PATH", "/var/vgpu");
        assertEquals("gpu-7", flags.nodeName(env));
        assertEquals(Path.of("/var/vgpu"), flags.hookPath(env));
        assertEquals(Path.of("/usr/local/vgpu"), flags.hookPath(Map.of()));
        assertEquals(Path.of("/proc"), flags.procfs());
        assertEquals("", value(node, "--nvml-library"), "empty means the driver's own libnvidia-ml.so.1");
        assertEquals(false, value(node, "--process-attribution"));
        assertEquals(EdgeConfig.defaults(), edge(node));
        assertEquals(":19394", value(parsed("node", "--metrics-bind-address=:19394"), "--metrics-bind-address"));

        NodeFlags given = mixin(parsed("node", "--node-name", "gpu-1", "--hook-path", "/h", "--path.procfs",
                "/host/proc", "--process-attribution"), "node");
        assertEquals("gpu-1", given.nodeName(env));
        assertEquals(Path.of("/h"), given.hookPath(env));
        assertEquals(Path.of("/host/proc"), given.procfs());

        assertRefused(run("node"), "NODE_NAME", "--node-name");
    }

    @Test
    void theOldProcRootStillWorksAndSaysItIsDeprecated() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        var line = io.hamiobserve.app.cli.Launcher.commandLine(new io.hamiobserve.app.cli.Launch(System.out,
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of()));
        NodeFlags flags = mixin(line.parseArgs("node", "--proc-root", "/host/proc").subcommand().commandSpec(), "node");
        assertEquals(Path.of("/host/proc"), flags.procfs());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--proc-root is deprecated; use --path.procfs"),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void inspectCachesJsonIsABooleanAndItsPathIsRequired() {
        assertEquals(false, value(parsed("inspect-cache", "x", "--json=false"), "--json"));
        assertEquals(true, value(parsed("inspect-cache", "--json", "x"), "--json"));
        assertEquals(false, value(parsed("inspect-cache", "--no-json", "x"), "--json"));
        assertRefused(run("inspect-cache"), "PATH");
        var missing = run("inspect-cache", "/nonexistent/cache");
        assertEquals(1, missing.exit());
        assertTrue(missing.err().contains("no such file or directory"), missing.err());
    }

    @Test
    void onlyThisRolesCommandsAreThere() {
        var help = run("--help");
        assertTrue(help.out().contains("  node "), help.out());
        assertTrue(help.out().contains("  inspect-cache "), help.out());
        assertFalse(help.out().contains("  scheduler "), help.out());
        assertRefused(run("scheduler"), "unknown command 'scheduler'");
        assertRefused(run("node", "--snapshot=x.yaml"), "unknown flag --snapshot for node");
    }
}
