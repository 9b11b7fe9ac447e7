package io.hamiobserve.domain;

import static io.hamiobserve.domain.Fixtures.MIB;
import static io.hamiobserve.domain.Fixtures.app;
import static io.hamiobserve.domain.Fixtures.device;
import static io.hamiobserve.domain.Fixtures.hostCard;
import static io.hamiobserve.domain.Fixtures.nodePod;
import static io.hamiobserve.domain.Fixtures.pod;
import static io.hamiobserve.domain.Fixtures.running;
import static io.hamiobserve.domain.Fixtures.runningOne;
import static io.hamiobserve.domain.Fixtures.share;
import static io.hamiobserve.domain.Fixtures.usage;
import static io.hamiobserve.domain.UsageView.ProcessSkip.Reason.CARD_NOT_ALLOCATED;
import static io.hamiobserve.domain.UsageView.ProcessSkip.Reason.NO_OWNER;
import static io.hamiobserve.domain.UsageView.ProcessSkip.Reason.UNKNOWN_CONTAINER;
import static io.hamiobserve.domain.UsageView.ProcessSkip.Reason.UNKNOWN_POD;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.hamiobserve.domain.HostCardReading.CardProcess;
import io.hamiobserve.domain.UsageView.ContainerMemoryGap;
import io.hamiobserve.domain.UsageView.ProcessSkip;
import io.hamiobserve.domain.UsageView.ProcessUsage;
import io.hamiobserve.domain.UsageView.UnmanagedMemory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Containers that hold a card without HAMi-Core's accounting on it get their use from the driver's
 * processes: one node, its pods fixed, and a table of what the driver lists and who owns it.
 */
class ProcessUsageTest {
    private static final String NODE = "gpu-node-1";
    private static final long WHOLE_MIB = 81559;

    /** Holds GPU-2 whole (nvidia.com/gpu: 1 without gpumem: HAMi records the card's memory and 100 cores). */
    private static final PodRef WHOLE = pod("ml", "whole-card");
    /** Holds 2048 MiB of GPU-1 and runs with CUDA_DISABLE_CONTROL=true: no cache file. */
    private static final PodRef SIM = pod("research", "cuda-sim");
    /** Holds GPU-3 then GPU-1 in one container, without HAMi-Core. */
    private static final PodRef TWO = pod("ml", "two-cards");
    /** Holds 8192 MiB of GPU-1 with HAMi-Core accounting for it. */
    private static final PodRef MANAGED = pod("ml", "small-model");

    private static final List<NodePod> PODS = List.of(
            nodePod(WHOLE, List.of("train"), Map.of("cid-train", "train"),
                    runningOne(WHOLE, NODE, "GPU-2", WHOLE_MIB, 100)),
            nodePod(SIM, List.of("sim"), Map.of("cid-sim", "sim"),
                    running(SIM, NODE, app(0, "sim", share("GPU-1", 2048, 20)))),
            nodePod(TWO, List.of("main"), Map.of("cid-two", "main"),
                    running(TWO, NODE, app(0, "main", share("GPU-3", 4096, 30), share("GPU-1", 1024, 10)))),
            nodePod(MANAGED, List.of("main"), Map.of("cid-main", "main"),
                    runningOne(MANAGED, NODE, "GPU-1", 8192, 30)));
    private static final List<ContainerUsage> CACHE_FILES = List.of(
            usage(MANAGED.uid(), "main", device(0, "GPU-1", 2100, 8192, 0)));

    private static final ProcessOwner OF_WHOLE = new ProcessOwner(WHOLE.uid(), "cid-train");
    private static final ProcessOwner OF_SIM = new ProcessOwner(SIM.uid(), "cid-sim");
    private static final ProcessOwner OF_TWO = new ProcessOwner(TWO.uid(), "cid-two");
    private static final ProcessOwner OF_MANAGED = new ProcessOwner(MANAGED.uid(), "cid-main");

    /** A process on a card: memory in MiB (null: the driver withholds it), SM percent (null: cannot say). */
    private record Listed(String uuid, long pid, Long usedMib, Double smUtil) {
        CardProcess process() {
            return new CardProcess(pid, usedMib == null ? OptionalLong.empty() : OptionalLong.of(usedMib * MIB),
                    smUtil == null ? OptionalDouble.empty() : OptionalDouble.of(smUtil));
        }
    }

    private static Listed on(String uuid, long pid, Long usedMib, Double smUtil) {
        return new Listed(uuid, pid, usedMib, smUtil);
    }

    private static ProcessUsage use(PodRef pod, String container, int vdevice, String uuid, Long usedMib, Double smUtil,
                                    int processes) {
        return new ProcessUsage(pod, container, vdevice, uuid,
                usedMib == null ? OptionalLong.empty() : OptionalLong.of(usedMib * MIB),
                smUtil == null ? OptionalDouble.empty() : OptionalDouble.of(smUtil), processes);
    }

