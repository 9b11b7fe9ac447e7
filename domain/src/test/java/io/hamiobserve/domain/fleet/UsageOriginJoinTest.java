package io.hamiobserve.domain.fleet;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Use that comes from a vendor's exporter joined to the shares: a figure naming no card joins the
 * container's only card and no other; a figure of another meaning carries it and makes no gap, no
 * peak and no compute; recommendations are written in the card's vendor's resource names.
 */
class UsageOriginJoinTest {
    private static final double MIB = Readings.MIB;
    private static final double GIB = Readings.GIB;
    private static final UsageOrigin WHOLE_CARD = new UsageOrigin("npu-exporter", "the whole card's", "the whole card's");
    private static final UsageOrigin VHCU = new UsageOrigin("hcu-exporter", "", "percent of the vHCU");
    private static final CardResources DCU = new CardResources("hygon.com/dcunum", "hygon.com/dcumem", 1,
            "hygon.com/dcucores");
    private static final CardResources SMLU = new CardResources("cambricon.com/vmlu",
            "cambricon.com/mlu.smlu.vmemory", 256, "cambricon.com/mlu.smlu.vcore");

    private static FleetReadings readings(List<FleetReadings.Use> extraUses, List<FleetReadings.Origin> origins) {
        Readings r = new Readings()
                .card("dcu-a", "DCU-1", 0, "DCU-Z100", "", 64, 16, 50, 1, 4)
                .card("dcu-a", "DCU-2", 1, "DCU-Z100", "", 64, 32, 50, 2, 4)
                .card("npu-a", "NPU-1", 0, "Ascend910B3", "", 64, 16, 10, 1, 4)
                .share("hy", "one", 0, "c", "dcu-a", "DCU-1", 16 * 1024, 50)
                .share("hy", "two", 0, "c", "dcu-a", "DCU-2", 16 * 1024, 50)
                .share("hy", "two", 0, "c", "dcu-a", "DCU-1", 16 * 1024, 50)
                .share("ai", "train", 0, "c", "npu-a", "NPU-1", 16 * 1024, 50);
        r.uses.addAll(extraUses);
        FleetReadings built = r.build();
        return new FleetReadings(built.at(), built.registered(), built.hosts(), built.allocations(), built.names(),
                built.uses(), built.unmanaged(), built.quotas(), built.sources(), built.ledgerAges(), built.skips(),
                built.targetsDown(), built.containersByNode(), built.provenance(), List.of(), origins,
                Map.of("DCU-Z100", DCU));
    }

    private static FleetReadings.Use use(String namespace, String pod, String uuid, double bytes, double percent) {
        return new FleetReadings.Use(namespace, pod, "c", "", uuid, Figure.of(bytes), Figure.of(percent),
                Figure.missing(Absence.NOT_SUPPORTED));
    }

    private static WorkloadShare share(FleetState state, String pod, String uuid) {
        return state.workloads().stream().flatMap(workload -> workload.shares().stream())
                .filter(share -> share.workload().pod().equals(pod) && share.uuid().equals(uuid)).findFirst()
                .orElseThrow();
    }

    @Test
    void aFigureNamingNoCardJoinsTheContainersOnlyCardAndIsLeftOutOfAContainerWithSeveral() {
        FleetState state = FleetState.of(readings(List.of(use("hy", "one", "", 4 * GIB, 80),
                use("hy", "two", "", 6 * GIB, 90)), List.of(new FleetReadings.Origin("", "hy", "one", "c", VHCU),
                new FleetReadings.Origin("", "hy", "two", "c", VHCU))));
        WorkloadShare one = share(state, "one", "DCU-1");
        assertEquals(4 * GIB, one.memoryUsed().orElseThrow());
        assertEquals(12 * GIB, one.memoryIdle().orElseThrow());
        assertEquals(Optional.of(VHCU), one.origin());
        assertEquals(DCU, one.resources());
        // Two cards: which card the figure is of cannot be told; no share gets it, none is made up.
        assertFalse(share(state, "two", "DCU-1").memoryUsed().isKnown());
        assertFalse(share(state, "two", "DCU-2").memoryUsed().isKnown());
        assertEquals(4, state.workloads().stream().mapToLong(workload -> workload.shares().size()).sum());
    }

