package io.hamiobserve.domain;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/** Short builders for the domain's records, so that each test states only what it is about. */
final class Fixtures {
    static final long MIB = Units.BYTES_PER_MIB;

    private Fixtures() {
    }

    /** A pod whose UID is derived from its namespace and name, so tests can refer to it by name. */
    static PodRef pod(String namespace, String name) {
        return new PodRef(namespace, name, uid(namespace, name));
    }

    static String uid(String namespace, String name) {
        return namespace + "-" + name + "-uid";
    }

    static DeviceShare share(String uuid, long memoryMib, long cores) {
        return new DeviceShare(uuid, "NVIDIA", memoryMib, cores);
    }

    static ContainerShares app(int index, String name, DeviceShare... shares) {
        return new ContainerShares(index, name, false, Arrays.asList(shares));
    }

    static ContainerShares init(int index, String name, DeviceShare... shares) {
        return new ContainerShares(index, name, true, Arrays.asList(shares));
    }

    static PodPlacement placement(PodRef pod, String node, PodPhase phase, boolean initFinished,
                                  ContainerShares... containers) {
        return new PodPlacement(pod, node, phase, initFinished, Arrays.asList(containers));
    }

    static PodPlacement running(PodRef pod, String node, ContainerShares... containers) {
        return placement(pod, node, PodPhase.RUNNING, false, containers);
    }

    /** A single-container running pod holding one share. */
    static PodPlacement runningOne(PodRef pod, String node, String uuid, long memoryMib, long cores) {
        return running(pod, node, app(0, "main", share(uuid, memoryMib, cores)));
    }

    static RegisteredCard card(String uuid, int index, long memoryMib) {
        return new RegisteredCard(uuid, index, 10, memoryMib, 100, "NVIDIA H100 80GB HBM3", 0, CardMode.HAMI_CORE, true);
    }

    static RegisteredCard card(String uuid, int index, long memoryMib, CardMode mode) {
        return new RegisteredCard(uuid, index, 10, memoryMib, 100, "NVIDIA A100-SXM4-40GB", 0, mode, true);
    }

    static MigInstance mig(String gpuUuid, String migUuid) {
        return new MigInstance(0, 0, gpuUuid, "1g.10gb", 0, 1, migUuid, 1, 0);
    }

    static QuotaLimit quota(String namespace, String object, QuotaResource resource, long hardLimit) {
        return new QuotaLimit(namespace, object, resource, hardLimit);
    }

    /** A device of a cache file: used and limit in MiB for readability. */
    static DeviceUsage device(int vdeviceIndex, String uuid, long usedMib, long limitMib, long lastKernelEpochSeconds) {
        return new DeviceUsage(vdeviceIndex, uuid, usedMib * MIB, 0, 0, usedMib * MIB, limitMib * MIB, 100, 0, 1,
                lastKernelEpochSeconds);
    }

    static ContainerUsage usage(String podUid, String container, DeviceUsage... devices) {
        return new ContainerUsage(podUid, container, Arrays.asList(devices));
    }

    static NodePod nodePod(PodRef pod, List<String> containerNames, Map<String, String> idToName,
                           PodPlacement placement) {
        return new NodePod(pod, containerNames, idToName, Optional.ofNullable(placement));
    }

    static HostCardReading hostCard(int index, String uuid, Long usedMib, HostCardReading.CardProcess... processes) {
        return new HostCardReading(index, uuid, "NVIDIA H100 80GB HBM3",
                usedMib == null ? OptionalLong.empty() : OptionalLong.of(usedMib * MIB),
                OptionalLong.of(81559 * MIB), OptionalDouble.of(10), OptionalDouble.of(5), OptionalDouble.empty(),
                OptionalDouble.empty(), Optional.empty(),
                processes.length == 0 ? Optional.empty() : Optional.of(Arrays.asList(processes)));
    }

    static HostCardReading.CardProcess process(long pid, long usedMib) {
        return new HostCardReading.CardProcess(pid, OptionalLong.of(usedMib * MIB));
    }
}
