package io.hamiobserve.domain;

import io.hamiobserve.domain.UsageView.ContainerDevice;
import io.hamiobserve.domain.UsageView.ContainerMemoryGap;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * HAMi-Core's accounting joined to the node's pods: which records belong to a known container on a
 * card it may use, and what follows from those (the per-container gaps, HAMi-Core's use per card,
 * which containers account for which cards). Part of {@link UsageView#compute}.
 *
 * @param containers         devices of known containers, by namespace, pod name, container, pod UID
 *                           and device index
 * @param unknown            records of pods or containers the pod directory does not know
 * @param unmatched          devices of known containers on a card neither allocated to the pod nor
 *                           of this node, in the same order
 * @param gaps               per container and device: allocated vs used memory, in the same order
 * @param hamiCoreUsedByCard Σ of HAMi-Core's accounting per card UUID, bytes
 * @param managed            the cards each known container accounts for
 */
record ContainerJoin(List<ContainerDevice> containers, List<ContainerUsage> unknown, List<ContainerDevice> unmatched,
                     List<ContainerMemoryGap> gaps, Map<String, Long> hamiCoreUsedByCard, Set<ContainerCard> managed) {

    /** A container's use of one card, as HAMi-Core accounts it. */
    record ContainerCard(String podUid, String container, String uuid) {
    }

    static ContainerJoin of(List<ContainerUsage> usages, Map<String, NodePod> podsByUid, List<HostCardReading> cards,
                            long nowEpochSeconds) {
        Set<String> nodeCards = new HashSet<>();
        cards.forEach(card -> nodeCards.add(card.uuid()));
        List<ContainerDevice> containers = new ArrayList<>();
        List<ContainerUsage> unknown = new ArrayList<>();
        List<ContainerDevice> unmatched = new ArrayList<>();
        List<ContainerMemoryGap> gaps = new ArrayList<>();
        Map<String, Long> hamiCoreUsedByCard = new HashMap<>();
        // The view's order, by namespace, pod name, container, pod UID (a pod recreated under the same
        // name has a directory of its own until it is cleaned up), then device index: the containers
        // are sorted, not their devices (fewer, and a container's devices are in index order already).
        List<KnownContainer> known = new ArrayList<>(usages.size());
        int devices = 0;
        for (ContainerUsage usage : usages) {
            NodePod pod = podsByUid.get(usage.podUid());
            if (pod == null || !pod.containerNames().contains(usage.containerName())) {
                unknown.add(usage);
            } else {
                known.add(new KnownContainer(pod, usage));
                devices += usage.devices().size();
            }
        }
        Set<ContainerCard> managed = HashSet.newHashSet(devices);
        known.sort(KnownContainer.ORDER);
        for (KnownContainer container : known) {
            NodePod pod = container.pod();
            ContainerUsage usage = container.usage();
            for (DeviceUsage device : inIndexOrder(usage.devices())) {
                OptionalLong age = device.lastKernelEpochSeconds() > 0
                        ? OptionalLong.of(Quantities.excess(nowEpochSeconds, device.lastKernelEpochSeconds()))
                        : OptionalLong.empty();
                ContainerDevice joined = new ContainerDevice(pod.pod(), usage.containerName(), device, age);
                if (!allocates(pod, device.uuid()) && !nodeCards.contains(device.uuid())) {
                    unmatched.add(joined);
                    continue;
                }
                containers.add(joined);
                hamiCoreUsedByCard.merge(device.uuid(), device.usedBytes(), Quantities::add);
                // The pod's own UID, equal to the record's: the unmanaged memory's look-ups then match by identity.
                managed.add(new ContainerCard(pod.pod().uid(), usage.containerName(), device.uuid()));
                long allocated = allocatedTo(pod, usage.containerName(), device.uuid()).orElse(device.limitBytes());
                gaps.add(new ContainerMemoryGap(pod.pod(), usage.containerName(), device.vdeviceIndex(),
                        device.uuid(), allocated, device.usedBytes()));
            }
        }
        return new ContainerJoin(containers, unknown, unmatched, gaps, hamiCoreUsedByCard, managed);
    }

    /** A container HAMi-Core accounts for, of a pod the node knows. */
    private record KnownContainer(NodePod pod, ContainerUsage usage) {
        /**
         * By namespace, pod name, container and pod UID: written out rather than chained from key
         * extractors because a node sorts its containers at every scrape.
         */
        static final Comparator<KnownContainer> ORDER = (left, right) -> {
            PodRef leftPod = left.pod.pod();
            PodRef rightPod = right.pod.pod();
            int order = leftPod.namespace().compareTo(rightPod.namespace());
            if (order == 0) {
                order = leftPod.name().compareTo(rightPod.name());
            }
            if (order == 0) {
                order = left.usage.containerName().compareTo(right.usage.containerName());
            }
            return order != 0 ? order : leftPod.uid().compareTo(rightPod.uid());
        };
    }

    /** {@code devices} by device index, equal indexes in their order; the list itself when so already. */
    private static List<DeviceUsage> inIndexOrder(List<DeviceUsage> devices) {
        for (int i = 1; i < devices.size(); i++) {
            if (devices.get(i - 1).vdeviceIndex() > devices.get(i).vdeviceIndex()) {
                List<DeviceUsage> sorted = new ArrayList<>(devices);
                sorted.sort(Comparator.comparingInt(DeviceUsage::vdeviceIndex));
                return sorted;
            }
        }
        return devices;
    }

    /**
     * Whether the pod's placement names {@code uuid}, a card or a MIG instance: what its containers
     * may account on. A scan, not a set: a placement names a few cards, and a node asks this for
     * every container's every device at every scrape.
     */
    private static boolean allocates(NodePod pod, String uuid) {
        if (pod.placement().isEmpty()) {
            return false;
        }
        PodPlacement placement = pod.placement().get();
        for (ContainerShares container : placement.containers()) {
            for (DeviceShare share : container.devices()) {
                if (share.uuid().equals(uuid)) {
                    return true;
                }
            }
        }
        for (MigInstance instance : placement.migInstances()) {
            if (instance.gpuUuid().equals(uuid) || instance.ready() && instance.migUuid().equals(uuid)) {
                return true;
            }
        }
        return false;
    }

    static OptionalLong allocatedTo(NodePod pod, String containerName, String uuid) {
        if (pod.placement().isEmpty()) {
            return OptionalLong.empty();
        }
        int index = pod.containerNames().indexOf(containerName);
        for (ContainerShares container : pod.placement().get().containers()) {
            if (container.index() == index) {
                // A loop, not a stream: a node asks this for every container's every device at every scrape.
                long mib = 0;
                for (DeviceShare share : container.devices()) {
                    if (share.uuid().equals(uuid)) {
                        mib = Quantities.add(mib, share.memoryMib());
                    }
                }
                return OptionalLong.of(Units.mibToBytes(mib));
            }
        }
        return OptionalLong.empty();
    }
}
