package io.hamiobserve.domain;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

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
        List<HostCardReading> cards = new ArrayList<>(hostCards);
        cards.sort(Comparator.comparingInt(HostCardReading::index));
        ContainerJoin join = ContainerJoin.of(usages, podsByUid, cards, nowEpochSeconds);
        List<CardMemoryGap> cardGaps = cardGaps(cards, join.hamiCoreUsedByCard(), allocatedByCard(pods));
        List<UnmanagedMemory> unmanaged = processOwners
                .map(owners -> unmanagedMemory(cards, owners, podsByUid, join.managed()))
                .orElse(List.of());
        return new UsageView(node, cards, join.containers(), join.unknown(), join.unmatched(), join.gaps(), cardGaps,
                unmanaged);
    }

    /** Per card, Σ of the effective shares of this node's pods that hold an allocation, in bytes. */
    private static Map<String, Long> allocatedByCard(List<NodePod> pods) {
        Map<String, Long> allocated = new HashMap<>();
        for (NodePod pod : pods) {
            pod.placement().filter(PodPlacement::holdsAllocation).ifPresent(placement -> {
                for (CardUse use : CardUse.of(placement)) {
                    allocated.merge(use.uuid(), Units.mibToBytes(use.memoryMib()), Quantities::add);
                }
            });
        }
        return allocated;
    }

    /** The three memory figures of each card the driver reports memory for, by index. */
    private static List<CardMemoryGap> cardGaps(List<HostCardReading> cards, Map<String, Long> hamiCoreUsedByCard,
                                                Map<String, Long> allocatedByCard) {
        List<CardMemoryGap> gaps = new ArrayList<>();
        for (HostCardReading card : cards) {
            card.memoryUsedBytes().ifPresent(used -> gaps.add(new CardMemoryGap(card, used,
                    hamiCoreUsedByCard.getOrDefault(card.uuid(), 0L), allocatedByCard.getOrDefault(card.uuid(), 0L))));
        }
        return gaps;
    }

    /** Where a process's memory goes: a container's use of a card, or no known container's. */
    private record Holder(String uuid, String podUid, String container) {
        /** By card, pod, container; written out rather than chained: a node orders them at every scrape. */
        static final Comparator<Holder> ORDER = (left, right) -> {
            int order = left.uuid.compareTo(right.uuid);
            if (order == 0) {
                order = left.podUid.compareTo(right.podUid);
            }
            return order != 0 ? order : left.container.compareTo(right.container);
        };
    }

    /** Memory held and processes holding it. */
    private record Held(long bytes, int processes) {
        Held plus(long processBytes) {
            return new Held(Quantities.add(bytes, processBytes), processes + 1);
        }
    }

    private static List<UnmanagedMemory> unmanagedMemory(List<HostCardReading> cards, Map<Long, ProcessOwner> owners,
                                                         Map<String, NodePod> podsByUid,
                                                         Set<ContainerJoin.ContainerCard> managed) {
        // Grouped by hash, then ordered once: fewer comparisons than a sorted map's at every process.
        Map<Holder, Held> grouped = new HashMap<>();
        for (HostCardReading card : cards) {
            for (HostCardReading.CardProcess process : card.processes().orElse(List.of())) {
                ProcessOwner owner = owners.get(process.pid());
                NodePod pod = owner == null ? null : podsByUid.get(owner.podUid());
                String container = pod == null ? "" : pod.containerIdToName().getOrDefault(owner.containerId(), "");
                String podUid = pod == null ? "" : pod.pod().uid();
                if (managed.contains(new ContainerJoin.ContainerCard(podUid, container, card.uuid()))) {
                    continue;
                }
                grouped.merge(new Holder(card.uuid(), podUid, container),
                        new Held(0, 0).plus(Math.max(0, process.usedBytes().orElse(0))),
                        (held, one) -> held.plus(one.bytes()));
            }
        }
        List<Map.Entry<Holder, Held>> ordered = new ArrayList<>(grouped.entrySet());
        ordered.sort(Map.Entry.comparingByKey(Holder.ORDER));
        List<UnmanagedMemory> result = new ArrayList<>(ordered.size());
        for (Map.Entry<Holder, Held> group : ordered) {
            Holder holder = group.getKey();
            Held held = group.getValue();
            result.add(new UnmanagedMemory(holder.uuid(), Optional.ofNullable(podsByUid.get(holder.podUid()))
                    .map(NodePod::pod), holder.container(), held.bytes(), held.processes()));
        }
        return result;
    }
}
