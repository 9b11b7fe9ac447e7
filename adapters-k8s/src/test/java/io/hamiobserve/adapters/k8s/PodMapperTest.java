package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.MigInstance;
import io.hamiobserve.domain.Ghost;
import io.hamiobserve.domain.GhostReason;
import io.hamiobserve.domain.PodLifecycle;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static io.hamiobserve.adapters.k8s.Fixtures.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PodMapperTest {
    private final Fixtures.RecordingSkips recorded = new Fixtures.RecordingSkips();
    private final Skips skips = new Skips(recorded);

    private Optional<PodPlacement> map(Pod pod) {
        return new PodMapper(DeviceProviders.load()).toPlacement(pod, skips);
    }

    @Test
    void initContainersComeFirstAndPositionsHold() {
        Pod pod = pod("ml", "train", "node-a", "GPU-1,NVIDIA,1000,10:;;GPU-1,NVIDIA,2000,20:GPU-2,NVIDIA,500,5:;",
                "main", "sidecar")
                .editSpec().addToInitContainers(new ContainerBuilder().withName("warmup").build()).endSpec()
                .build();
        PodPlacement placement = map(pod).orElseThrow();
        assertEquals("node-a", placement.node());
        assertEquals(PodPhase.RUNNING, placement.phase());
        assertFalse(placement.initContainersFinished());
        assertEquals(List.of(
                new ContainerShares(0, "warmup", true, List.of(new DeviceShare("GPU-1", "NVIDIA", 1000, 10))),
                new ContainerShares(1, "main", false, List.of()),
                new ContainerShares(2, "sidecar", false, List.of(new DeviceShare("GPU-1", "NVIDIA", 2000, 20),
                        new DeviceShare("GPU-2", "NVIDIA", 500, 5)))), placement.containers());
        assertEquals(List.of(), recorded.reasons());
    }

    @Test
    void initContainersFinishWhenAllHaveTerminated() {
        Pod pod = pod("ml", "train", "node-a", ";GPU-1,NVIDIA,1,1:;", "main")
                .editSpec().addToInitContainers(new ContainerBuilder().withName("warmup").build()).endSpec()
                .editStatus().addToInitContainerStatuses(Fixtures.terminated("warmup")).endStatus()
                .build();
        assertTrue(map(pod).orElseThrow().initContainersFinished());
    }

    @Test
    void severalVendorsMergePerContainerPosition() {
        Pod pod = pod("ml", "mixed", "node-a", "GPU-1,NVIDIA,100,10:;;", "a", "b")
                .editMetadata().addToAnnotations("hami.io/cambricon-mlu-devices-allocated", ";MLU-9,MLU,300,30:;")
                .endMetadata().build();
        PodPlacement placement = map(pod).orElseThrow();
        assertEquals(List.of(new DeviceShare("GPU-1", "NVIDIA", 100, 10)), placement.containers().get(0).devices());
        assertEquals(List.of(new DeviceShare("MLU-9", "MLU", 300, 30)), placement.containers().get(1).devices());
        assertEquals(List.of(), recorded.reasons());
    }

    @Test
    void aPodWithoutAnyProvidersKeyHasContainersButNoShares() {
        Pod pod = pod("ml", "plain", "node-a", null, "a").editMetadata()
                .addToAnnotations("hami.io/bind-phase", "success").endMetadata().build();
        PodPlacement placement = map(pod).orElseThrow();
        assertEquals(List.of(new ContainerShares(0, "a", false, List.of())), placement.containers());
        assertEquals(List.of(), recorded.reasons());
    }

    @Test
    void aListLongerThanThePodIsCutAndReported() {
        Pod pod = pod("ml", "long", "node-a", "GPU-1,NVIDIA,1,1:;GPU-2,NVIDIA,1,1:;", "only").build();
        PodPlacement placement = map(pod).orElseThrow();
        assertEquals(1, placement.containers().size());
        assertEquals(List.of(new DeviceShare("GPU-1", "NVIDIA", 1, 1)), placement.containers().get(0).devices());
        assertEquals(List.of("nvidia_pod/too_many_containers"), recorded.reasons());
    }

    @Test
    void aMalformedDeviceIsReportedAndTheRestOfThePodCounts() {
        Pod pod = pod("ml", "bad", "node-a", "GPU-1,NVIDIA,x,1:GPU-2,NVIDIA,7,7:;", "c").build();
        PodPlacement placement = map(pod).orElseThrow();
        assertEquals(List.of(new DeviceShare("GPU-2", "NVIDIA", 7, 7)), placement.containers().get(0).devices());
        assertEquals(List.of("nvidia_pod/not_a_number"), recorded.reasons());
    }

    @Test
    void aPodWithoutThePlacementKeyIsNotInTheLedger() {
        assertTrue(map(pod("ml", "plain", null, null, "c").build()).isEmpty());
    }

    @Test
    void succeededPodsDoNotHoldAllocations() {
        Pod pod = pod("ml", "done", "node-a", "GPU-1,NVIDIA,1,1:;", "c").editStatus().withPhase("Succeeded")
                .endStatus().build();
        assertFalse(map(pod).orElseThrow().holdsAllocation());
    }

    @Test
    void migAllocationsAreDecodedAndBadEntriesSkipped() {
        Pod pod = pod("ml", "mig", "node-a", "GPU-1,NVIDIA,9728,0:;", "c").editMetadata()
                .addToAnnotations(Fixtures.MIG, """
                        [{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-1","profile":"1g.10gb",
                          "placement":{"start":2,"size":1},"migUUID":"MIG-7","gpuInstanceID":3,"computeInstanceID":0},
                         {"containerIndex":-1,"gpuUUID":"GPU-1"},
                         {"containerIndex":0,"gpuUUID":"GPU-1","gpuInstanceID":99999999999},
                         {"containerIndex":0,"gpuUUID":"GPU-1","deviceIndex":1.5},
                         {"containerIndex":0,"gpuUUID":"GPU 1"},
                         {"containerIndex":0},
                         7]""")
                .endMetadata().build();
        assertEquals(List.of(new MigInstance(0, 0, "GPU-1", "1g.10gb", 2, 1, "MIG-7", 3, 0)),
                map(pod).orElseThrow().migInstances());
        assertEquals(List.of("nvidia_pod/negative_number", "nvidia_pod/number_overflow",
                "nvidia_pod/not_a_number", "nvidia_pod/bad_uuid", "nvidia_pod/bad_mig_allocation",
                "nvidia_pod/bad_mig_allocation"), recorded.reasons());
    }

    @Test
    void migAllocationsThatAreNotJsonAreReported() {
        Pod pod = pod("ml", "mig", "node-a", "GPU-1,NVIDIA,9728,0:;", "c").editMetadata()
                .addToAnnotations(Fixtures.MIG, "[{").endMetadata().build();
        assertEquals(List.of(), map(pod).orElseThrow().migInstances());
        assertEquals(List.of("nvidia_pod/bad_json"), recorded.reasons());
    }

    @Test
    void theLifecycleSaysWhenPlacedWhetherDeletingAndWhetherStarted() {
        Pod pod = pod("ml", "stuck", "node-a", "GPU-1,NVIDIA,1,1:;", "main").editMetadata()
                .withCreationTimestamp("2026-12-01T00:00:00Z")
                .addToAnnotations("hami.io/bind-time", "1764547260")
                .withDeletionTimestamp("2026-12-01T01:00:30Z").endMetadata()
                .editStatus().addToContainerStatuses(Fixtures.terminated("main")).endStatus().build();
        assertEquals(new PodLifecycle(1_764_547_260_000L, true, Instant.parse("2026-12-01T01:00:30Z").toEpochMilli(),
                true), map(pod).orElseThrow().lifecycle());
        assertEquals(GhostReason.DELETING, Ghost.of(map(pod).orElseThrow()).orElseThrow().reason());
    }

    @Test
    void aPodWhoseContainersNeverRanIsPlacedAtItsCreationWithoutABindTime() {
        Pod pod = pod("ml", "pulling", "node-a", "GPU-1,NVIDIA,1,1:;", "main").editMetadata()
                .withCreationTimestamp("2026-12-01T00:00:00Z").endMetadata()
                .editStatus().addNewContainerStatus().withName("main").withNewState().withNewWaiting()
                .withReason("ImagePullBackOff").endWaiting().endState().endContainerStatus().endStatus().build();
        PodLifecycle life = map(pod).orElseThrow().lifecycle();
        assertEquals(new PodLifecycle(Instant.parse("2026-12-01T00:00:00Z").toEpochMilli(), false,
                PodLifecycle.UNKNOWN_TIME, false), life);
        assertEquals(Optional.of(new Ghost(GhostReason.NEVER_STARTED, life.placedEpochMillis())),
                Ghost.of(map(pod).orElseThrow()));
    }

    @Test
    void hostileTimesAreNotKnownNeverAFailure() {
        for (String bindTime : new String[] {"-5", "1e9", "99999999999999999999", "１７００", "", "17000000000000000000"}) {
            Pod pod = pod("ml", "odd", "node-a", "GPU-1,NVIDIA,1,1:;", "main").editMetadata()
                    .addToAnnotations("hami.io/bind-time", bindTime)
                    .withCreationTimestamp("+999999999-12-31T23:59:59Z")
                    .withDeletionTimestamp("x".repeat(1 << 16)).endMetadata().build();
            PodLifecycle life = map(pod).orElseThrow().lifecycle();
            assertEquals(PodLifecycle.UNKNOWN_TIME, life.placedEpochMillis(), bindTime);
            assertTrue(life.deleting(), "an unreadable deletionTimestamp still says deleting");
            assertEquals(PodLifecycle.UNKNOWN_TIME, life.deletionEpochMillis());
            // No moment known: no ghost is made of missing facts.
            assertEquals(Optional.empty(), Ghost.of(map(pod).orElseThrow()), bindTime);
        }
        assertEquals(List.of(), recorded.reasons());
    }
}
