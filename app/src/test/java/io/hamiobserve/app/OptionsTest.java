package io.hamiobserve.app;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line, as HAMi users spell it. */
class OptionsTest {
    private static Options parse(Map<String, String> env, String... args) {
        return Options.parse(args, env);
    }

    @Test
    void noArgumentsRunTheDemoOnHamisPorts() {
        Options options = parse(Map.of());
        assertEquals("demo", options.command());
        assertEquals(":9395", options.allocationBind());
        assertEquals(":9394", options.usageBind());
        assertFalse(options.legacyMetrics());
    }

    @Test
    void hamisMetricsBindAddressGoesToTheRoleOfTheCommand() {
        assertEquals("127.0.0.1:19395", parse(Map.of(), "scheduler", "--metrics-bind-address", "127.0.0.1:19395")
                .allocationBind());
        Options node = parse(Map.of("NODE_NAME", "gpu-1"), "node", "--metrics-bind-address=:19394");
        assertEquals(":19394", node.usageBind());
        assertEquals("gpu-1", node.nodeName());
        assertThrows(IllegalArgumentException.class, () -> parse(Map.of(), "demo", "--metrics-bind-address", ":1"));
    }

    @Test
    void theNodeRoleReadsHamisEnvironment() {
        Options node = parse(Map.of("NODE_NAME", "gpu-7", "HOOK_PATH", "/var/vgpu"), "node");
        assertEquals(Path.of("/var/vgpu"), node.hookPath());
        assertEquals("", node.nvmlLibrary(), "empty means the driver's own libnvidia-ml.so.1");
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> parse(Map.of(), "node"));
        assertTrue(missing.getMessage().contains("NODE_NAME"), missing.getMessage());
    }

    @Test
    void snapshotOnlyForTheScheduler() {
        Options scheduler = parse(Map.of(), "scheduler", "--snapshot", "cluster.yaml", "--once", "--legacy-metrics");
        assertEquals(Path.of("cluster.yaml"), scheduler.snapshot().orElseThrow());
        assertTrue(scheduler.once());
        assertTrue(scheduler.legacyMetrics());
        assertThrows(IllegalArgumentException.class, () -> parse(Map.of(), "demo", "--snapshot", "x.yaml"));
    }

    @Test
    void mistakesAreNamed() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse(Map.of(), "--bogus"))
                .getMessage().contains("--bogus"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> parse(Map.of(), "bogus"))
                .getMessage().contains("bogus"));
        assertThrows(IllegalArgumentException.class, () -> parse(Map.of(), "inspect-cache"));
        assertThrows(IllegalArgumentException.class, () -> parse(Map.of(), "scheduler", "--snapshot"));
    }

    @Test
    void bindAddresses() {
        assertEquals(new Options.BindAddress("0.0.0.0", 9395), Options.BindAddress.parse(":9395"));
        assertEquals(new Options.BindAddress("::1", 9394), Options.BindAddress.parse("[::1]:9394"));
        assertEquals(new Options.BindAddress("127.0.0.1", 0), Options.BindAddress.parse("127.0.0.1:0"));
        assertThrows(IllegalArgumentException.class, () -> Options.BindAddress.parse("9395"));
        assertThrows(IllegalArgumentException.class, () -> Options.BindAddress.parse(":http"));
        assertThrows(IllegalArgumentException.class, () -> Options.BindAddress.parse(":70000"));
    }
}
