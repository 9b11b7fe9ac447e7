package io.hamiobserve.domain;

import static io.hamiobserve.domain.Fixtures.MIB;
import static io.hamiobserve.domain.Fixtures.app;
import static io.hamiobserve.domain.Fixtures.device;
import static io.hamiobserve.domain.Fixtures.hostCard;
import static io.hamiobserve.domain.Fixtures.init;
import static io.hamiobserve.domain.Fixtures.nodePod;
import static io.hamiobserve.domain.Fixtures.placement;
import static io.hamiobserve.domain.Fixtures.pod;
import static io.hamiobserve.domain.Fixtures.process;
import static io.hamiobserve.domain.Fixtures.running;
import static io.hamiobserve.domain.Fixtures.runningOne;
import static io.hamiobserve.domain.Fixtures.share;
import static io.hamiobserve.domain.Fixtures.uid;
import static io.hamiobserve.domain.Fixtures.usage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hamiobserve.domain.UsageView.CardMemoryGap;
import io.hamiobserve.domain.UsageView.ContainerDevice;
import io.hamiobserve.domain.UsageView.ContainerMemoryGap;
import io.hamiobserve.domain.UsageView.UnmanagedMemory;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class UsageViewTest {
    private static final String NODE = "gpu-node-1";
    private static final long NOW = 1_700_000_000L;
    private static final PodRef SMALL = pod("ml", "small-model");

    private static UsageView compute(List<HostCardReading> cards, List<ContainerUsage> usages, List<NodePod> pods) {
        return UsageView.compute(NODE, cards, usages, pods, Optional.empty(), NOW);
    }

    private static UsageView compute(List<HostCardReading> cards, List<ContainerUsage> usages, List<NodePod> pods,
                                     Map<Long, ProcessOwner> owners) {
        return UsageView.compute(NODE, cards, usages, pods, Optional.of(owners), NOW);
    }

    /** The seed's pod: asks for 8192 MiB on GPU-1 in its container "main", with runtime id "cid-main". */
    private static NodePod smallModelPod() {
        return nodePod(SMALL, List.of("main"), Map.of("cid-main", "main"),
                runningOne(SMALL, NODE, "GPU-1", 8192, 30));
    }

    @Test
    void seedExampleAllocated8192MibUsed2100MibLeaves6092MibIdle() {
        UsageView view = compute(List.of(hostCard(0, "GPU-1", 2600L)),
                List.of(usage(SMALL.uid(), "main", device(0, "GPU-1", 2100, 8192, 0))), List.of(smallModelPod()));

        assertEquals(List.of(new ContainerMemoryGap(SMALL, "main", 0, "GPU-1", 8192 * MIB, 2100 * MIB)),
                view.containerGaps());
        assertEquals(6092L * 1024 * 1024, view.containerGaps().get(0).idleBytes());
        assertEquals(List.of(new CardMemoryGap(view.hostCards().get(0), 2600 * MIB, 2100 * MIB, 8192 * MIB)),
                view.cardGaps());
        assertEquals(500 * MIB, view.cardGaps().get(0).unaccountedBytes());
        assertEquals(0, view.cardGaps().get(0).beyondAllocationBytes());
    }

    @Test
    void containerSeriesAreJoinedByPodUidAndContainerName() {
        PodRef other = pod("web", "api");
        DeviceUsage mainDevice = device(0, "GPU-1", 2100, 8192, 0);
        DeviceUsage apiDevice0 = device(0, "GPU-1", 100, 1024, 0);
        DeviceUsage apiDevice1 = device(1, "GPU-2", 200, 1024, 0);
        UsageView view = compute(List.of(hostCard(0, "GPU-1", 3000L), hostCard(1, "GPU-2", 300L)), List.of(
                usage(other.uid(), "server", apiDevice1, apiDevice0),
                usage(SMALL.uid(), "main", mainDevice)),
                List.of(smallModelPod(), nodePod(other, List.of("server"), Map.of(), null)));

        // Sorted by namespace, pod, container, then device position.
        assertEquals(List.of(
                new ContainerDevice(SMALL, "main", mainDevice, OptionalLong.empty()),
                new ContainerDevice(other, "server", apiDevice0, OptionalLong.empty()),
                new ContainerDevice(other, "server", apiDevice1, OptionalLong.empty())), view.containers());
        assertEquals(List.of(), view.unknownContainers());
        assertEquals(NODE, view.node());
    }

    @Test
    void accountingOfUnknownPodsOrContainersIsKeptApart() {
        ContainerUsage unknownPod = usage("uid-of-a-deleted-pod", "main", device(0, "GPU-1", 100, 1024, 0));
        ContainerUsage unknownContainer = usage(SMALL.uid(), "renamed", device(0, "GPU-1", 300, 1024, 0));
        ContainerUsage known = usage(SMALL.uid(), "main", device(0, "GPU-1", 2100, 8192, 0));
        UsageView view = compute(List.of(hostCard(0, "GPU-1", 5000L)), List.of(unknownPod, unknownContainer, known),
                List.of(smallModelPod()));

        assertEquals(List.of(unknownPod, unknownContainer), view.unknownContainers());
        assertEquals(List.of("main"), view.containers().stream().map(ContainerDevice::container).toList());
        assertEquals(1, view.containerGaps().size());
        // Only known containers add to HAMi-Core's figure for the card.
        assertEquals(2100 * MIB, view.cardGaps().get(0).hamiCoreUsedBytes());
    }

    @Test
    void aDeviceNeitherAllocatedToThePodNorACardOfTheNodeIsKeptOutOfTheSeriesAndTheSums() {
        // The tenant writes its own cache file and names a card of another tenant, and one of no node.
        DeviceUsage own = device(0, "GPU-1", 2100, 8192, 0);
        DeviceUsage neighbours = device(1, "GPU-2", 500, 8192, 0);
        DeviceUsage invented = device(2, "GPU-INVENTED", 70000, 8192, 0);
        UsageView view = compute(List.of(hostCard(0, "GPU-1", 2600L), hostCard(1, "GPU-2", 900L)),
                List.of(usage(SMALL.uid(), "main", own, neighbours, invented)), List.of(smallModelPod()));

        assertEquals(List.of("GPU-1", "GPU-2"),
                view.containers().stream().map(d -> d.usage().uuid()).toList());
        assertEquals(List.of(new ContainerDevice(SMALL, "main", invented, OptionalLong.empty())),
                view.unmatchedDevices());
        assertEquals(List.of("GPU-1", "GPU-2"), view.containerGaps().stream().map(ContainerMemoryGap::uuid).toList());
        assertEquals(List.of(2100 * MIB, 500 * MIB),
                view.cardGaps().stream().map(CardMemoryGap::hamiCoreUsedBytes).toList());
    }

    @Test
    void withoutTheDriverOnlyTheCardsAndMigInstancesOfThePlacementAreTrusted() {
        PodPlacement placement = new PodPlacement(SMALL, NODE, PodPhase.RUNNING, true,
                List.of(app(0, "main", share("GPU-1", 8192, 30))),
                List.of(new MigInstance(0, 1, "GPU-M", "1g.10gb", 0, 1, "MIG-7", 1, 0)));
        UsageView view = compute(List.of(), List.of(usage(SMALL.uid(), "main", device(0, "GPU-1", 1, 8192, 0),
                        device(1, "MIG-7", 1, 8192, 0), device(2, "GPU-9", 1, 8192, 0))),
                List.of(nodePod(SMALL, List.of("main"), Map.of(), placement)));

        assertEquals(List.of("GPU-1", "MIG-7"), view.containers().stream().map(d -> d.usage().uuid()).toList());
        assertEquals(List.of("GPU-9"), view.unmatchedDevices().stream().map(d -> d.usage().uuid()).toList());
    }

    @Test
    void cardSumsSaturateInsteadOfWrapping() {
        // Each figure is a sum HAMi-Core's accounting already saturated; their sum must not wrap.
        DeviceUsage huge = new DeviceUsage(0, "GPU-1", Long.MAX_VALUE, 0, 0, 0, Long.MAX_VALUE, 100, 0, 1, 0);
        PodRef other = pod("ml", "other");
        UsageView view = compute(List.of(hostCard(0, "GPU-1", 2600L)),
                List.of(usage(SMALL.uid(), "main", huge), usage(other.uid(), "main", huge)),
                List.of(smallModelPod(), nodePod(other, List.of("main"), Map.of(), null)));

        assertEquals(Long.MAX_VALUE, view.cardGaps().get(0).hamiCoreUsedBytes());
        assertEquals(0, view.cardGaps().get(0).unaccountedBytes());
        assertEquals(0, view.containerGaps().get(0).idleBytes());
    }

    @Test
    void lastKernelAgeIsNeverNegativeAndEmptyWhenNotRecorded() {
        UsageView view = compute(List.of(hostCard(1, "GPU-2", 1L), hostCard(2, "GPU-3", 1L)), List.of(usage(SMALL.uid(), "main",
                device(0, "GPU-1", 1, 8192, NOW - 42),
                device(1, "GPU-2", 1, 8192, NOW + 5),
                device(2, "GPU-3", 1, 8192, 0))), List.of(smallModelPod()));

        assertEquals(List.of(OptionalLong.of(42), OptionalLong.of(0), OptionalLong.empty()),
                view.containers().stream().map(ContainerDevice::lastKernelAgeSeconds).toList());
    }

    @Test
    void containerGapFallsBackToTheEnforcedLimitWhenThePlacementIsUnknown() {
        UsageView view = compute(List.of(hostCard(0, "GPU-1", 1000L)),
                List.of(usage(SMALL.uid(), "main", device(0, "GPU-1", 1000, 4096, 0))),
                List.of(nodePod(SMALL, List.of("main"), Map.of(), null)));

        assertEquals(4096 * MIB, view.containerGaps().get(0).allocatedBytes());
        assertEquals(3096 * MIB, view.containerGaps().get(0).idleBytes());
    }

    @Test
    void containerGapUsesTheContainersOwnShareNotThePodsEffectiveUse() {
        PodRef p = pod("ml", "pipeline");
        PodPlacement placement = running(p, NODE,
                init(0, "fetch", share("GPU-1", 6000, 10)),
                app(1, "a", share("GPU-1", 1000, 10), share("GPU-1", 500, 5)),
                app(2, "b", share("GPU-1", 2000, 20)));
        UsageView view = compute(List.of(), List.of(
                usage(p.uid(), "a", device(0, "GPU-1", 200, 1500, 0)),
                usage(p.uid(), "b", device(0, "GPU-1", 2500, 2000, 0))),
                List.of(nodePod(p, List.of("fetch", "a", "b"), Map.of(), placement)));

        assertEquals(List.of(1500 * MIB, 2000 * MIB),
                view.containerGaps().stream().map(ContainerMemoryGap::allocatedBytes).toList());
        // Using more than the share leaves nothing idle, never a negative figure.
        assertEquals(List.of(1300 * MIB, 0L), view.containerGaps().stream().map(ContainerMemoryGap::idleBytes).toList());
    }

    @Test
    void cardGapCountsEffectiveSharesOfThisNodesHoldingPods() {
        PodRef p = pod("ml", "pipeline");
        PodRef done = pod("ml", "done");
        PodPlacement pipeline = running(p, NODE,
                init(0, "fetch", share("GPU-1", 6000, 10)),
                app(1, "a", share("GPU-1", 1000, 10)),
                app(2, "b", share("GPU-1", 2000, 20)));
        PodPlacement finished = placement(done, NODE, PodPhase.SUCCEEDED, true, app(0, "x", share("GPU-1", 9000, 9)));
        UsageView view = compute(List.of(hostCard(0, "GPU-1", 1000L)), List.of(),
                List.of(nodePod(p, List.of("fetch", "a", "b"), Map.of(), pipeline),
                        nodePod(done, List.of("x"), Map.of(), finished)));

        // Init peak 6000 beats the app sum 3000; the succeeded pod holds nothing.
        assertEquals(6000 * MIB, view.cardGaps().get(0).allocatedBytes());
    }

    @Test
    void containerWithoutHamiCoreShowsUpOnlyInHostMemoryBeyondItsAllocation() {
        PodRef free = pod("ml", "uncontrolled");
        NodePod uncontrolled = nodePod(free, List.of("main"), Map.of("cid-free", "main"),
                runningOne(free, NODE, "GPU-1", 4096, 50));
        // HAMi-Core accounts 2100 MiB for the seed pod; the uncontrolled pod has no cache file at all.
        UsageView view = compute(List.of(hostCard(0, "GPU-1", 20000L, process(100, 2300), process(200, 17000))),
                List.of(usage(SMALL.uid(), "main", device(0, "GPU-1", 2100, 8192, 0))),
                List.of(smallModelPod(), uncontrolled),
                Map.of(100L, new ProcessOwner(SMALL.uid(), "cid-main"), 200L, new ProcessOwner(free.uid(), "cid-free")));

        CardMemoryGap gap = view.cardGaps().get(0);
        assertEquals(20000 * MIB, gap.hostUsedBytes());
        assertEquals(2100 * MIB, gap.hamiCoreUsedBytes());
        assertEquals((8192 + 4096) * MIB, gap.allocatedBytes());
        assertEquals((20000 - 8192 - 4096) * MIB, gap.beyondAllocationBytes());
        assertTrue(gap.beyondAllocationBytes() > 0);
        assertEquals(17900 * MIB, gap.unaccountedBytes());
        assertEquals(List.of(new UnmanagedMemory("GPU-1", Optional.of(free), "main", 17000 * MIB, 1)),
                view.unmanagedMemory());
    }

    @Test
    void cardsWithoutAMemoryReadingHaveNoGapAndCardsAreOrderedByIndex() {
        UsageView view = compute(List.of(hostCard(2, "GPU-3", 10L), hostCard(1, "GPU-2", null), hostCard(0, "GPU-1", 5L)),
                List.of(), List.of());

        assertEquals(List.of(0, 1, 2), view.hostCards().stream().map(HostCardReading::index).toList());
        assertEquals(List.of("GPU-1", "GPU-3"), view.cardGaps().stream().map(gap -> gap.card().uuid()).toList());
        assertEquals(List.of(0L, 0L), view.cardGaps().stream().map(CardMemoryGap::allocatedBytes).toList());
    }

    @Test
    void unmanagedMemoryGroupsProcessesPerCardPodAndContainer() {
        PodRef free = pod("ml", "uncontrolled");
        NodePod uncontrolled = nodePod(free, List.of("a", "b"), Map.of("cid-a", "a", "cid-b", "b"), null);
        UsageView view = compute(List.of(
                        hostCard(0, "GPU-1", 9000L, process(1, 100), process(2, 200), process(3, 400),
                                process(4, 800), process(5, 1600)),
                        hostCard(1, "GPU-2", 9000L, process(6, 3200))),
                List.of(), List.of(uncontrolled),
                Map.of(1L, new ProcessOwner(free.uid(), "cid-a"), 2L, new ProcessOwner(free.uid(), "cid-a"),
                        3L, new ProcessOwner(free.uid(), "cid-b"), 6L, new ProcessOwner(free.uid(), "cid-a"),
                        5L, new ProcessOwner("uid-not-on-this-node", "cid-x")));

        // Pid 4 has no owner (a host process) and pid 5 belongs to no known pod: both go to the empty pod.
        assertEquals(List.of(
                new UnmanagedMemory("GPU-1", Optional.empty(), "", 2400 * MIB, 2),
                new UnmanagedMemory("GPU-1", Optional.of(free), "a", 300 * MIB, 2),
                new UnmanagedMemory("GPU-1", Optional.of(free), "b", 400 * MIB, 1),
                new UnmanagedMemory("GPU-2", Optional.of(free), "a", 3200 * MIB, 1)), view.unmanagedMemory());
    }

    @Test
    void processesOfAContainerAccountedOnThatCardAreManaged() {
        // The seed pod's process on GPU-1 is in HAMi-Core's accounting; on GPU-2 (no cache entry) it is not.
        UsageView view = compute(List.of(
                        hostCard(0, "GPU-1", 3000L, process(100, 2300)),
                        hostCard(1, "GPU-2", 3000L, process(100, 700))),
                List.of(usage(SMALL.uid(), "main", device(0, "GPU-1", 2100, 8192, 0))), List.of(smallModelPod()),
                Map.of(100L, new ProcessOwner(SMALL.uid(), "cid-main")));

        assertEquals(List.of(new UnmanagedMemory("GPU-2", Optional.of(SMALL), "main", 700 * MIB, 1)),
                view.unmanagedMemory());
    }

    @Test
    void aProcessWithoutAReportedAmountCountsAsAProcessWithNoBytes() {
        UsageView view = compute(List.of(hostCard(0, "GPU-1", 3000L,
                        new HostCardReading.CardProcess(9, OptionalLong.empty()), process(10, 50))),
                List.of(), List.of(), Map.of());

        assertEquals(List.of(new UnmanagedMemory("GPU-1", Optional.empty(), "", 50 * MIB, 2)), view.unmanagedMemory());
    }

    @Test
    void withoutProcessOwnersThereIsNoUnmanagedMemory() {
        UsageView view = compute(List.of(hostCard(0, "GPU-1", 3000L, process(100, 2300))), List.of(), List.of());

        assertEquals(List.of(), view.unmanagedMemory());
    }

    @Test
    void cardsWhoseProcessesCouldNotBeListedAddNoUnmanagedMemory() {
        UsageView view = compute(List.of(hostCard(0, "GPU-1", 3000L)), List.of(), List.of(), Map.of());

        assertEquals(List.of(), view.unmanagedMemory());
    }

    @Test
    void podUidsAreMatchedExactly() {
        UsageView view = compute(List.of(), List.of(usage(uid("ml", "small-model").toUpperCase(), "main",
                device(0, "GPU-1", 1, 1, 0))), List.of(smallModelPod()));

        assertEquals(1, view.unknownContainers().size());
        assertEquals(List.of(), view.containers());
    }

    /**
     * For random nodes (pods of a few namespaces and names, some the same name under another UID,
     * containers listed in any order, devices in any index order), the containers are in the view's
     * order (namespace, pod name, container, pod UID, device index), hold every joined device once,
     * and the gaps are the same devices in the same order.
     */
    @Test
    void containersAndGapsAreInNamespacePodContainerAndIndexOrderForRandomNodes() {
        java.util.Random random = new java.util.Random(20_261_201L);
        java.util.Comparator<ContainerDevice> viewOrder = java.util.Comparator
                .comparing((ContainerDevice device) -> device.pod().namespace())
                .thenComparing(device -> device.pod().name())
                .thenComparing(ContainerDevice::container)
                .thenComparing(device -> device.pod().uid())
                .thenComparingInt(device -> device.usage().vdeviceIndex());
        for (int round = 0; round < 300; round++) {
            List<NodePod> pods = new java.util.ArrayList<>();
            List<ContainerUsage> usages = new java.util.ArrayList<>();
            java.util.Map<String, Integer> expected = new java.util.HashMap<>();
            int podCount = random.nextInt(12);
            for (int p = 0; p < podCount; p++) {
                String namespace = "ns-" + random.nextInt(3);
                String name = "pod-" + random.nextInt(4);
                PodRef pod = new PodRef(namespace, name, "uid-" + round + "-" + p);
                List<String> containers = List.of("b", "a", "c").subList(0, 1 + random.nextInt(3));
                pods.add(nodePod(pod, containers, Map.of(), null));
                for (String container : containers) {
                    List<DeviceUsage> devices = new java.util.ArrayList<>();
                    for (int d = 0; d < 1 + random.nextInt(4); d++) {
                        devices.add(device(random.nextInt(3), "GPU-" + random.nextInt(2), 1 + d, 10, 0));
                    }
                    usages.add(usage(pod.uid(), container, devices.toArray(DeviceUsage[]::new)));
                    for (DeviceUsage device : devices) {
                        expected.merge(pod.uid() + "/" + container + "/" + device, 1, Integer::sum);
                    }
                }
            }
            java.util.Collections.shuffle(usages, random);
            UsageView view = compute(List.of(hostCard(0, "GPU-0", 1L), hostCard(1, "GPU-1", 1L)), usages, pods);

            List<ContainerDevice> containers = view.containers();
            for (int i = 1; i < containers.size(); i++) {
                assertTrue(viewOrder.compare(containers.get(i - 1), containers.get(i)) <= 0,
                        "round " + round + ": " + containers.get(i - 1) + " before " + containers.get(i));
            }
            java.util.Map<String, Integer> joined = new java.util.HashMap<>();
            containers.forEach(device -> joined.merge(device.pod().uid() + "/" + device.container() + "/"
                    + device.usage(), 1, Integer::sum));
            assertEquals(expected, joined, "round " + round);
            assertEquals(containers.size(), view.containerGaps().size());
            for (int i = 0; i < containers.size(); i++) {
                ContainerDevice device = containers.get(i);
                ContainerMemoryGap gap = view.containerGaps().get(i);
                assertEquals(List.of(device.pod(), device.container(), device.usage().vdeviceIndex(),
                        device.usage().uuid()), List.of(gap.pod(), gap.container(), gap.vdeviceIndex(), gap.uuid()));
            }
        }
    }
}
