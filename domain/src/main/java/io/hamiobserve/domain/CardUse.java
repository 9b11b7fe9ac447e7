package io.hamiobserve.domain;

import java.util.ArrayList;
import java.util.Collections;
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
        // Loops over the shares rather than maps per container: a node computes this for every pod at every scrape.
        Map<String, Accumulator> byCard = new LinkedHashMap<>();
        for (ContainerShares container : placement.containers()) {
            if (container.init() && placement.initContainersFinished()) {
                continue;
            }
            List<DeviceShare> shares = container.devices();
            for (int i = 0; i < shares.size(); i++) {
                DeviceShare share = shares.get(i);
                if (!which.test(share) || countedBefore(shares, i, which)) {
                    continue;
                }
                // A container listing one card several times holds every slice, as one container (ContainerShares.byCard).
                long memoryMib = share.memoryMib();
                long cores = share.cores();
                for (int j = i + 1; j < shares.size(); j++) {
                    DeviceShare again = shares.get(j);
                    if (again.uuid().equals(share.uuid()) && which.test(again)) {
                        memoryMib = Quantities.add(memoryMib, again.memoryMib());
                        cores = Quantities.add(cores, again.cores());
                    }
                }
                byCard.computeIfAbsent(share.uuid(), uuid -> new Accumulator()).add(container.init(), memoryMib, cores);
            }
        }
        List<CardUse> uses = new ArrayList<>(byCard.size());
        byCard.forEach((uuid, accumulator) -> uses.add(accumulator.toUse(uuid)));
        return Collections.unmodifiableList(uses);
    }

    /** Whether a share counted before position {@code i} names the same card (its slices were summed then). */
    private static boolean countedBefore(List<DeviceShare> shares, int i, Predicate<DeviceShare> which) {
        String uuid = shares.get(i).uuid();
        for (int j = 0; j < i; j++) {
            if (shares.get(j).uuid().equals(uuid) && which.test(shares.get(j))) {
                return true;
            }
        }
        return false;
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
