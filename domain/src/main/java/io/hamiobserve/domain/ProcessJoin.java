package io.hamiobserve.domain;

import io.hamiobserve.domain.UsageView.ContainerMemoryGap;
import io.hamiobserve.domain.UsageView.ProcessSkip;
import io.hamiobserve.domain.UsageView.ProcessUsage;
import io.hamiobserve.domain.UsageView.UnmanagedMemory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The driver's processes joined to their owners: the memory no HAMi-Core accounting covers, by
 * owning container ({@link UnmanagedMemory}), and, for a container that holds a card in its
 * placement and has no HAMi-Core accounting on it (a whole card without HAMi-Core, or
 * {@code CUDA_DISABLE_CONTROL=true}), its use of that card from the driver's own per-process
 * figures ({@link ProcessUsage}) with its gap. Part of {@link UsageView#compute}.
 *
 * <p>Which containers qualify is decided by what is observed, not by what the pod spec says:
 * a pod's environment can come from a ConfigMap, an image or a wrapper script, while "its
 * placement gives it the card, HAMi-Core accounts nothing for it there, and the driver lists its
 * processes there" is what makes the driver the only source of its use.
 *
 * @param unmanaged memory outside HAMi-Core's accounting, by card, pod and container
 * @param usage     per container and card it holds: its use from the driver's process list
 * @param gaps      allocated vs used for those, in the same order
 * @param skips     processes the driver lists that give no container its use, by card and reason
 */
record ProcessJoin(List<UnmanagedMemory> unmanaged, List<ProcessUsage> usage, List<ContainerMemoryGap> gaps,
                   List<ProcessSkip> skips) {

    static ProcessJoin of(List<HostCardReading> cards, Map<Long, ProcessOwner> owners, Map<String, NodePod> podsByUid,
                          Set<ContainerJoin.ContainerCard> managed) {
        // Grouped by hash, then ordered once: fewer comparisons than a sorted map's at every process.
        Map<Holder, Held> outside = new HashMap<>();
        Map<Holder, Use> attributed = new HashMap<>();
        List<ProcessSkip> skips = new ArrayList<>();
        Map<ProcessSkip.Reason, int[]> cardSkips = new EnumMap<>(ProcessSkip.Reason.class);
        for (HostCardReading card : cards) {
            cardSkips.clear();
            for (HostCardReading.CardProcess process : card.processes().orElse(List.of())) {
                ProcessOwner owner = owners.get(process.pid());
                NodePod pod = owner == null ? null : podsByUid.get(owner.podUid());
                String container = pod == null ? "" : pod.containerIdToName().getOrDefault(owner.containerId(), "");
                String podUid = pod == null ? "" : pod.pod().uid();
                if (managed.contains(new ContainerJoin.ContainerCard(podUid, container, card.uuid()))) {
                    continue;
                }
                Holder holder = new Holder(card.uuid(), podUid, container);
                outside.merge(holder, Held.one(Math.max(0, process.usedBytes().orElse(0))),
                        (held, one) -> held.plus(one.bytes()));
                int vdeviceIndex = container.isEmpty() ? -1 : vdeviceIndex(pod, container, card.uuid());
                ProcessSkip.Reason reason = owner == null ? ProcessSkip.Reason.NO_OWNER
                        : pod == null ? ProcessSkip.Reason.UNKNOWN_POD
                        : container.isEmpty() ? ProcessSkip.Reason.UNKNOWN_CONTAINER
                        : vdeviceIndex < 0 ? ProcessSkip.Reason.CARD_NOT_ALLOCATED
                        : null;
                if (reason != null) {
                    cardSkips.computeIfAbsent(reason, r -> new int[1])[0]++;
                    continue;
                }
                Use use = attributed.get(holder);
                if (use == null) {
                    use = new Use(pod, vdeviceIndex);
                    attributed.put(holder, use);
                }
                use.add(process);
            }
            cardSkips.forEach((reason, count) -> skips.add(new ProcessSkip(card.uuid(), reason, count[0])));
        }
        List<ProcessUsage> usage = usage(attributed);
        return new ProcessJoin(unmanaged(outside, podsByUid), usage, gaps(usage, podsByUid), skips);
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
        /** One process's memory. */
        static Held one(long processBytes) {
            return new Held(processBytes, 1);
        }

        Held plus(long processBytes) {
            return new Held(Quantities.add(bytes, processBytes), processes + 1);
        }
    }

    /** One container's processes on a card it holds: their memory and SM use, each known only while every process's is. */
    private static final class Use {
        private final NodePod pod;
        private final int vdeviceIndex;
        private long bytes;
        private boolean bytesKnown = true;
        private double smUtil;
        private boolean smUtilKnown = true;
        private int processes;

        Use(NodePod pod, int vdeviceIndex) {
            this.pod = pod;
            this.vdeviceIndex = vdeviceIndex;
        }

        void add(HostCardReading.CardProcess process) {
            processes++;
            if (process.usedBytes().isPresent()) {
                bytes = Quantities.add(bytes, Math.max(0, process.usedBytes().getAsLong()));
            } else {
                bytesKnown = false;
            }
            if (process.smUtilPercent().isPresent()) {
                smUtil += process.smUtilPercent().getAsDouble();
            } else {
                smUtilKnown = false;
            }
        }

        ProcessUsage toUsage(Holder holder) {
            return new ProcessUsage(pod.pod(), holder.container(), vdeviceIndex, holder.uuid(),
                    bytesKnown ? OptionalLong.of(bytes) : OptionalLong.empty(),
                    smUtilKnown ? OptionalDouble.of(smUtil) : OptionalDouble.empty(), processes);
        }
    }

    private static List<UnmanagedMemory> unmanaged(Map<Holder, Held> grouped, Map<String, NodePod> podsByUid) {
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

    /** In the container view's order: namespace, pod name, container, pod UID, then device index. */
    private static final Comparator<ProcessUsage> VIEW_ORDER = (left, right) -> {
        int order = left.pod().namespace().compareTo(right.pod().namespace());
        if (order == 0) {
            order = left.pod().name().compareTo(right.pod().name());
        }
        if (order == 0) {
            order = left.container().compareTo(right.container());
        }
        if (order == 0) {
            order = left.pod().uid().compareTo(right.pod().uid());
        }
        return order != 0 ? order : Integer.compare(left.vdeviceIndex(), right.vdeviceIndex());
    };

    private static List<ProcessUsage> usage(Map<Holder, Use> attributed) {
        List<ProcessUsage> usage = new ArrayList<>(attributed.size());
        attributed.forEach((holder, use) -> usage.add(use.toUsage(holder)));
        usage.sort(VIEW_ORDER);
        return usage;
    }

    /** Allocated vs used for each container whose memory the driver fully reports. */
    private static List<ContainerMemoryGap> gaps(List<ProcessUsage> usage, Map<String, NodePod> pods) {
        List<ContainerMemoryGap> gaps = new ArrayList<>(usage.size());
        for (ProcessUsage use : usage) {
            if (use.usedBytes().isEmpty()) {
                continue;
            }
            NodePod pod = pods.get(use.pod().uid());
            long allocated = ContainerJoin.allocatedTo(pod, use.container(), use.uuid()).orElse(0L);
            gaps.add(new ContainerMemoryGap(use.pod(), use.container(), use.vdeviceIndex(), use.uuid(), allocated,
                    use.usedBytes().getAsLong()));
        }
        return gaps;
    }

    /**
     * The card's position among the cards the container's share lists (HAMi's {@code vdevice_index}:
     * the order HAMi hands the container its devices), or -1 when the container holds no share of
     * it. A scan: a container lists a few cards.
     */
    private static int vdeviceIndex(NodePod pod, String container, String uuid) {
        if (pod.placement().isEmpty()) {
            return -1;
        }
        int index = pod.containerNames().indexOf(container);
        for (ContainerShares shares : pod.placement().get().containers()) {
            if (shares.index() != index) {
                continue;
            }
            List<DeviceShare> devices = shares.devices();
            int position = 0;
            for (int i = 0; i < devices.size(); i++) {
                String card = devices.get(i).uuid();
                if (card.equals(uuid)) {
                    return position;
                }
                if (!listedBefore(devices, i)) {
                    position++;
                }
            }
        }
        return -1;
    }

    private static boolean listedBefore(List<DeviceShare> devices, int i) {
        for (int j = 0; j < i; j++) {
            if (devices.get(j).uuid().equals(devices.get(i).uuid())) {
                return true;
            }
        }
        return false;
    }
}