    private static ContainerMemoryGap gap(PodRef pod, String container, int vdevice, String uuid, long allocatedMib,
                                          long usedMib) {
        return new ContainerMemoryGap(pod, container, vdevice, uuid, allocatedMib * MIB, usedMib * MIB);
    }

    /**
     * @param name      what the row shows
     * @param listed    what the driver lists
     * @param owners    owners the cgroups name
     * @param usage     the driver-sourced use expected
     * @param gaps      their gaps expected (after HAMi-Core's, which are the same in every row)
     * @param skips     the skips expected
     */
    record Row(String name, List<Listed> listed, Map<Long, ProcessOwner> owners, List<ProcessUsage> usage,
               List<ContainerMemoryGap> gaps, List<ProcessSkip> skips) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Row> rows() {
        return Stream.of(
                new Row("a whole card: its processes' memory and SM use summed",
                        List.of(on("GPU-2", 1, 3000L, 40.0), on("GPU-2", 2, 1000L, 25.0)),
                        Map.of(1L, OF_WHOLE, 2L, OF_WHOLE),
                        List.of(use(WHOLE, "train", 0, "GPU-2", 4000L, 65.0, 2)),
                        List.of(gap(WHOLE, "train", 0, "GPU-2", WHOLE_MIB, 4000)), List.of()),
                new Row("CUDA_DISABLE_CONTROL on a shared card: used beyond its share, nothing idle",
                        List.of(on("GPU-1", 3, 6144L, 70.0)), Map.of(3L, OF_SIM),
                        List.of(use(SIM, "sim", 0, "GPU-1", 6144L, 70.0, 1)),
                        List.of(gap(SIM, "sim", 0, "GPU-1", 2048, 6144)), List.of()),
                new Row("two cards: vdevice_index follows the order of the share",
                        List.of(on("GPU-1", 4, 500L, 0.0), on("GPU-3", 5, 900L, 12.0)),
                        Map.of(4L, OF_TWO, 5L, OF_TWO),
                        List.of(use(TWO, "main", 0, "GPU-3", 900L, 12.0, 1), use(TWO, "main", 1, "GPU-1", 500L, 0.0, 1)),
                        List.of(gap(TWO, "main", 0, "GPU-3", 4096, 900), gap(TWO, "main", 1, "GPU-1", 1024, 500)),
                        List.of()),
                new Row("HAMi-Core accounts for the container on the card: no second figure, no skip",
                        List.of(on("GPU-1", 100, 2300L, 50.0)), Map.of(100L, OF_MANAGED),
                        List.of(), List.of(), List.of()),
                new Row("HAMi-Core's container on a card its share does not name: skipped",
                        List.of(on("GPU-2", 101, 700L, 5.0)), Map.of(101L, OF_MANAGED),
                        List.of(), List.of(), List.of(new ProcessSkip("GPU-2", CARD_NOT_ALLOCATED, 1))),
                new Row("a whole-card pod's process on a card it does not hold: skipped, its own card still counted",
                        List.of(on("GPU-2", 1, 3000L, 40.0), on("GPU-3", 7, 600L, 30.0)),
                        Map.of(1L, OF_WHOLE, 7L, OF_WHOLE),
                        List.of(use(WHOLE, "train", 0, "GPU-2", 3000L, 40.0, 1)),
                        List.of(gap(WHOLE, "train", 0, "GPU-2", WHOLE_MIB, 3000)),
                        List.of(new ProcessSkip("GPU-3", CARD_NOT_ALLOCATED, 1))),
                new Row("a pid that vanished (or a host process): no owner",
                        List.of(on("GPU-2", 1, 3000L, 40.0), on("GPU-2", 8, 200L, 0.0), on("GPU-2", 9, 100L, 0.0)),
                        Map.of(1L, OF_WHOLE),
                        List.of(use(WHOLE, "train", 0, "GPU-2", 3000L, 40.0, 1)),
                        List.of(gap(WHOLE, "train", 0, "GPU-2", WHOLE_MIB, 3000)),
                        List.of(new ProcessSkip("GPU-2", NO_OWNER, 2))),
                new Row("a cgroup naming a pod this node does not know",
                        List.of(on("GPU-2", 10, 300L, 10.0)),
                        Map.of(10L, new ProcessOwner("uid-of-another-pod", "cid-x")),
                        List.of(), List.of(), List.of(new ProcessSkip("GPU-2", UNKNOWN_POD, 1))),
                new Row("a container ID the pod's status does not list (yet)",
                        List.of(on("GPU-2", 11, 300L, 10.0)),
                        Map.of(11L, new ProcessOwner(WHOLE.uid(), "cid-restarted")),
                        List.of(), List.of(), List.of(new ProcessSkip("GPU-2", UNKNOWN_CONTAINER, 1))),
                new Row("one process the driver cannot sample: no SM figure for the container, memory kept",
                        List.of(on("GPU-2", 1, 3000L, 40.0), on("GPU-2", 2, 1000L, null)),
                        Map.of(1L, OF_WHOLE, 2L, OF_WHOLE),
                        List.of(use(WHOLE, "train", 0, "GPU-2", 4000L, null, 2)),
                        List.of(gap(WHOLE, "train", 0, "GPU-2", WHOLE_MIB, 4000)), List.of()),
                new Row("one process's memory withheld: no memory figure and no gap, never a partial sum",
                        List.of(on("GPU-2", 1, 3000L, 40.0), on("GPU-2", 2, null, 5.0)),
                        Map.of(1L, OF_WHOLE, 2L, OF_WHOLE),
                        List.of(use(WHOLE, "train", 0, "GPU-2", null, 45.0, 2)), List.of(), List.of()),
                new Row("a card whose utilisation the driver cannot give (MIG mode, older cards)",
                        List.of(on("GPU-2", 1, 3000L, null)), Map.of(1L, OF_WHOLE),
                        List.of(use(WHOLE, "train", 0, "GPU-2", 3000L, null, 1)),
                        List.of(gap(WHOLE, "train", 0, "GPU-2", WHOLE_MIB, 3000)), List.of()));
    }

