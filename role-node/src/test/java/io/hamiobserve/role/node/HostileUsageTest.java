package io.hamiobserve.role.node;

import io.hamiobserve.app.testing.Expositions;
import io.hamiobserve.exposition.testing.Promtool;
import io.hamiobserve.testkit.CacheFileImage;
import io.hamiobserve.adapters.cachefile.CacheFiles;
import io.hamiobserve.testkit.FixedPods;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.NodePod;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.ports.HostCardSource;
import io.hamiobserve.ports.SkipReporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tenant writes its own HAMi-Core cache file: it can name any card and any figure. The node
 * endpoint over real cache files keeps a card that is neither the pod's nor the node's out of every
 * series and sum, refuses figures beyond any card, counts both, and serves a valid exposition.
 */
class HostileUsageTest {
    private static final String OWN = "GPU-aaaaaaaa-own";
    private static final String NEIGHBOUR = "GPU-bbbbbbbb-neighbour";
    private static final String FOREIGN = "GPU-ffffffff-foreign";
    private static final long MIB = 1L << 20;

    @Test
    void aForeignCardAndImpossibleFiguresAreCountedAndKeptOut(@TempDir Path hook) throws Exception {
        PodRef pod = new PodRef("ml", "tenant", "uid-tenant");
        PodPlacement placement = new PodPlacement(pod, "node-x", PodPhase.RUNNING, true,
                List.of(new ContainerShares(0, "main", false, List.of(new DeviceShare(OWN, "NVIDIA", 8192, 30)))));
        Path directory = Files.createDirectories(hook.resolve("containers").resolve("uid-tenant_main"));
        CacheFileImage.v1(2)
                .device(OWN, 8192 * MIB, 30).device(NEIGHBOUR, 8192 * MIB, 30).device(FOREIGN, 8192 * MIB, 30)
                .process(7, 70007, CacheFileImage.DeviceUse.of(300 * MIB, 40 * MIB, 1000 * MIB, 20),
                        CacheFileImage.DeviceUse.of(300 * MIB, 40 * MIB, 500 * MIB, 10),
                        CacheFileImage.DeviceUse.of(300 * MIB, 40 * MIB, 60_000 * MIB, 90))
                // A second process group claiming more memory than any card has.
                .process(8, 70008, CacheFileImage.DeviceUse.of(Quantities.MAX_MEMORY_BYTES, 0, 1, 0))
                .build().writeTo(directory.resolve("a.cache"));
        HostCardSource driver = new HostCardSource() {
            @Override
            public List<HostCardReading> read(SkipReporter skips) {
                return List.of(card(0, OWN), card(1, NEIGHBOUR));
            }

            @Override
            public void close() {
            }
        };
        UsageRole role = new UsageRole("node-x", driver, CacheFiles.directory(hook.resolve("containers")),
                new FixedPods(List.of(new NodePod(pod, List.of("main"), Map.of(), Optional.of(placement)))),
                Optional.empty(), false, Expositions.BUILD, Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"),
                ZoneOffset.UTC)).start();

        String exposition = Expositions.render(role, ExpositionFormat.PROMETHEUS_TEXT);
        assertFalse(exposition.contains(FOREIGN), exposition);
        assertTrue(exposition.contains("hami_vgpu_memory_used_bytes{container=\"main\",device_uuid=\"" + OWN
                + "\",namespace=\"ml\",pod=\"tenant\",vdevice_index=\"0\",zone=\"vGPU\"} " + (double) (1340 * MIB)),
                exposition);
        // The node's other card counts: a container may be given it (its placement may be stale).
        assertTrue(exposition.contains("device_uuid=\"" + NEIGHBOUR + "\""), exposition);
        assertTrue(exposition.contains("hami_observe_gpu_memory_hami_core_used_bytes{device_index=\"0\","
                + "device_type=\"NVIDIA-T\",device_uuid=\"" + OWN + "\",node=\"node-x\"} " + (double) (1340 * MIB)),
                exposition);
        assertTrue(exposition.contains("hami_observe_skipped_inputs_total{kind=\"device\",reason=\"unknown_device\","
                + "source=\"cachefile\"} 1.0"), exposition);
        assertTrue(exposition.contains("hami_observe_skipped_inputs_total{kind=\"slot\",reason=\"number_overflow\","
                + "source=\"cachefile\"} 1.0"), exposition);
        Promtool.assertClean(exposition);
    }

    private static HostCardReading card(int index, String uuid) {
        return new HostCardReading(index, uuid, "T", OptionalLong.of(20_000 * MIB), OptionalLong.of(40_960 * MIB),
                OptionalDouble.of(50), OptionalDouble.of(10), OptionalDouble.empty(), OptionalDouble.empty(),
                Optional.empty(), Optional.empty());
    }
}
