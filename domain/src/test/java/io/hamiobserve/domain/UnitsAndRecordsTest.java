package io.hamiobserve.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class UnitsAndRecordsTest {

    @Nested
    class UnitsTest {
        @Test
        void mibToBytesMultipliesBy2To20() {
            assertEquals(0, Units.mibToBytes(0));
            assertEquals(1_048_576, Units.mibToBytes(1));
            assertEquals(85_520_809_984L, Units.mibToBytes(81559));
            assertEquals(Long.MAX_VALUE / Units.BYTES_PER_MIB * Units.BYTES_PER_MIB,
                    Units.mibToBytes(Long.MAX_VALUE / Units.BYTES_PER_MIB));
        }

        @Test
        void mibToBytesSaturatesInsteadOfThrowing() {
            assertEquals(Long.MAX_VALUE, Units.mibToBytes(Long.MAX_VALUE / Units.BYTES_PER_MIB + 1));
            assertEquals(Long.MAX_VALUE, Units.mibToBytes(Long.MAX_VALUE));
            assertEquals(0, Units.mibToBytes(-1));
            assertEquals(0, Units.mibToBytes(Long.MIN_VALUE));
            // Every quantity a record may hold converts exactly.
            assertEquals(1L << 50, Units.mibToBytes(Quantities.MAX_MEMORY_MIB));
        }

        @Test
        void bytesToMibRoundsDown() {
            assertEquals(0, Units.bytesToMib(Units.BYTES_PER_MIB - 1));
            assertEquals(2100, Units.bytesToMib(2100 * Units.BYTES_PER_MIB + 12345));
        }

        @Test
        void percentToFractionDividesBy100() {
            assertEquals(0.45, Units.percentToFraction(45), 1e-12);
            assertEquals(1.5, Units.percentToFraction(150), 1e-12);
        }

        @Test
        void fractionDividesPartByWhole() {
            assertEquals(0.25, Units.fraction(1, 4), 1e-12);
            assertEquals(0.0, Units.fraction(0, 81559), 0.0);
            assertEquals(1.5, Units.fraction(3, 2), 1e-12);
        }

        @ParameterizedTest
        @ValueSource(longs = {0, -1, Long.MIN_VALUE})
        void fractionRejectsANonPositiveWhole(long whole) {
            assertThrows(IllegalArgumentException.class, () -> Units.fraction(1, whole));
        }
    }

    @Nested
    class Enums {
        @ParameterizedTest
        @CsvSource({"hami-core,HAMI_CORE", "mig,MIG", "mps,MPS", "MIG,MIG", "Hami-Core,HAMI_CORE"})
        void cardModeReadsHamisSpellingInAnyCase(String label, CardMode expected) {
            assertEquals(Optional.of(expected), CardMode.fromLabel(label));
        }

        @ParameterizedTest
        @NullAndEmptySource
        void aMissingCardModeIsTheDefault(String label) {
            assertEquals(Optional.of(CardMode.HAMI_CORE), CardMode.fromLabel(label));
        }

        @ParameterizedTest
        @ValueSource(strings = {"hami_core", "timeslicing", " mig", "HAMI_CORE"})
        void anUnknownCardModeIsEmpty(String label) {
            assertEquals(Optional.empty(), CardMode.fromLabel(label));
        }

        @Test
        void cardModeLabelsRoundTrip() {
            for (CardMode mode : CardMode.values()) {
                assertEquals(Optional.of(mode), CardMode.fromLabel(mode.label()));
            }
        }

        @ParameterizedTest
        @CsvSource({"Pending,PENDING", "Running,RUNNING", "Succeeded,SUCCEEDED", "Failed,FAILED", "Unknown,UNKNOWN",
                "running,RUNNING"})
        void podPhaseReadsKubernetesSpelling(String phase, PodPhase expected) {
            assertEquals(expected, PodPhase.parse(phase));
        }

        @ParameterizedTest
        @NullAndEmptySource
        @ValueSource(strings = {"Terminating", "CrashLoopBackOff", "Run ning"})
        void anUnknownPodPhaseIsUnknown(String phase) {
            assertEquals(PodPhase.UNKNOWN, PodPhase.parse(phase));
        }

        @Test
        void onlySucceededAndFailedPodsReleaseTheirAllocation() {
            List<PodPhase> holding = new ArrayList<>();
            for (PodPhase phase : PodPhase.values()) {
                if (phase.holdsAllocation()) {
                    holding.add(phase);
                }
            }
            assertEquals(List.of(PodPhase.PENDING, PodPhase.RUNNING, PodPhase.UNKNOWN), holding);
        }

        @Test
        void quotaResourcesAreReadFromHardLimitKeys() {
            assertEquals(Optional.of(QuotaResource.GPU_MEMORY_MIB),
                    QuotaResource.fromHardLimitKey("limits.nvidia.com/gpumem"));
            assertEquals(Optional.of(QuotaResource.GPU_CORES_PERCENT),
                    QuotaResource.fromHardLimitKey("limits.nvidia.com/gpucores"));
            assertEquals("nvidia.com/gpumem", QuotaResource.GPU_MEMORY_MIB.quotaName());
            assertEquals("nvidia.com/gpucores", QuotaResource.GPU_CORES_PERCENT.quotaName());
        }

        @ParameterizedTest
        @NullAndEmptySource
        @ValueSource(strings = {"nvidia.com/gpumem", "requests.nvidia.com/gpumem", "limits.nvidia.com/gpu",
                "limits.nvidia.com/gpumem-percentage", "LIMITS.NVIDIA.COM/GPUMEM"})
        void otherQuotaKeysAreNotGpuLimits(String key) {
            assertEquals(Optional.empty(), QuotaResource.fromHardLimitKey(key));
        }
    }

    @Nested
    class Invariants {
        private void rejects(Executable construction) {
            Throwable thrown = assertThrows(RuntimeException.class, construction);
            assertTrue(thrown instanceof IllegalArgumentException || thrown instanceof NullPointerException,
                    () -> "unexpected " + thrown);
        }

        @Test
        void registeredCard() {
            rejects(() -> new RegisteredCard("", 0, 1, 1, 1, "t", 0, CardMode.MIG, true));
            rejects(() -> new RegisteredCard(null, 0, 1, 1, 1, "t", 0, CardMode.MIG, true));
            rejects(() -> new RegisteredCard("GPU-1", -1, 1, 1, 1, "t", 0, CardMode.MIG, true));
            rejects(() -> new RegisteredCard("GPU-1", 0, -1, 1, 1, "t", 0, CardMode.MIG, true));
            rejects(() -> new RegisteredCard("GPU-1", 0, 1, -1, 1, "t", 0, CardMode.MIG, true));
            rejects(() -> new RegisteredCard("GPU-1", 0, 1, 1, -1, "t", 0, CardMode.MIG, true));
            rejects(() -> new RegisteredCard("GPU-1", 0, 1, 1, 1, "t", 0, null, true));
            RegisteredCard card = new RegisteredCard("GPU-1", 0, 10, 81559, 100, null, 0, CardMode.HAMI_CORE, true);
            assertEquals("", card.type());
            assertEquals(81559L << 20, card.memoryBytes());
        }

        @Test
        void deviceShare() {
            rejects(() -> new DeviceShare("", "NVIDIA", 1, 1));
            rejects(() -> new DeviceShare("GPU-1", "NVIDIA", -1, 1));
            rejects(() -> new DeviceShare("GPU-1", "NVIDIA", 1, -1));
            DeviceShare share = new DeviceShare("GPU-1", null, 500, 5);
            assertEquals("", share.vendor());
            assertEquals(500L << 20, share.memoryBytes());
        }

        @Test
        void containerShares() {
            rejects(() -> new ContainerShares(-1, "a", false, List.of()));
            rejects(() -> new ContainerShares(0, "a", false, null));
            assertEquals("", new ContainerShares(0, null, false, List.of()).name());
        }

        @Test
        void containerSharesKeepsItsOwnCopyOfTheDevices() {
            List<DeviceShare> devices = new ArrayList<>(List.of(new DeviceShare("GPU-1", "NVIDIA", 1, 1)));
            ContainerShares container = new ContainerShares(0, "a", false, devices);
            devices.clear();
            assertEquals(1, container.devices().size());
            assertThrows(UnsupportedOperationException.class, () -> container.devices().clear());
        }

        @Test
        void podRefAndPlacement() {
            rejects(() -> new PodRef("", "p", "u"));
            rejects(() -> new PodRef("ns", "", "u"));
            rejects(() -> new PodRef("ns", "p", ""));
            rejects(() -> new PodRef("ns", "p", null));
            PodRef pod = new PodRef("ns", "p", "u");
            rejects(() -> new PodPlacement(null, "node", PodPhase.RUNNING, false, List.of()));
            rejects(() -> new PodPlacement(pod, "", PodPhase.RUNNING, false, List.of()));
            rejects(() -> new PodPlacement(pod, "node", null, false, List.of()));
            assertEquals(List.of(), new PodPlacement(pod, "node", PodPhase.RUNNING, false, List.of()).migInstances());
        }

        @Test
        void migInstance() {
            rejects(() -> new MigInstance(0, 0, "", "1g.10gb", 0, 1, "MIG-1", 1, 0));
            MigInstance pending = new MigInstance(0, 0, "GPU-1", null, 0, 1, null, 1, 0);
            assertEquals("", pending.profile());
            assertFalse(pending.ready());
            assertTrue(new MigInstance(0, 0, "GPU-1", "1g.10gb", 0, 1, "MIG-1", 1, 0).ready());
        }

        @Test
        void quotaLimit() {
            rejects(() -> new QuotaLimit("", "q", QuotaResource.GPU_MEMORY_MIB, 1));
            rejects(() -> new QuotaLimit("ns", "", QuotaResource.GPU_MEMORY_MIB, 1));
            rejects(() -> new QuotaLimit("ns", "q", null, 1));
            rejects(() -> new QuotaLimit("ns", "q", QuotaResource.GPU_MEMORY_MIB, -1));
        }

        @Test
        void usageRecords() {
            rejects(() -> new DeviceUsage(-1, "GPU-1", 0, 0, 0, 0, 0, 100, 0, 0, 0));
            rejects(() -> new DeviceUsage(0, "", 0, 0, 0, 0, 0, 100, 0, 0, 0));
            rejects(() -> new ContainerUsage("", "main", List.of()));
            rejects(() -> new ContainerUsage("uid", "", List.of()));
            rejects(() -> new ProcessOwner("", "cid"));
            rejects(() -> new ProcessOwner("uid", ""));
            rejects(() -> new NodePod(null, List.of(), Map.of(), Optional.empty()));
            rejects(() -> new NodePod(new PodRef("ns", "p", "u"), List.of(), Map.of(), null));
        }

        @Test
        void nodePodKeepsItsOwnCopies() {
            List<String> names = new ArrayList<>(List.of("main"));
            Map<String, String> ids = new HashMap<>(Map.of("cid", "main"));
            NodePod pod = new NodePod(new PodRef("ns", "p", "u"), names, ids, Optional.empty());
            names.clear();
            ids.clear();
            assertEquals(List.of("main"), pod.containerNames());
            assertEquals(Map.of("cid", "main"), pod.containerIdToName());
        }

        @Test
        void hostCardReading() {
            rejects(() -> new HostCardReading(-1, "GPU-1", "n", OptionalLong.empty(), OptionalLong.empty(),
                    OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(),
                    Optional.empty(), Optional.empty()));
            rejects(() -> new HostCardReading(0, "", "n", OptionalLong.empty(), OptionalLong.empty(),
                    OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(),
                    Optional.empty(), Optional.empty()));
            rejects(() -> new HostCardReading(0, "GPU-1", "n", null, OptionalLong.empty(),
                    OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(),
                    Optional.empty(), Optional.empty()));
            HostCardReading reading = new HostCardReading(0, "GPU-1", "NVIDIA H100 80GB HBM3", OptionalLong.empty(),
                    OptionalLong.empty(), OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(),
                    OptionalDouble.empty(), Optional.empty(), Optional.empty());
            assertEquals("NVIDIA-NVIDIA H100 80GB HBM3", reading.deviceType());
        }

        @Test
        void gapsNeverGoNegative() {
            PodRef pod = new PodRef("ns", "p", "u");
            assertEquals(0, new UsageView.ContainerMemoryGap(pod, "c", 0, "GPU-1", 100, 200).idleBytes());
            UsageView.CardMemoryGap gap = new UsageView.CardMemoryGap(null, 100, 200, 300);
            assertEquals(0, gap.unaccountedBytes());
            assertEquals(0, gap.beyondAllocationBytes());
        }
    }
}
