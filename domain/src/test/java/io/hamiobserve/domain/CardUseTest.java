package io.hamiobserve.domain;

import static io.hamiobserve.domain.Fixtures.app;
import static io.hamiobserve.domain.Fixtures.init;
import static io.hamiobserve.domain.Fixtures.placement;
import static io.hamiobserve.domain.Fixtures.pod;
import static io.hamiobserve.domain.Fixtures.running;
import static io.hamiobserve.domain.Fixtures.share;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class CardUseTest {
    private static final PodRef POD = pod("team-a", "trainer");

    @Test
    void appContainersOnOneCardAddUpAndTakeOneSlotEach() {
        PodPlacement placement = running(POD, "node-1",
                app(0, "a", share("GPU-1", 1000, 10)),
                app(1, "b", share("GPU-1", 3000, 30)),
                app(2, "c", share("GPU-1", 500, 5)));

        assertEquals(List.of(new CardUse("GPU-1", 4500, 45, 3)), CardUse.of(placement));
    }

    @Test
    void initContainersCountByTheirPeakWhenItExceedsTheAppSum() {
        PodPlacement placement = running(POD, "node-1",
                init(0, "fetch", share("GPU-1", 6000, 20)),
                init(1, "warm", share("GPU-1", 2000, 70)),
                app(2, "a", share("GPU-1", 1000, 10)),
                app(3, "b", share("GPU-1", 1000, 10)));

        // Memory: init peak 6000 > app sum 2000; cores: init peak 70 > app sum 20; slots: app containers only.
        assertEquals(List.of(new CardUse("GPU-1", 6000, 70, 2)), CardUse.of(placement));
    }

    @Test
    void appSumWinsOverASmallerInitPeakForMemoryAndCoresIndependently() {
        PodPlacement placement = running(POD, "node-1",
                init(0, "fetch", share("GPU-1", 1500, 90)),
                app(1, "a", share("GPU-1", 1000, 10)),
                app(2, "b", share("GPU-1", 1000, 10)));

        assertEquals(List.of(new CardUse("GPU-1", 2000, 90, 2)), CardUse.of(placement));
    }

    @Test
    void aCardUsedOnlyByInitContainersTakesOneSlot() {
        PodPlacement placement = running(POD, "node-1",
                init(0, "i1", share("GPU-1", 100, 1)),
                init(1, "i2", share("GPU-1", 300, 3)),
                app(2, "a", share("GPU-2", 50, 5)));

        assertEquals(List.of(new CardUse("GPU-1", 300, 3, 1), new CardUse("GPU-2", 50, 5, 1)), CardUse.of(placement));
    }

    @Test
    void onceInitContainersFinishedOnlyAppContainersCount() {
        PodPlacement placement = placement(POD, "node-1", PodPhase.RUNNING, true,
                init(0, "fetch", share("GPU-1", 6000, 80)),
                init(1, "only-init-card", share("GPU-9", 4000, 40)),
                app(2, "a", share("GPU-1", 1000, 10)));

        // GPU-9 was used only by finished init containers: it disappears from the pod's use.
        assertEquals(List.of(new CardUse("GPU-1", 1000, 10, 1)), CardUse.of(placement));
    }

    @Test
    void podWithOnlyFinishedInitContainersUsesNoCard() {
        PodPlacement placement = placement(POD, "node-1", PodPhase.RUNNING, true,
                init(0, "fetch", share("GPU-1", 6000, 80)),
                app(1, "cpu-only"));

        assertEquals(List.of(), CardUse.of(placement));
    }

    @Test
    void oneContainerListingTheSameCardTwiceHoldsBothSlicesInOneSlot() {
        PodPlacement placement = running(POD, "node-1",
                app(0, "a", share("GPU-1", 1000, 10), share("GPU-1", 2000, 20)),
                app(1, "b", share("GPU-1", 500, 5)));

        assertEquals(List.of(new CardUse("GPU-1", 3500, 35, 2)), CardUse.of(placement));
    }

    @Test
    void initContainerListingTheSameCardTwiceHasItsOwnSumAsPeak() {
        PodPlacement placement = running(POD, "node-1",
                init(0, "i", share("GPU-1", 1000, 10), share("GPU-1", 2000, 20)),
                app(1, "a", share("GPU-1", 2500, 25)));

        // The init container holds 3000 at once, more than the app sum of 2500.
        assertEquals(List.of(new CardUse("GPU-1", 3000, 30, 1)), CardUse.of(placement));
    }

    @Test
    void severalCardsPerContainerAreReportedInOrderOfFirstAppearance() {
        PodPlacement placement = running(POD, "node-1",
                app(0, "a", share("GPU-2", 100, 10), share("GPU-1", 200, 20)),
                app(1, "b", share("GPU-1", 300, 30), share("GPU-3", 400, 40)));

        assertEquals(List.of(
                new CardUse("GPU-2", 100, 10, 1),
                new CardUse("GPU-1", 500, 50, 2),
                new CardUse("GPU-3", 400, 40, 1)), CardUse.of(placement));
    }

    @Test
    void containersWithoutDevicesNeitherAddCardsNorSlots() {
        PodPlacement placement = running(POD, "node-1",
                init(0, "setup"),
                app(1, "sidecar"),
                app(2, "a", share("GPU-1", 100, 10)),
                app(3, "logger"));

        assertEquals(List.of(new CardUse("GPU-1", 100, 10, 1)), CardUse.of(placement));
    }

    @Test
    void podWithoutContainersUsesNothing() {
        assertEquals(List.of(), CardUse.of(running(POD, "node-1")));
    }

    @Test
    void sumsOfBoundedSharesStayExactAndConvertToBytesSaturated() {
        // The worst a pod can state: every container lists the card many times at the largest share.
        DeviceShare largest = share("GPU-1", Quantities.MAX_MEMORY_MIB, Quantities.MAX_PERCENT);
        ContainerShares[] containers = new ContainerShares[64];
        for (int i = 0; i < containers.length; i++) {
            containers[i] = app(i, "c" + i, java.util.Collections.nCopies(1024, largest).toArray(DeviceShare[]::new));
        }
        CardUse use = CardUse.of(running(POD, "node-1", containers)).getFirst();

        // 2^16 shares of 2^30 MiB: exact in MiB (2^46), beyond a long in bytes, so the bytes saturate.
        assertEquals(1L << 46, use.memoryMib());
        assertEquals(1L << 46, use.cores());
        assertEquals(64, use.slots());
        assertEquals(Long.MAX_VALUE, Units.mibToBytes(use.memoryMib()));
    }

    /**
     * Random pods (init and app containers, cards listed several times, some shares not counted,
     * init containers finished or not) give what the per-container merge of the shares gives:
     * {@link ContainerShares#byCard()} of the counted shares, folded per card.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void equalsTheMergeOfEachContainersSharesByCard(long seed) {
        java.util.Random random = new java.util.Random(seed);
        for (int round = 0; round < 500; round++) {
            List<ContainerShares> containers = new java.util.ArrayList<>();
            int count = random.nextInt(5);
            for (int c = 0; c < count; c++) {
                DeviceShare[] shares = new DeviceShare[random.nextInt(5)];
                for (int s = 0; s < shares.length; s++) {
                    shares[s] = share("GPU-" + random.nextInt(3), random.nextInt(3) == 0 ? Quantities.MAX_MEMORY_MIB
                            : random.nextInt(5000), random.nextInt(101));
                }
                containers.add(random.nextBoolean() ? init(c, "i" + c, shares) : app(c, "a" + c, shares));
            }
            PodPlacement placement = placement(POD, "node-1", PodPhase.RUNNING, random.nextBoolean(),
                    containers.toArray(ContainerShares[]::new));
            long small = random.nextInt(5000);
            java.util.function.Predicate<DeviceShare> which = random.nextBoolean() ? share -> true
                    : share -> share.memoryMib() < small;
            assertEquals(reference(placement, which), CardUse.of(placement, which), placement.toString());
        }
    }

    /** The per-container merge, written as plainly as possible. */
    private static List<CardUse> reference(PodPlacement placement, java.util.function.Predicate<DeviceShare> which) {
        java.util.Map<String, long[]> byCard = new java.util.LinkedHashMap<>();
        for (ContainerShares container : placement.containers()) {
            if (container.init() && placement.initContainersFinished()) {
                continue;
            }
            ContainerShares counted = new ContainerShares(container.index(), container.name(), container.init(),
                    container.devices().stream().filter(which).toList());
            counted.byCard().forEach((uuid, grant) -> {
                long[] use = byCard.computeIfAbsent(uuid, u -> new long[5]);
                if (container.init()) {
                    use[0] = Math.max(use[0], grant.memoryMib());
                    use[1] = Math.max(use[1], grant.cores());
                } else {
                    use[2] = Quantities.add(use[2], grant.memoryMib());
                    use[3] = Quantities.add(use[3], grant.cores());
                    use[4]++;
                }
            });
        }
        List<CardUse> uses = new java.util.ArrayList<>();
        byCard.forEach((uuid, use) -> uses.add(new CardUse(uuid, Math.max(use[0], use[2]), Math.max(use[1], use[3]),
                (int) Math.max(1, use[4]))));
        return uses;
    }
}
