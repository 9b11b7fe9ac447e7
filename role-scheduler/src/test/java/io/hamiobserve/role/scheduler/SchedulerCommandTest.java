package io.hamiobserve.role.scheduler;

import io.hamiobserve.edge.http.EdgeConfig;
import io.hamiobserve.app.testing.CommandLines;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static io.hamiobserve.app.testing.CommandLines.assertRefused;
import static io.hamiobserve.app.testing.CommandLines.edge;
import static io.hamiobserve.app.testing.CommandLines.parsed;
import static io.hamiobserve.app.testing.CommandLines.run;
import static io.hamiobserve.app.testing.CommandLines.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code hami-observe scheduler} as HAMi users spell it, on this module's class path (its commands only). */
class SchedulerCommandTest {
    private static final Path SNAPSHOT = Path.of(System.getProperty("project.root", ".."))
            .resolve("adapters-k8s/src/test/resources/cluster-snapshot.yaml").toAbsolutePath();

    @Test
    void hamisFlagAndTheDefaults() {
        CommandSpec scheduler = parsed("scheduler", "--metrics-bind-address", "127.0.0.1:19395");
        assertEquals("127.0.0.1:19395", value(scheduler, "--metrics-bind-address"));
        assertEquals(false, value(scheduler, "--legacy-metrics"));
        assertEquals(false, value(scheduler, "--once"));
        assertEquals(Duration.ofSeconds(60), value(scheduler, "--sync-timeout"));
        assertEquals(EdgeConfig.defaults(), edge(scheduler));
        assertEquals(Path.of("cluster.yaml"), value(parsed("scheduler", "--snapshot", "cluster.yaml", "--once"),
                "--snapshot"));
    }

    @Test
    void booleansAreNegatableAndTypedAsTrueOrFalse() {
        assertEquals(true, value(parsed("scheduler", "--legacy-metrics"), "--legacy-metrics"));
        assertEquals(true, value(parsed("scheduler", "--legacy-metrics=true"), "--legacy-metrics"));
        assertEquals(false, value(parsed("scheduler", "--legacy-metrics=false"), "--legacy-metrics"));
        assertEquals(false, value(parsed("scheduler", "--legacy-metrics", "--no-legacy-metrics"), "--legacy-metrics"));
        assertRefused(run("scheduler", "--legacy-metrics=yes", "--once", "--snapshot", SNAPSHOT.toString()),
                "--legacy-metrics", "yes");
    }

    @Test
    void durationsTakeMillisecondsSecondsMinutesOrBareSecondsAndRefuseTheRest() {
        assertEquals(Duration.ofMillis(500), edge(parsed("scheduler", "--web.scrape-timeout", "500ms"))
                .scrapeTimeout());
        assertEquals(Duration.ofMillis(1500), edge(parsed("scheduler", "--web.read-timeout=1.5"))
                .readTimeout());
        assertEquals(Duration.ofMinutes(2), edge(parsed("scheduler", "--web.idle-timeout", "2m"))
                .idleTimeout());
        assertRefused(run("scheduler", "--web.scrape-timeout", "soon"), "soon", "500ms, 8s, 1m, 2h or 1d");
        assertRefused(run("scheduler", "--web.scrape-timeout", "2f"), "2f", "500ms, 8s, 1m, 2h or 1d");
        assertRefused(run("scheduler", "--web.max-requests", "many"), "many", "whole number");
        assertRefused(run("scheduler", "--web.max-requests", "0"), "not positive");
        assertRefused(run("scheduler", "--snapshot"), "--snapshot");
    }

    @Test
    void onceOnASnapshotPrintsTheExpositionWithTheLegacyNamesAsked() {
        var plain = run("scheduler", "--snapshot", SNAPSHOT.toString(), "--once");
        assertEquals(0, plain.exit(), plain.err());
        assertTrue(plain.out().contains("hami_observe_ledger_synced 1.0"), plain.out());
        assertFalse(plain.out().contains("GPUDeviceMemoryLimit{"), plain.out());
        var legacy = run("scheduler", "--snapshot", SNAPSHOT.toString(), "--once=true", "--legacy-metrics");
        assertTrue(legacy.out().contains("GPUDeviceMemoryLimit{"), legacy.out());
    }

    @Test
    void onlyThisRolesCommandsAreThereAndOthersAreNamedUnknown() {
        var help = run("--help");
        assertEquals(0, help.exit());
        assertTrue(help.out().contains("  scheduler "), help.out());
        assertFalse(help.out().contains("  node "), help.out());
        assertRefused(run("node"), "unknown command 'node'");
        assertRefused(run("scheduler", "--node-name", "x"), "unknown flag --node-name for scheduler");
    }

