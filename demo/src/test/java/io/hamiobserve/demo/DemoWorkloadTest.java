package io.hamiobserve.demo;

import io.hamiobserve.domain.CardUse;
import io.hamiobserve.domain.ContainerUsage;
import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.Units;
import io.hamiobserve.ports.SkipReporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The demo's readings hold the invariants HAMi-Core's accounting and the driver imply, at every
 * second of its whole simulated cycle (memory moves with a 180 s period, SM utilisation with a
 * 60 s one), as the workload produces them and as they come back through real cache files.
 */
class DemoWorkloadTest {
    private static final Instant START = Instant.parse("2026-11-29T12:00:00Z");
    private static final int CYCLE_SECONDS = 180;

    private static DemoWorkload at(Instant instant) {
        return new DemoWorkload(DemoCluster.standard(), Clock.fixed(instant, ZoneOffset.UTC));
    }

    @Test
    void everyReadingOfTheCycleIsSelfConsistent() {
        List<String> violations = new ArrayList<>();
        for (int second = 0; second < CYCLE_SECONDS; second++) {
            DemoWorkload workload = at(START.plusSeconds(second));
            long now = START.getEpochSecond() + second;
            for (String node : workload.cluster().nodes()) {
                List<ContainerUsage> usages = workload.containerUsages(node);
                Map<String, Long> hamiCoreByCard = new HashMap<>();
                for (ContainerUsage usage : usages) {
                    for (DeviceUsage device : usage.devices()) {
                        String where = "t+" + second + " " + node + " " + usage.containerName() + " " + device.uuid();
                        // HAMi-Core adds every allocation to the total and to its kind: total = context + module + data.
                        check(violations, device.usedBytes() == device.contextBytes() + device.moduleBytes()
                                + device.bufferBytes(), where + ": used is not context + module + buffer: " + device);
                        check(violations, device.usedBytes() >= device.contextBytes() + device.moduleBytes(),
                                where + ": used below context + module: " + device);
                        // HAMi-Core refuses allocations beyond the container's limit.
                        check(violations, device.usedBytes() <= device.limitBytes(), where + ": used beyond limit");
                        check(violations, device.smLimitPercent() >= 1 && device.smLimitPercent() <= 100,
                                where + ": SM limit " + device.smLimitPercent());
                        check(violations, device.smUtilPercent() <= 100, where + ": SM utilisation "
                                + device.smUtilPercent());
                        check(violations, device.liveProcesses() >= 1, where + ": a running container without process");
                        check(violations, device.lastKernelEpochSeconds() <= now, where + ": last kernel in the future");
                        hamiCoreByCard.merge(device.uuid(), device.usedBytes(), Long::sum);
                    }
                }
                for (HostCardReading card : workload.hostCards(node)) {
                    String where = "t+" + second + " " + node + " card " + card.index();
                    long used = card.memoryUsedBytes().orElseThrow();
                    // The driver sees at least what HAMi-Core accounts, plus its own reserve.
                    check(violations, used >= hamiCoreByCard.getOrDefault(card.uuid(), 0L)
                            + Units.mibToBytes(DemoWorkload.DRIVER_RESERVED_MIB), where + ": host used " + used
                            + " below HAMi-Core's " + hamiCoreByCard.get(card.uuid()));
                    check(violations, used <= card.memoryTotalBytes().orElseThrow(), where + ": used beyond total");
                    long processes = card.processes().orElseThrow().stream()
                            .mapToLong(p -> p.usedBytes().orElse(0)).sum();
                    check(violations, processes <= used, where + ": processes hold more than the card's used memory");
                    double util = card.gpuUtilPercent().orElseThrow();
                    check(violations, util >= 0 && util <= 100, where + ": utilisation " + util);
                }
            }
        }
        assertEquals(List.of(), violations.stream().limit(20).toList());
    }

    @Test
    void theAllocatedShareOfEveryManagedContainerCoversItsUse() {
        for (int second = 0; second < CYCLE_SECONDS; second += 7) {
            DemoWorkload workload = at(START.plusSeconds(second));
            for (DemoCluster.Pod pod : workload.cluster().pods()) {
                for (DemoCluster.Container container : pod.containers()) {
                    for (int s = 0; s < container.shares().size() && container.managed(); s++) {
                        long use = workload.useMib(pod, container, s);
                        assertTrue(use <= container.shares().get(s).memoryMib(), pod.ref().name() + " " + use);
                    }
                }
            }
            // Effective use per card never exceeds a card's registered memory either.
            for (DemoCluster.Pod pod : workload.cluster().pods()) {
                for (CardUse use : CardUse.of(pod.placement())) {
                    workload.cluster().cards().stream().filter(c -> c.registration().uuid().equals(use.uuid()))
                            .forEach(c -> assertTrue(use.memoryMib() <= c.registration().memoryMib()));
                }
            }
        }
    }

    @Test
    void theCacheFilesGiveBackWhatTheWorkloadWrote(@TempDir Path directory) {
        for (int second = 0; second < CYCLE_SECONDS; second += 13) {
            DemoWorkload workload = at(START.plusSeconds(second));
            for (String node : workload.cluster().nodes()) {
                DemoCacheFiles files = new DemoCacheFiles(workload, node, directory.resolve(node));
                List<String> skipped = new ArrayList<>();
                SkipReporter skips = (key, item) -> skipped.add(key.reason() + " " + item);
                Map<String, List<DeviceUsage>> read = new HashMap<>();
                files.read(skips).forEach(usage -> read.put(usage.podUid() + "/" + usage.containerName(),
                        usage.devices()));
                for (ContainerUsage written : workload.containerUsages(node)) {
                    List<DeviceUsage> back = read.get(written.podUid() + "/" + written.containerName());
                    assertEquals(written.devices().size(), back.size());
                    for (int d = 0; d < back.size(); d++) {
                        DeviceUsage w = written.devices().get(d);
                        DeviceUsage r = back.get(d);
                        assertEquals(List.of(w.uuid(), w.usedBytes(), w.contextBytes(), w.moduleBytes(),
                                w.bufferBytes(), w.limitBytes(), w.smUtilPercent()), List.of(r.uuid(), r.usedBytes(),
                                r.contextBytes(), r.moduleBytes(), r.bufferBytes(), r.limitBytes(), r.smUtilPercent()));
                    }
                }
                assertEquals(List.of(), skipped);
            }
        }
    }

    private static void check(List<String> violations, boolean holds, String violation) {
        if (!holds) {
            violations.add(violation);
        }
    }
}
