package io.hamiobserve.domain;

import io.hamiobserve.domain.UsageView.ContainerDevice;
import io.hamiobserve.domain.UsageView.ContainerMemoryGap;

import java.util.ArrayList;
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
 * @param containers         devices of known containers, by pod, container and device index
 * @param unknown            records of pods or containers the pod directory does not know
 * @param unmatched          devices of known containers on a card neither allocated to the pod nor
 *                           of this node
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
        Set<ContainerCard> managed = new HashSet<>();
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
                managed.add(new ContainerCard(usage.podUid(), usage.containerName(), device.uuid()));
                long allocated = allocatedTo(pod, usage.containerName(), device.uuid()).orElse(device.limitBytes());
                gaps.add(new ContainerMemoryGap(pod.pod(), usage.containerName(), device.vdeviceIndex(),
                        device.uuid(), allocated, device.usedBytes()));
            }
        }
        containers.sort((left, right) -> order(left.pod(), left.container(), left.usage().vdeviceIndex(),
                right.pod(), right.container(), right.usage().vdeviceIndex()));
        gaps.sort((left, right) -> order(left.pod(), left.container(), left.vdeviceIndex(),
                right.pod(), right.container(), right.vdeviceIndex()));
        return new ContainerJoin(containers, unknown, unmatched, gaps, hamiCoreUsedByCard, managed);
    }

    /**
     * By namespace, pod, container, then device index: the order of the view's containers, written
     * out rather than chained from key extractors because a node sorts it at every scrape.
     */
    private static int order(PodRef leftPod, String leftContainer, int leftIndex,
                             PodRef rightPod, String rightContainer, int rightIndex) {
        int order = leftPod.namespace().compareTo(rightPod.namespace());
        if (order == 0) {
            order = leftPod.name().compareTo(rightPod.name());
        }
        if (order == 0) {
            order = leftContainer.compareTo(rightContainer);
        }
        return order != 0 ? order : Integer.compare(leftIndex, rightIndex);
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