    @Test
    void shardsAreNumberedByFlagOrByTheStatefulSetOrdinalAndRefusedOutOfRange() {
        String snapshot = SNAPSHOT.toString();
        CommandLines.Outcome whole = run("scheduler", "--once", "--snapshot", snapshot);
        // The snapshot's two GPU nodes: gpu-a100-01 on shard 0 of 2, gpu-v100-07 on shard 1.
        CommandLines.Outcome zero = run("scheduler", "--once", "--snapshot", snapshot, "--shard", "0", "--total-shards", "2");
        CommandLines.Outcome one = run(Map.of("POD_NAME", "hami-observe-scheduler-1"), "scheduler", "--once", "--snapshot",
                snapshot, "--total-shards", "2");
        assertEquals(0, zero.exit(), zero.toString());
        assertEquals(0, one.exit(), one.toString());
        for (CommandLines.Outcome outcome : new CommandLines.Outcome[] {whole, zero}) {
            assertTrue(outcome.out().contains("node=\"gpu-a100-01\""), outcome.out());
            assertTrue(outcome.out().contains("hami_resource_quota_used{"), outcome.out());
        }
        assertFalse(zero.out().contains("node=\"gpu-v100-07\""), zero.out());
        assertTrue(one.out().contains("node=\"gpu-v100-07\""), one.out());
        assertFalse(one.out().contains("node=\"gpu-a100-01\""), one.out());
        assertFalse(one.out().contains("hami_resource_quota_used{"), one.out());
        // --pod-name wins over POD_NAME, and --shard over both.
        CommandLines.Outcome named = run(Map.of("POD_NAME", "x-1"), "scheduler", "--once", "--snapshot", snapshot,
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
    void podOwnersAreOnTheContainerInfoByDefaultTheirOwnFamilyOptInAndFamiliesAreChosenAsKubeStateMetricsDoes() {
        String snapshot = SNAPSHOT.toString();
        var defaults = run("scheduler", "--once", "--snapshot", snapshot);
        assertEquals(0, defaults.exit(), defaults.err());
        assertFalse(defaults.out().contains("# TYPE hami_observe_pod_owner")
                || defaults.out().contains("hami_observe_pod_owner{"), defaults.out());
        assertTrue(defaults.out().lines().anyMatch(line -> line.startsWith("hami_observe_container_info{")
                && line.contains("owner_kind=\"") && line.contains("owner_name=\"")), defaults.out());

        var withOwners = run("scheduler", "--once", "--snapshot", snapshot, "--metric-opt-in-list",
                "hami_observe_pod_owner");
        assertEquals(0, withOwners.exit(), withOwners.err());
        assertTrue(withOwners.out().contains("# TYPE hami_observe_pod_owner gauge"), withOwners.out());
        assertTrue(withOwners.out().contains("hami_observe_pod_owner{"), withOwners.out());

        var denied = run("scheduler", "--once", "--snapshot", snapshot, "--metric-denylist",
                "hami_observe_vgpu_container_.*,hami_gpu_shared_count");
        assertEquals(0, denied.exit(), denied.err());
        assertFalse(denied.out().contains("hami_observe_vgpu_container_"), denied.out());
        assertFalse(denied.out().contains("hami_gpu_shared_count"), denied.out());
        assertTrue(denied.out().contains("hami_vgpu_memory_allocated_bytes{"), denied.out());

        var allowed = run("scheduler", "--once", "--snapshot", snapshot, "--metric-allowlist", "hami_gpu_.*",
                "--metric-allowlist", "hami_observe_ledger_synced");
        assertEquals(0, allowed.exit(), allowed.err());
        assertEquals(java.util.Set.of("hami_gpu_core_allocated_ratio", "hami_gpu_core_limit_ratio",
                        "hami_gpu_memory_allocated_bytes", "hami_gpu_memory_limit_bytes", "hami_gpu_shared_count",
                        "hami_observe_ledger_synced"),
                allowed.out().lines().filter(line -> line.startsWith("# TYPE ")).map(line -> line.split(" ")[2])
                        .collect(java.util.stream.Collectors.toSet()));

        assertRefused(run("scheduler", "--snapshot", snapshot, "--metric-allowlist", "a", "--metric-denylist", "b"),
                "an allowlist and a denylist exclude each other");
        assertRefused(run("scheduler", "--snapshot", snapshot, "--metric-denylist", "hami_("),
                "the denylist has an expression that is not a regular expression: hami_(");
    }
}