    private static List<HostCardReading> cards(List<Listed> listed) {
        Map<String, List<CardProcess>> byCard = new LinkedHashMap<>();
        for (String uuid : List.of("GPU-1", "GPU-2", "GPU-3")) {
            byCard.put(uuid, new ArrayList<>());
        }
        listed.forEach(each -> byCard.get(each.uuid()).add(each.process()));
        List<HostCardReading> cards = new ArrayList<>();
        int index = 0;
        for (Map.Entry<String, List<CardProcess>> card : byCard.entrySet()) {
            cards.add(hostCard(index++, card.getKey(), 20000L, card.getValue().toArray(CardProcess[]::new)));
        }
        return cards;
    }

    private static UsageView compute(List<Listed> listed, Map<Long, ProcessOwner> owners) {
        return UsageView.compute(NODE, cards(listed), CACHE_FILES, PODS, Optional.of(owners), 1_700_000_000L);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void driverProcessesGiveContainersWithoutHamiCoreTheirUse(Row row) {
        UsageView view = compute(row.listed(), row.owners());

        assertEquals(row.usage(), view.processUsage());
        List<ContainerMemoryGap> expectedGaps = new ArrayList<>();
        expectedGaps.add(gap(MANAGED, "main", 0, "GPU-1", 8192, 2100));
        expectedGaps.addAll(row.gaps());
        assertEquals(expectedGaps, view.containerGaps());
        assertEquals(row.skips(), view.processSkips());
        // HAMi-Core's side is the same in every row.
        assertEquals(1, view.containers().size());
        assertEquals(2100 * MIB, view.cardGaps().get(0).hamiCoreUsedBytes());
    }

    @Test
    void theirMemoryStaysUnmanagedToo() {
        // Outside HAMi-Core's control whatever the source of the figure: the unmanaged series keep their meaning.
        UsageView view = compute(List.of(on("GPU-2", 1, 3000L, 40.0), on("GPU-1", 3, 6144L, 70.0)),
                Map.of(1L, OF_WHOLE, 3L, OF_SIM));

        assertEquals(List.of(new UnmanagedMemory("GPU-1", Optional.of(SIM), "sim", 6144 * MIB, 1),
                new UnmanagedMemory("GPU-2", Optional.of(WHOLE), "train", 3000 * MIB, 1)), view.unmanagedMemory());
    }

    @Test
    void withoutProcessAttributionNoContainerGetsADriverFigure() {
        UsageView view = UsageView.compute(NODE, cards(List.of(on("GPU-2", 1, 3000L, 40.0))), CACHE_FILES, PODS,
                Optional.empty(), 1_700_000_000L);

        assertEquals(List.of(), view.processUsage());
        assertEquals(List.of(), view.processSkips());
        assertEquals(1, view.containerGaps().size());
    }

    @Test
    void thousandsOfProcessesAreSummedAndCountedNotListed() {
        List<Listed> listed = new ArrayList<>();
        Map<Long, ProcessOwner> owners = new HashMap<>();
        for (long pid = 10_000; pid < 15_000; pid++) {
            listed.add(on("GPU-2", pid, 1L, pid % 2 == 0 ? 1.0 : 0.0));
            owners.put(pid, OF_WHOLE);
        }
        for (long pid = 20_000; pid < 23_000; pid++) {
            listed.add(on("GPU-3", pid, 1L, 0.0));
        }

        UsageView view = compute(listed, owners);

        assertEquals(List.of(use(WHOLE, "train", 0, "GPU-2", 5000L, 2500.0, 5000)), view.processUsage());
        assertEquals(List.of(new ProcessSkip("GPU-3", NO_OWNER, 3000)), view.processSkips());
    }
}
