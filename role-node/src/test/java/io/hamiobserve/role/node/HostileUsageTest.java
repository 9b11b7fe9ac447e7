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

    /**
     * Thousands of processes on a card held whole without HAMi-Core, mixed with pids that vanished,
     * cgroups naming no pod of this node, a container ID the pod does not list, and the pod's own
     * processes on a card it does not hold: the pod gets its sum, everything else is counted by
     * reason, and the scrape stays whole and valid.
     */
    @Test
    void hostileProcessListsAreCountedNeverFailTheScrape(@TempDir Path hook) throws Exception {
        PodRef pod = new PodRef("ml", "whole", "uid-whole");
        PodPlacement placement = new PodPlacement(pod, "node-x", PodPhase.RUNNING, true,
                List.of(new ContainerShares(0, "train", false, List.of(new DeviceShare(OWN, "NVIDIA", 40_960, 100)))));
        java.util.List<HostCardReading.CardProcess> own = new java.util.ArrayList<>();
        java.util.List<HostCardReading.CardProcess> neighbour = new java.util.ArrayList<>();
        java.util.Map<Long, io.hamiobserve.domain.ProcessOwner> owners = new java.util.HashMap<>();
        for (long pid = 100_000; pid < 104_000; pid++) {
            own.add(new HostCardReading.CardProcess(pid, OptionalLong.of(MIB), OptionalDouble.of(pid % 2)));
            owners.put(pid, new io.hamiobserve.domain.ProcessOwner("uid-whole", "cid-train"));
        }
        for (long pid = 200_000; pid < 201_000; pid++) {
            // Vanished between the driver's list and /proc: no owner.
            own.add(new HostCardReading.CardProcess(pid, OptionalLong.of(MIB), OptionalDouble.of(0)));
        }
        own.add(new HostCardReading.CardProcess(300_001, OptionalLong.of(MIB), OptionalDouble.of(0)));
        owners.put(300_001L, new io.hamiobserve.domain.ProcessOwner("uid-of-no-pod-here", "cid-x"));
        own.add(new HostCardReading.CardProcess(300_002, OptionalLong.of(MIB), OptionalDouble.of(0)));
        owners.put(300_002L, new io.hamiobserve.domain.ProcessOwner("uid-whole", "cid-not-listed"));
        for (long pid = 400_000; pid < 400_010; pid++) {
            neighbour.add(new HostCardReading.CardProcess(pid, OptionalLong.of(MIB), OptionalDouble.of(50)));
            owners.put(pid, new io.hamiobserve.domain.ProcessOwner("uid-whole", "cid-train"));
        }
        HostCardSource driver = new HostCardSource() {
            @Override
            public List<HostCardReading> read(SkipReporter skips) {
                return List.of(withProcesses(card(0, OWN), own), withProcesses(card(1, NEIGHBOUR), neighbour));
            }

            @Override
            public void close() {
            }
        };
        UsageRole role = new UsageRole("node-x", driver, CacheFiles.directory(Files.createDirectories(
                hook.resolve("containers"))),
                new FixedPods(List.of(new NodePod(pod, List.of("train"), Map.of("cid-train", "train"),
                        Optional.of(placement)))),
                Optional.of(pids -> owners), false, Expositions.BUILD,
                Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC)).start();

        String exposition = Expositions.render(role, ExpositionFormat.PROMETHEUS_TEXT);

        String labels = "{container=\"train\",device_uuid=\"" + OWN + "\",namespace=\"ml\",pod=\"whole\","
                + "vdevice_index=\"0\"";
        assertTrue(exposition.contains("hami_vgpu_memory_used_bytes" + labels + ",zone=\"vGPU\"} " + (double) (4000 * MIB)),
                exposition);
        assertTrue(exposition.contains("hami_container_device_utilization_ratio" + labels + ",zone=\"vGPU\"} 2000.0"),
                exposition);
        assertTrue(exposition.contains("hami_observe_container_usage_source{container=\"train\",device_uuid=\""
                + OWN + "\",namespace=\"ml\",pod=\"whole\",source=\"nvml_process\",vdevice_index=\"0\"} 1.0"),
                exposition);
        assertTrue(exposition.contains("hami_observe_container_memory_idle_bytes" + labels + "} "
                + (double) ((40_960 - 4000) * MIB)), exposition);
        assertFalse(exposition.contains("hami_vgpu_memory_used_bytes{container=\"train\",device_uuid=\"" + NEIGHBOUR),
                exposition);
        for (String counted : List.of("no_owner\",source=\"processes\"} 1000.0",
                "unknown_pod\",source=\"processes\"} 1.0", "unknown_container\",source=\"processes\"} 1.0",
                "card_not_allocated\",source=\"processes\"} 10.0")) {
            assertTrue(exposition.contains("hami_observe_skipped_inputs_total{kind=\"process\",reason=\"" + counted),
                    counted + "\n" + exposition);
        }
        Promtool.assertClean(exposition);
    }

    private static HostCardReading withProcesses(HostCardReading card, List<HostCardReading.CardProcess> processes) {
        return new HostCardReading(card.index(), card.uuid(), card.name(), card.memoryUsedBytes(),
                card.memoryTotalBytes(), card.gpuUtilPercent(), card.memoryControllerUtilPercent(),
                card.temperatureCelsius(), card.powerWatts(), card.pciBusId(), Optional.of(processes));
    }

    private static HostCardReading card(int index, String uuid) {
        return new HostCardReading(index, uuid, "T", OptionalLong.of(20_000 * MIB), OptionalLong.of(40_960 * MIB),
                OptionalDouble.of(50), OptionalDouble.of(10), OptionalDouble.empty(), OptionalDouble.empty(),
                Optional.empty(), Optional.empty());
    }
}
