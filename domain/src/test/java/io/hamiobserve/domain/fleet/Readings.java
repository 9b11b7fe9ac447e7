package io.hamiobserve.domain.fleet;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Builds {@link FleetReadings} for tests, one series row at a time. */
final class Readings {
    static final double MIB = 1024 * 1024;
    static final double GIB = 1024 * MIB;

    final List<FleetReadings.Registered> registered = new ArrayList<>();
    final List<FleetReadings.Host> hosts = new ArrayList<>();
    final List<FleetReadings.Allocation> allocations = new ArrayList<>();
    final List<FleetReadings.ContainerName> names = new ArrayList<>();
    final List<FleetReadings.Use> uses = new ArrayList<>();
    final List<FleetReadings.Unmanaged> unmanaged = new ArrayList<>();
    final List<FleetReadings.Quota> quotas = new ArrayList<>();
    final List<FleetReadings.SourceStatus> sources = new ArrayList<>();

    static Figure of(double value) {
        return Figure.of(value);
    }

    Readings card(String node, String uuid, int index, String model, String mode, double memoryGib,
                  double allocatedGib, double coresAllocated, int slotsUsed, int slotsTotal) {
        registered.add(new FleetReadings.Registered(node, uuid, index, model, mode, of(1), of(memoryGib * GIB),
                of(allocatedGib * GIB), of(100), of(coresAllocated), of(slotsUsed), of(slotsTotal)));
        return this;
    }

    Readings host(String node, String uuid, double usedGib, double utilisation) {
        hosts.add(new FleetReadings.Host(node, uuid, of(usedGib * GIB), of(utilisation), of(40), of(150), of(0)));
        sources.add(new FleetReadings.SourceStatus(node + ":9394", node, "nvml", true));
        sources.add(new FleetReadings.SourceStatus(node + ":9394", node, "cachefile", true));
        return this;
    }

    Readings share(String namespace, String pod, int index, String container, String node, String uuid,
                   double memoryMib, double cores) {
        allocations.add(new FleetReadings.Allocation(namespace, pod, index, node, uuid, of(memoryMib * MIB), of(cores)));
        names.add(new FleetReadings.ContainerName(namespace, pod, index, container, false));
        return this;
    }

    Readings use(String namespace, String pod, String container, String node, String uuid, double memoryMib,
                 double utilisation) {
        uses.add(new FleetReadings.Use(namespace, pod, container, node, uuid, of(memoryMib * MIB), of(utilisation),
                of(2)));
        return this;
    }

    FleetReadings build() {
        return new FleetReadings(Instant.ofEpochSecond(1_800_000_000), registered, hosts, allocations, names, uses,
                unmanaged, quotas, sources, List.of(), List.of(), List.of(), Map.of(), Map.of());
    }

    FleetState state() {
        return FleetState.of(build());
    }
}
