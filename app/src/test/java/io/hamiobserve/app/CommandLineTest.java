package io.hamiobserve.app;

import io.hamiobserve.app.cli.EdgeFlags;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Launcher;
import io.hamiobserve.app.http.EdgeConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command line as HAMi users spell it, on picocli: every flag, environment variable and default
 * of the README; typed values, negatable booleans, and a mistake refused with one line and exit 2.
 */
class CommandLineTest {
    private static final Path SNAPSHOT = Path.of(System.getProperty("project.root", ".."))
            .resolve("adapters-k8s/src/test/resources/cluster-snapshot.yaml").toAbsolutePath();

    record Outcome(int exit, String out, String err) {
    }

    /** Runs a command that does not serve: its exit code and what it printed. */
    static Outcome run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Launcher.run(new Launch(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env), args);
        return new Outcome(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static Outcome run(String... args) {
        return run(Map.of(), args);
    }

    /** The command {@code args} name, its options set as picocli parsed them (nothing runs). */
    static CommandSpec parsed(String... args) {
        return Launcher.commandLine(Launch.ofProcess()).parseArgs(args).subcommand().commandSpec();
    }

    static <T> T value(CommandSpec command, String option) {
        return command.findOption(option).getValue();
    }

    @SuppressWarnings("unchecked")
    static <T> T mixin(CommandSpec command, String name) {
        return (T) command.mixins().get(name).userObject();
    }

    private static void assertRefused(Outcome outcome, String... said) {
        assertEquals(2, outcome.exit(), outcome.toString());
        assertEquals(1, outcome.err().lines().count(), outcome.err());
        assertTrue(outcome.err().startsWith("hami-observe: "), outcome.err());
        for (String words : said) {
            assertTrue(outcome.err().contains(words), outcome.err());
        }
        assertEquals("", outcome.out());
    }

    @Test
    void theDefaultsAreHamisPortsAndTheEdgesDefaults() {
        CommandSpec demo = parsed("demo");
        assertEquals(":9395", value(demo, "--allocation-bind-address"));
        assertEquals(":9394", value(demo, "--usage-bind-address"));
        assertEquals(":9396", value(demo, "--demo-second-node-bind-address"));
        assertEquals(":9397", value(demo, "--console-bind-address"));
        assertEquals(false, value(demo, "--legacy-metrics"));
        assertEquals(EdgeConfig.defaults(), CommandLineTest.<EdgeFlags>mixin(demo, "edge").edge());
        assertEquals(Duration.ofSeconds(60), value(parsed("scheduler"), "--sync-timeout"));
    }

    @Test
    void noCommandRunsTheDemoWithTheFlagsGiven() {
        Outcome once = run("--once", "--legacy-metrics");
        assertEquals(0, once.exit(), once.err());
        assertTrue(once.out().contains("hami_gpu_memory_allocated_bytes{"), once.out());
        assertTrue(once.out().contains("GPUDeviceMemoryLimit{"), "legacy names asked for: " + once.out());
        assertTrue(once.out().contains("hami_vgpu_memory_used_bytes{"), once.out());
    }

    @Test
    void booleansAreNegatableAndTypedAsTrueOrFalse() {
        assertEquals(true, value(parsed("scheduler", "--legacy-metrics"), "--legacy-metrics"));
        assertEquals(true, value(parsed("scheduler", "--legacy-metrics=true"), "--legacy-metrics"));
        assertEquals(false, value(parsed("scheduler", "--legacy-metrics=false"), "--legacy-metrics"));
        assertEquals(false, value(parsed("scheduler", "--legacy-metrics", "--no-legacy-metrics"), "--legacy-metrics"));
        assertEquals(false, value(parsed("inspect-cache", "x", "--json=false"), "--json"));
        assertEquals(true, value(parsed("inspect-cache", "--json", "x"), "--json"));
        assertEquals(false, value(parsed("inspect-cache", "--no-json", "x"), "--json"));
        assertRefused(run("scheduler", "--legacy-metrics=yes", "--once", "--snapshot", SNAPSHOT.toString()),
                "--legacy-metrics", "yes");
    }

    @Test
    void hamisMetricsBindAddressIsTheSingleRoleCommandsAndRefusedElsewhere() {
        assertEquals("127.0.0.1:19395", value(parsed("scheduler", "--metrics-bind-address", "127.0.0.1:19395"),
                "--metrics-bind-address"));
        assertEquals(":19394", value(parsed("node", "--metrics-bind-address=:19394"), "--metrics-bind-address"));
        assertRefused(run("demo", "--metrics-bind-address", ":1"),
                "--metrics-bind-address does not apply to demo; it is a flag of scheduler, node");
        assertRefused(run("all", "--metrics-bind-address", ":1"), "does not apply to all");
    }

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

        NodeFlags given = mixin(parsed("node", "--node-name", "gpu-1", "--hook-path", "/h", "--path.procfs",
                "/host/proc"), "node");
        assertEquals("gpu-1", given.nodeName(env));
        assertEquals(Path.of("/h"), given.hookPath(env));
        assertEquals(Path.of("/host/proc"), given.procfs());

        assertRefused(run("node"), "NODE_NAME", "--node-name");
        assertRefused(run("all"), "NODE_NAME");
    }

