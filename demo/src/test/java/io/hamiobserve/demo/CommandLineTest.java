package io.hamiobserve.demo;

import io.hamiobserve.edge.http.EdgeConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;

import static io.hamiobserve.app.testing.CommandLines.Outcome;
import static io.hamiobserve.app.testing.CommandLines.assertRefused;
import static io.hamiobserve.app.testing.CommandLines.edge;
import static io.hamiobserve.app.testing.CommandLines.parsed;
import static io.hamiobserve.app.testing.CommandLines.run;
import static io.hamiobserve.app.testing.CommandLines.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command line with every command on the path (the developer's launcher): the demo runs when
 * none is named, and a flag of one command given to another is refused naming the commands it
 * belongs to. Each role's own flags are tested in its module.
 */
class CommandLineTest {
    @Test
    void theDemosDefaultsAreHamisPortsAndTheEdgesDefaults() {
        CommandSpec demo = parsed("demo");
        assertEquals(":9395", value(demo, "--allocation-bind-address"));
        assertEquals(":9394", value(demo, "--usage-bind-address"));
        assertEquals(":9396", value(demo, "--demo-second-node-bind-address"));
        assertEquals(":9397", value(demo, "--console-bind-address"));
        assertEquals(false, value(demo, "--legacy-metrics"));
        assertEquals(EdgeConfig.defaults(), edge(demo));
        assertRefused(run("demo", "--demo.prometheus", "maybe"), "--demo.prometheus");
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
    void aFlagOfAnotherCommandIsRefusedAndItsCommandsNamed() {
        assertRefused(run("demo", "--metrics-bind-address", ":1"),
                "--metrics-bind-address does not apply to demo; it is a flag of scheduler, node");
        assertRefused(run("all", "--metrics-bind-address", ":1"), "does not apply to all");
        assertRefused(run("demo", "--snapshot", "x.yaml"), "--snapshot does not apply to demo; it is a flag of scheduler");
        assertRefused(run("node", "--snapshot=x.yaml"), "--snapshot does not apply to node");
        assertRefused(run("rightsize", "--web.max-requests", "4"), "--web.max-requests does not apply to rightsize");
        assertRefused(run("scheduler", "--json"), "--json does not apply to scheduler; it is a flag of inspect-cache");
        assertRefused(run("all"), "NODE_NAME");
    }

    @Test
    void mistakesAreNamedInOneLineWithExitTwo() {
        assertRefused(run("--bogus"), "--bogus");
        assertRefused(run("bogus"), "unknown command 'bogus'", "scheduler");
    }

    @Test
    void helpIsGeneratedForEveryCommandAndEachOnesFlags() {
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
