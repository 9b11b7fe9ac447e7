package io.hamiobserve.domain;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What one pod effectively takes from one card (HAMi §2.1).
 *
 * <p>Init containers run one after another and app containers side by side, so a pod's use of a
 * card is the larger of the init containers' peak and the app containers' sum; once the init
 * containers have finished only the app containers count. A pod occupies one slot per app
 * container on the card, and at least one slot if only init containers use it. Sums saturate
 * ({@link Quantities}): a pod listing one card many times cannot wrap its figure.
 *
 * @param uuid      the card
 * @param memoryMib effective memory, MiB
 * @param cores     effective compute, percent of a card
 * @param slots     containers sharing the card on behalf of this pod
 */
public record CardUse(String uuid, long memoryMib, long cores, int slots) {

    /** The pod's effective use per card, in the order the cards first appear in the pod. */
    public static List<CardUse> of(PodPlacement placement) {
        return of(placement, share -> true);
    }

    /** The same, counting only the shares {@code which} accepts. */
    public static List<CardUse> of(PodPlacement placement, Predicate<DeviceShare> which) {
        Map<String, Accumulator> byCard = new LinkedHashMap<>();
        for (ContainerShares container : placement.containers()) {
            boolean counts = !container.init() || !placement.initContainersFinished();
            if (!counts) {
                continue;
            }
            ContainerShares counted = container;
            if (!container.devices().stream().allMatch(which)) {
                counted = new ContainerShares(container.index(), container.name(), container.init(),
                        container.devices().stream().filter(which).toList());
            }
            counted.byCard().forEach((uuid, grant) -> byCard.computeIfAbsent(uuid, u -> new Accumulator())
                    .add(container.init(), grant.memoryMib(), grant.cores()));
        }
        return byCard.entrySet().stream()
                .map(entry -> entry.getValue().toUse(entry.getKey()))
                .toList();
    }

    private static final class Accumulator {
        private long initPeakMemory;
        private long initPeakCores;
        private long appMemory;
        private long appCores;
        private int appContainers;

        void add(boolean init, long memoryMib, long cores) {
            if (init) {
                initPeakMemory = Math.max(initPeakMemory, memoryMib);
                initPeakCores = Math.max(initPeakCores, cores);
            } else {
                appMemory = Quantities.add(appMemory, memoryMib);
                appCores = Quantities.add(appCores, cores);
                appContainers = appContainers == Integer.MAX_VALUE ? appContainers : appContainers + 1;
            }
        }

        CardUse toUse(String uuid) {
            return new CardUse(uuid, Math.max(initPeakMemory, appMemory), Math.max(initPeakCores, appCores),
                    Math.max(1, appContainers));
        }
    }
}