    @Test
    void theOldProcRootStillWorksAndSaysItIsDeprecated() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        var line = Launcher.commandLine(new Launch(System.out, new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of()));
        NodeFlags flags = mixin(line.parseArgs("node", "--proc-root", "/host/proc").subcommand().commandSpec(), "node");
        assertEquals(Path.of("/host/proc"), flags.procfs());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--proc-root is deprecated; use --path.procfs"),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aFlagOfAnotherCommandIsRefusedAndItsCommandsNamed() {
        assertRefused(run("demo", "--snapshot", "x.yaml"), "--snapshot does not apply to demo; it is a flag of scheduler");
        assertRefused(run("node", "--snapshot=x.yaml"), "--snapshot does not apply to node");
        assertRefused(run("rightsize", "--web.max-requests", "4"), "--web.max-requests does not apply to rightsize");
        assertRefused(run("scheduler", "--json"), "--json does not apply to scheduler; it is a flag of inspect-cache");
    }

    @Test
    void shardsAreNumberedByFlagOrByTheStatefulSetOrdinalAndRefusedOutOfRange() {
        String snapshot = SNAPSHOT.toString();
        Outcome whole = run("scheduler", "--once", "--snapshot", snapshot);
        // The snapshot's two GPU nodes: gpu-a100-01 on shard 0 of 2, gpu-v100-07 on shard 1.
        Outcome zero = run("scheduler", "--once", "--snapshot", snapshot, "--shard", "0", "--total-shards", "2");
        Outcome one = run(Map.of("POD_NAME", "hami-observe-scheduler-1"), "scheduler", "--once", "--snapshot",
                snapshot, "--total-shards", "2");
        assertEquals(0, zero.exit(), zero.toString());
        assertEquals(0, one.exit(), one.toString());
        for (Outcome outcome : new Outcome[] {whole, zero}) {
            assertTrue(outcome.out().contains("node=\"gpu-a100-01\""), outcome.out());
            assertTrue(outcome.out().contains("hami_resource_quota_used{"), outcome.out());
        }
        assertFalse(zero.out().contains("node=\"gpu-v100-07\""), zero.out());
        assertTrue(one.out().contains("node=\"gpu-v100-07\""), one.out());
        assertFalse(one.out().contains("node=\"gpu-a100-01\""), one.out());
        assertFalse(one.out().contains("hami_resource_quota_used{"), one.out());
        // --pod-name wins over POD_NAME, and --shard over both.
        Outcome named = run(Map.of("POD_NAME", "x-1"), "scheduler", "--once", "--snapshot", snapshot,
                "--total-shards", "2", "--pod-name", "hami-observe-scheduler-0");
        assertEquals(zero.out().lines().filter(line -> line.contains("node=")).toList(),
                named.out().lines().filter(line -> line.contains("node=")).toList());

        assertRefused(run("scheduler", "--snapshot", snapshot, "--shard", "2", "--total-shards", "2"),
                "--shard 2 is not a shard of --total-shards 2 (0 to 1)");
        assertRefused(run("scheduler", "--snapshot", snapshot, "--shard", "-1", "--total-shards", "2"),
                "--shard -1 is not a shard");
        assertRefused(run("scheduler", "--snapshot", snapshot, "--total-shards", "0"),
                "--total-shards must be at least 1, not 0");
        assertRefused(run("scheduler", "--snapshot", snapshot, "--total-shards", "3"),
                "--total-shards 3 needs --shard, or a StatefulSet pod name ending in -<ordinal>");
        assertRefused(run(Map.of("POD_NAME", "hami-observe-scheduler-7f9c"), "scheduler", "--snapshot", snapshot,
                "--total-shards", "3"), "not 'hami-observe-scheduler-7f9c'");
        assertRefused(run(Map.of("POD_NAME", "hami-observe-scheduler-3"), "scheduler", "--snapshot", snapshot,
                "--total-shards", "3"), "the pod's ordinal 3 is not a shard of --total-shards 3");
        assertRefused(run("scheduler", "--total-shards", "two"), "two");
    }

    @Test
    void mistakesAreNamedInOneLineWithExitTwo() {
        assertRefused(run("--bogus"), "--bogus");
        assertRefused(run("bogus"), "unknown command 'bogus'", "scheduler");
        assertRefused(run("inspect-cache"), "PATH");
        assertRefused(run("scheduler", "--snapshot"), "--snapshot");
        assertRefused(run("scheduler", "--web.max-requests", "many"), "many", "whole number");
        assertRefused(run("scheduler", "--web.max-requests", "0"), "not positive");
        assertRefused(run("scheduler", "--web.scrape-timeout", "soon"), "soon", "500ms, 8s or 1m");
    }

    @Test
    void durationsTakeMillisecondsSecondsMinutesOrBareSeconds() {
        assertEquals(Duration.ofMillis(500), CommandLineTest.<EdgeFlags>mixin(parsed("scheduler",
                "--web.scrape-timeout", "500ms"), "edge").edge().scrapeTimeout());
        assertEquals(Duration.ofMillis(1500), CommandLineTest.<EdgeFlags>mixin(parsed("scheduler",
                "--web.read-timeout=1.5"), "edge").edge().readTimeout());
        assertEquals(Duration.ofMinutes(2), CommandLineTest.<EdgeFlags>mixin(parsed("node",
                "--web.idle-timeout", "2m"), "edge").edge().idleTimeout());
    }

    @Test
    void theConsolesFlags() {
        CommandSpec console = parsed("console", "--prometheus", "http://prometheus:9090", "--console.route-prefix=/gpu",
                "--web.max-requests", "4", "--console-bind-address", "127.0.0.1:0", "--prometheus-external-url",
                "https://prom.example.com", "--prometheus-timeout", "3s");
        assertEquals(URI.create("http://prometheus:9090"), value(console, "--prometheus"));
        assertEquals(URI.create("https://prom.example.com"), value(console, "--prometheus-external-url"));
        assertEquals("/gpu", value(console, "--console.route-prefix"));
        assertEquals("127.0.0.1:0", value(console, "--console-bind-address"));
        assertEquals(Duration.ofSeconds(3), value(console, "--prometheus-timeout"));
        assertEquals(4, CommandLineTest.<EdgeFlags>mixin(console, "edge").edge().maxConcurrentScrapes());
        assertEquals(Duration.ofSeconds(10), value(parsed("console"), "--prometheus-timeout"));
        assertRefused(run("console"), "console needs --prometheus URL");
        assertRefused(run("console", "--prometheus", "file:///etc/passwd"), "http:// or https://");
        assertRefused(run("demo", "--demo.prometheus", "maybe"), "--demo.prometheus");
        assertEquals(false, value(parsed("demo", "--demo.prometheus", "off"), "--demo.prometheus").equals(
                value(parsed("demo"), "--demo.prometheus")));
    }

    @Test
    void rightsizeTakesAWindowAndAFormat() {
        CommandSpec rightsize = parsed("rightsize", "--window", "7d", "--format", "csv");
        assertEquals(Duration.ofDays(7), value(rightsize, "--window"));
        assertEquals("CSV", value(rightsize, "--format").toString());
        assertEquals(Duration.ofHours(24), value(parsed("rightsize", "--window", "24h"), "--window"));
        assertEquals(Duration.ofMinutes(90), value(parsed("rightsize", "--window", "90m"), "--window"));
        assertEquals(Duration.ofDays(14), value(parsed("rightsize"), "--window"));
        assertRefused(run("rightsize", "--window", "2w"), "14d, 24h or 90m");
        assertRefused(run("rightsize", "--window", "91d"), "between 1m and 90d");
        assertRefused(run("rightsize", "--format", "yaml"), "--format");
        assertRefused(run("rightsize"), "rightsize needs --prometheus URL");
    }

    @Test
    void helpIsGeneratedForTheCommandsAndEachOnesFlags() {
        Outcome help = run("--help");
        assertEquals(0, help.exit());
        for (String command : new String[] {"demo", "scheduler", "node", "all", "inspect-cache", "console",
                "rightsize"}) {
            assertTrue(help.out().contains("  " + command + " "), help.out());
        }
        Outcome scheduler = run("scheduler", "--help");
        assertEquals(0, scheduler.exit());
        assertTrue(scheduler.out().contains("--snapshot=FILE"), scheduler.out());
        assertTrue(scheduler.out().contains("--[no-]legacy-metrics"), scheduler.out());
        assertTrue(scheduler.out().contains("--web.scrape-timeout=DURATION"), scheduler.out());
        assertFalse(scheduler.out().contains("--node-name"), scheduler.out());
        assertEquals(0, run("help", "node").exit());
        assertTrue(run("help", "node").out().contains("--path.procfs=DIR"));
    }
}