    @Test
    void aFigureOfAnotherMeaningMakesNoGapAndIsNotCountedAsTheContainersOnTheCard() {
        FleetState state = FleetState.of(readings(List.of(use("ai", "train", "NPU-1", 20 * GIB, 55)),
                List.of(new FleetReadings.Origin("NPU-1", "ai", "train", "c", WHOLE_CARD))));
        WorkloadShare train = share(state, "train", "NPU-1");
        assertEquals(20 * GIB, train.memoryUsed().orElseThrow(), "shown as the exporter gives it");
        assertEquals(Figure.missing(Absence.DIFFERENT_MEANING), train.memoryIdle());
        assertEquals(CardResources.HAMI_DEFAULT, train.resources(), "no vendor names for Ascend910B3 given here");
    }

    @Test
    void recommendationsAreInTheVendorsNamesAndTakeNothingFromAFigureOfAnotherMeaning() {
        FleetState state = FleetState.of(readings(List.of(use("hy", "one", "", 4 * GIB, 80),
                use("ai", "train", "NPU-1", 20 * GIB, 55)), List.of(
                new FleetReadings.Origin("", "hy", "one", "c", VHCU),
                new FleetReadings.Origin("NPU-1", "ai", "train", "c", WHOLE_CARD))));
        UsageHistory history = new UsageHistory(Instant.ofEpochSecond(1_800_000_000), Duration.ofDays(14),
                RightSizing.MIN_HISTORY, List.of(
                new UsageHistory.ShareHistory("hy", "one", "c", "", Figure.of(5 * GIB), Figure.of(90), 2000, 1800,
                        Figure.of(80)),
                new UsageHistory.ShareHistory("ai", "train", "c", "NPU-1", Figure.of(20 * GIB), Figure.of(55), 2000,
                        1800, Figure.of(55))), Map.of());
        Recommendation dcu = RightSizing.recommend(state.workload(new WorkloadRef("hy", "one", "c")).orElseThrow(),
                history);
        assertEquals(Figure.of(RightSizing.memoryMib(5 * GIB)), dcu.memoryMib(), "the history naming no card is its");
        assertEquals(Figure.missing(Absence.DIFFERENT_MEANING), dcu.cores(), "a vHCU percent recommends no compute");
        assertEquals("resources:\n  limits:\n    hygon.com/dcunum: 1\n    hygon.com/dcumem: 5888\n",
                dcu.snippet().orElseThrow());
        Recommendation npu = RightSizing.recommend(state.workload(new WorkloadRef("ai", "train", "c")).orElseThrow(),
                history);
        assertTrue(npu.notEnoughData().orElseThrow().contains("the whole card's"), npu.notEnoughData().toString());
        assertTrue(npu.snippet().isEmpty());
    }

    @Test
    void aMemoryUnitLargerThanAMibIsRoundedUp() {
        Recommendation recommendation = new Recommendation(new WorkloadRef("mlu", "serve", "c"), "mlu-a", 1,
                Figure.of(1024), Figure.of(50), Figure.of(700 * MIB), Figure.of(12), 2000, Figure.of(1024),
                Figure.of(15), Optional.empty(), false, List.of("MLU-1"), SMLU);
        assertEquals("resources:\n  limits:\n    cambricon.com/vmlu: 1\n    cambricon.com/mlu.smlu.vmemory: 4\n"
                + "    cambricon.com/mlu.smlu.vcore: 15\n", recommendation.snippet().orElseThrow());
        Recommendation notQuite = new Recommendation(new WorkloadRef("mlu", "serve", "c"), "mlu-a", 1,
                Figure.of(1024), Figure.of(50), Figure.of(700 * MIB), Figure.of(12), 2000, Figure.of(1025),
                Figure.of(15), Optional.empty(), false, List.of("MLU-1"), SMLU);
        assertTrue(notQuite.snippet().orElseThrow().contains("cambricon.com/mlu.smlu.vmemory: 5"));
    }
}
