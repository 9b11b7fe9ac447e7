package io.hamiobserve.domain;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

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
 * @param processUsage       per container and card it holds without HAMi-Core's accounting there
 *                           (a whole card without HAMi-Core, {@code CUDA_DISABLE_CONTROL=true}):
 *                           its use from the driver's process list, in the order of
 *                           {@code containers}; their gaps are in {@code containerGaps} after
 *                           HAMi-Core's; empty when processes could not be attributed
 * @param processSkips       driver-listed processes outside HAMi-Core that give no container its
 *                           use, by card and reason
 */
public record UsageView(String node, List<HostCardReading> hostCards, List<ContainerDevice> containers,
                        List<ContainerUsage> unknownContainers, List<ContainerDevice> unmatchedDevices,
                        List<ContainerMemoryGap> containerGaps, List<CardMemoryGap> cardGaps,
                        List<UnmanagedMemory> unmanagedMemory, List<ProcessUsage> processUsage,
                        List<ProcessSkip> processSkips) {

    public UsageView {
        hostCards = List.copyOf(hostCards);
        containers = List.copyOf(containers);
        unknownContainers = List.copyOf(unknownContainers);
        unmatchedDevices = List.copyOf(unmatchedDevices);
        containerGaps = List.copyOf(containerGaps);
        cardGaps = List.copyOf(cardGaps);
        unmanagedMemory = List.copyOf(unmanagedMemory);
        processUsage = List.copyOf(processUsage);
        processSkips = List.copyOf(processSkips);
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
        /** Who holds the memory, whatever its amount: what an age is kept for ({@link FirstSeen}). */
        public Holder holder() {
            return new Holder(uuid, pod, container);
        }

        /** The card and the owning container of unmanaged memory. */
        public record Holder(String uuid, Optional<PodRef> pod, String container) {
        }
    }

    /**
     * A container's use of a card it holds, from the driver's per-process figures, where no
     * HAMi-Core accounting covers it: the same quantities HAMi-Core accounts (memory of its
     * processes, the sum of their SM utilisation), from the other side.
     *
     * @param vdeviceIndex   the card's position among the cards of the container's share
     * @param usedBytes      Σ of the driver's used memory of its processes on the card; empty when
     *                       the driver withholds any process's figure
     * @param smUtilPercent  Σ of its processes' SM utilisation since the previous reading (may pass
     *                       100, as HAMi-Core's sum does); empty when the driver cannot say for any
     * @param processes      number of its processes on the card
     */
    public record ProcessUsage(PodRef pod, String container, int vdeviceIndex, String uuid, OptionalLong usedBytes,
                               OptionalDouble smUtilPercent, int processes) {
    }

    /**
     * Processes outside HAMi-Core on one card that give no container its use.
     *
     * @param processes how many of the card's processes, for this reason
     */
    public record ProcessSkip(String uuid, Reason reason, int processes) {
        /** Why a process gives no container its use. */
        public enum Reason {
            /** No pod owns it: a host process, another runtime's, or a process that exited before its cgroup was read. */
            NO_OWNER,
            /** Its cgroup names a pod this node's pod directory does not know (not a HAMi pod, or not yet). */
            UNKNOWN_POD,
            /** Its pod is known, its container ID is not (restarted, and the directory has not caught up). */
            UNKNOWN_CONTAINER,
            /** Its container's placement holds no share of this card. */
            CARD_NOT_ALLOCATED;

            /** The reason's stable label, its name in lower case. */
            public String label() {
                return name().toLowerCase(java.util.Locale.ROOT);
            }
        }
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
        ProcessJoin processes = processOwners
                .map(owners -> ProcessJoin.of(cards, owners, podsByUid, join.managed()))
                .orElse(new ProcessJoin(List.of(), List.of(), List.of(), List.of()));
        List<ContainerMemoryGap> gaps = join.gaps();
        if (!processes.gaps().isEmpty()) {
            gaps = new ArrayList<>(gaps);
            gaps.addAll(processes.gaps());
        }
        return new UsageView(node, cards, join.containers(), join.unknown(), join.unmatched(), gaps, cardGaps,
                processes.unmanaged(), processes.usage(), processes.skips());
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
}
