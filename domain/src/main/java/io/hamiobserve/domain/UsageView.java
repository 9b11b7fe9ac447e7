package io.hamiobserve.domain;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * What is really used on one node, at one moment: the usage view, and its gap to what was allocated.
 *
 * @param node               the node's name
 * @param hostCards          the driver's readings, by index
 * @param containers         per container and device, HAMi-Core's accounting joined to the pod's names
 * @param unknownContainers  accounting found for pods or containers the pod directory does not
 *                           know (not yet, or no longer): kept out of the series, never guessed
 * @param unmatchedDevices   devices of known containers whose UUID is neither allocated to the
 *                           pod nor a card of this node: a tenant writes its own cache file and can
 *                           name any card, so these are kept out of the series and the sums
 * @param containerGaps      per container and device: allocated vs used memory
 * @param cardGaps           per card with a driver memory reading: host use vs HAMi-Core's
 *                           accounting vs allocations on this node
 * @param unmanagedMemory    memory on a card held by processes no HAMi-Core accounting covers
 *                           (e.g. {@code CUDA_DISABLE_CONTROL=true}), grouped by container; empty
 *                           when processes could not be attributed
 */
public record UsageView(String node, List<HostCardReading> hostCards, List<ContainerDevice> containers,
                        List<ContainerUsage> unknownContainers, List<ContainerDevice> unmatchedDevices,
                        List<ContainerMemoryGap> containerGaps, List<CardMemoryGap> cardGaps,
                        List<UnmanagedMemory> unmanagedMemory) {

    public UsageView {
        hostCards = List.copyOf(hostCards);
        containers = List.copyOf(containers);
        unknownContainers = List.copyOf(unknownContainers);
        unmatchedDevices = List.copyOf(unmatchedDevices);
        containerGaps = List.copyOf(containerGaps);
        cardGaps = List.copyOf(cardGaps);
        unmanagedMemory = List.copyOf(unmanagedMemory);
    }

    /**
     * A device of a known container.
     *
     * @param lastKernelAgeSeconds seconds since the last kernel (never negative); empty when the
     *                             file does not record it
     */
    public record ContainerDevice(PodRef pod, String container, DeviceUsage usage, OptionalLong lastKernelAgeSeconds) {
    }

    /**
     * Allocated against used memory of one container on one device.
     *
     * @param allocatedBytes the container's share from the scheduler's placement, or HAMi-Core's
     *                       enforced limit when the placement is not known
     * @param usedBytes      HAMi-Core's accounting
     */
    public record ContainerMemoryGap(PodRef pod, String container, int vdeviceIndex, String uuid,
                                     long allocatedBytes, long usedBytes) {
        /** Memory allocated and not used: what the pod could give back. */
        public long idleBytes() {
            return Quantities.excess(allocatedBytes, usedBytes);
        }
    }

    /**
     * The three memory figures of one card.
     *
     * @param hostUsedBytes     what the driver says is used on the whole card
     * @param hamiCoreUsedBytes Σ of HAMi-Core's accounting over the card's known containers
     * @param allocatedBytes    Σ of the effective shares of this node's pods on the card
     */
    public record CardMemoryGap(HostCardReading card, long hostUsedBytes, long hamiCoreUsedBytes,
                                long allocatedBytes) {
        /** Used on the card but in no container's HAMi-Core accounting (driver overhead, unmanaged processes). */
        public long unaccountedBytes() {
            return Quantities.excess(hostUsedBytes, hamiCoreUsedBytes);
        }

        /** Used on the card beyond everything allocated on it: someone is not held to a share. */
        public long beyondAllocationBytes() {
            return Quantities.excess(hostUsedBytes, allocatedBytes);
        }
    }

    /**
     * Memory held on a card by processes outside HAMi-Core's accounting.
     *
     * @param pod       the owning pod, empty for processes of no known pod (host processes, other runtimes)
     * @param container the owning container's name, empty when unknown
     * @param processes number of processes
     */
    public record UnmanagedMemory(String uuid, Optional<PodRef> pod, String container, long usedBytes, int processes) {
    }

    /**
     * Joins the node's readings into the usage view.
     *
     * @param node            this node's name
     * @param hostCards       the driver's readings (any order)
     * @param usages          HAMi-Core accounting per container directory
     * @param pods            the HAMi pods on this node
     * @param processOwners   owners of driver-listed processes by host PID; empty when processes
     *                        cannot be attributed (no host PID namespace)
     * @param nowEpochSeconds the time of the reading, for last-kernel ages
     */
    public static UsageView compute(String node, List<HostCardReading> hostCards, List<ContainerUsage> usages,
                                    List<NodePod> pods, Optional<Map<Long, ProcessOwner>> processOwners,
                                    long nowEpochSeconds) {
        Map<String, NodePod> podsByUid = new HashMap<>();
        for (NodePod pod : pods) {
            podsByUid.put(pod.pod().uid(), pod);
        }

        Set<String> nodeCards = new HashSet<>();
        hostCards.forEach(card -> nodeCards.add(card.uuid()));
        List<ContainerDevice> containers = new ArrayList<>();
        List<ContainerUsage> unknown = new ArrayList<>();
        List<ContainerDevice> unmatched = new ArrayList<>();
        List<ContainerMemoryGap> containerGaps = new ArrayList<>();
        Map<String, Long> hamiCoreUsedByCard = new HashMap<>();
        Set<String> managedContainerCards = new HashSet<>();
        for (ContainerUsage usage : usages) {
            NodePod pod = podsByUid.get(usage.podUid());
            if (pod == null || !pod.containerNames().contains(usage.containerName())) {
                unknown.add(usage);
                continue;
            }
            Set<String> podCards = allocatedCards(pod);
            for (DeviceUsage device : usage.devices()) {
                OptionalLong age = device.lastKernelEpochSeconds() > 0
                        ? OptionalLong.of(Quantities.excess(nowEpochSeconds, device.lastKernelEpochSeconds()))
                        : OptionalLong.empty();
                ContainerDevice known = new ContainerDevice(pod.pod(), usage.containerName(), device, age);
                if (!podCards.contains(device.uuid()) && !nodeCards.contains(device.uuid())) {
                    unmatched.add(known);
                    continue;
                }
                containers.add(known);
                hamiCoreUsedByCard.merge(device.uuid(), device.usedBytes(), Quantities::add);
                managedContainerCards.add(usage.podUid() + "/" + usage.containerName() + "/" + device.uuid());
                long allocated = allocatedTo(pod, usage.containerName(), device.uuid()).orElse(device.limitBytes());
                containerGaps.add(new ContainerMemoryGap(pod.pod(), usage.containerName(), device.vdeviceIndex(),
                        device.uuid(), allocated, device.usedBytes()));
            }
        }
        Comparator<PodRef> byPod = Comparator.comparing(PodRef::namespace).thenComparing(PodRef::name);
        containers.sort(Comparator.comparing(ContainerDevice::pod, byPod).thenComparing(ContainerDevice::container)
                .thenComparingInt(device -> device.usage().vdeviceIndex()));
        containerGaps.sort(Comparator.comparing(ContainerMemoryGap::pod, byPod)
                .thenComparing(ContainerMemoryGap::container).thenComparingInt(ContainerMemoryGap::vdeviceIndex));

        Map<String, Long> allocatedByCard = new HashMap<>();
        for (NodePod pod : pods) {
            pod.placement().filter(PodPlacement::holdsAllocation).ifPresent(placement -> {
                for (CardUse use : CardUse.of(placement)) {
                    allocatedByCard.merge(use.uuid(), Units.mibToBytes(use.memoryMib()), Quantities::add);
                }
            });
        }

        List<HostCardReading> sortedCards = new ArrayList<>(hostCards);
        sortedCards.sort(Comparator.comparingInt(HostCardReading::index));
        List<CardMemoryGap> cardGaps = new ArrayList<>();
        for (HostCardReading card : sortedCards) {
            card.memoryUsedBytes().ifPresent(used -> cardGaps.add(new CardMemoryGap(card, used,
                    hamiCoreUsedByCard.getOrDefault(card.uuid(), 0L), allocatedByCard.getOrDefault(card.uuid(), 0L))));
        }

        List<UnmanagedMemory> unmanaged = processOwners
                .map(owners -> unmanagedMemory(sortedCards, owners, podsByUid, managedContainerCards))
                .orElse(List.of());
        return new UsageView(node, sortedCards, containers, unknown, unmatched, containerGaps, cardGaps, unmanaged);
    }

    /** The card and MIG UUIDs the pod's placement names: what its containers may account on. */
    private static Set<String> allocatedCards(NodePod pod) {
        Set<String> uuids = new HashSet<>();
        pod.placement().ifPresent(placement -> {
            placement.containers().forEach(container -> container.devices().forEach(share -> uuids.add(share.uuid())));
            for (MigInstance instance : placement.migInstances()) {
                uuids.add(instance.gpuUuid());
                if (instance.ready()) {
                    uuids.add(instance.migUuid());
                }
            }
        });
        return uuids;
    }

    private static OptionalLong allocatedTo(NodePod pod, String containerName, String uuid) {
        if (pod.placement().isEmpty()) {
            return OptionalLong.empty();
        }
        int index = pod.containerNames().indexOf(containerName);
        for (ContainerShares container : pod.placement().get().containers()) {
            if (container.index() == index) {
                long mib = container.devices().stream()
                        .filter(share -> share.uuid().equals(uuid))
                        .mapToLong(DeviceShare::memoryMib)
                        .reduce(0, Quantities::add);
                return OptionalLong.of(Units.mibToBytes(mib));
            }
        }
        return OptionalLong.empty();
    }

    private static List<UnmanagedMemory> unmanagedMemory(List<HostCardReading> cards, Map<Long, ProcessOwner> owners,
                                                         Map<String, NodePod> podsByUid, Set<String> managed) {
        record Key(String uuid, String podUid, String container) {
        }
        Map<Key, long[]> grouped = new TreeMap<>(Comparator.comparing(Key::uuid)
                .thenComparing(Key::podUid).thenComparing(Key::container));
        for (HostCardReading card : cards) {
            for (HostCardReading.CardProcess process : card.processes().orElse(List.of())) {
                ProcessOwner owner = owners.get(process.pid());
                NodePod pod = owner == null ? null : podsByUid.get(owner.podUid());
                String container = pod == null ? "" : pod.containerIdToName().getOrDefault(owner.containerId(), "");
                String podUid = pod == null ? "" : pod.pod().uid();
                if (managed.contains(podUid + "/" + container + "/" + card.uuid())) {
                    continue;
                }
                long[] sum = grouped.computeIfAbsent(new Key(card.uuid(), podUid, container), key -> new long[2]);
                sum[0] = Quantities.add(sum[0], Math.max(0, process.usedBytes().orElse(0)));
                sum[1]++;
            }
        }
        List<UnmanagedMemory> result = new ArrayList<>();
        grouped.forEach((key, sum) -> result.add(new UnmanagedMemory(key.uuid(),
                Optional.ofNullable(podsByUid.get(key.podUid())).map(NodePod::pod), key.container(), sum[0],
                (int) sum[1])));
        return result;
    }
}
