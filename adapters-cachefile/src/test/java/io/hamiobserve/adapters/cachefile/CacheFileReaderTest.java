package io.hamiobserve.adapters.cachefile;

import io.hamiobserve.testkit.CacheFileImage;

import io.hamiobserve.adapters.cachefile.layout.CacheLayout;

import io.hamiobserve.domain.DeviceUsage;
import io.hamiobserve.domain.Quantities;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.List;

import static io.hamiobserve.adapters.cachefile.Images.GIB;
import static io.hamiobserve.adapters.cachefile.Images.GPU_A;
import static io.hamiobserve.adapters.cachefile.Images.GPU_B;
import static io.hamiobserve.adapters.cachefile.Images.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CacheFileReaderTest {
    private static final CacheLayout V1 = CacheLayout.V1;

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void readsEveryV1MinorVersion(int minor) {
        ReadResult result = Images.read(Images.twoDevices(CacheFileImage.v1(minor)).build().toBytes());
        assertTrue(result.ok(), () -> result.reason() + ": " + result.detail());
        CacheFileContent content = result.content();
        assertEquals("v1." + minor, content.version());
        assertEquals(2_008_953, content.fileSize());
        assertEquals(4242, content.ownerPid());
        assertEquals(1_760_000_000L, content.lastKernelTime());
        assertEquals(3, content.slots().size());
        assertEquals(List.of(), content.problems());

        List<DeviceUsage> devices = ContainerAccounting.of(content);
        assertEquals(List.of(
                new DeviceUsage(0, GPU_A, 3630 * MIB, 600 * MIB, 30 * MIB, 3000 * MIB, 8 * GIB, 30, 65, 2,
                        1_760_000_000L),
                new DeviceUsage(1, GPU_B, 150 * MIB, 100 * MIB, 0, 50 * MIB, 4 * GIB, 100, 5, 1, 1_760_000_000L)),
                devices);
    }

    @Test
    void readsV0WithoutLastKernelTime() {
        ReadResult result = Images.read(Images.twoDevices(CacheFileImage.v0()).build().toBytes());
        assertTrue(result.ok(), () -> result.reason() + ": " + result.detail());
        assertEquals("v0", result.content().version());
        assertEquals(1_197_897, result.content().fileSize());
        List<DeviceUsage> devices = ContainerAccounting.of(result.content());
        assertEquals(new DeviceUsage(0, GPU_A, 3630 * MIB, 600 * MIB, 30 * MIB, 3000 * MIB, 8 * GIB, 30, 65, 2, 0),
                devices.get(0));
        assertEquals(2, devices.size());
    }

    @Test
    void acceptsTheStructSizeWithoutTheWritersExtraByte() {
        byte[] bytes = Images.resized(Images.v12(), V1.structSize);
        assertTrue(Images.read(bytes).ok());
    }

    @Test
    void rejectsWrongMagicAndUnfinishedFiles() {
        byte[] bytes = Images.v12();
        Images.le(bytes).putInt(0, 12345);
        assertEquals(Skips.Reason.BAD_MAGIC, Images.read(bytes).reason());
        Images.le(bytes).putInt(0, 1);
        assertEquals(Skips.Reason.NOT_INITIALIZED, Images.read(bytes).reason());
        assertEquals(Skips.Reason.NOT_INITIALIZED, Images.read(new byte[0]).reason());
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 804_681, 1_197_895, 1_500_000, 2_008_951, 2_008_954, 2_100_000})
    void rejectsSizesOfNoKnownLayout(int size) {
        byte[] bytes = Images.resized(Images.v12(), size);
        ReadResult result = Images.read(bytes);
        assertEquals(Skips.Reason.UNKNOWN_SIZE, result.reason(), result.detail());
        assertTrue(result.detail().startsWith(size + " bytes"), result.detail());
    }

    @Test
    void rejectsUnknownVersions() {
        byte[] bytes = Images.v12();
        Images.le(bytes).putInt(V1.minorVersion, 3);
        ReadResult minor = Images.read(bytes);
        assertEquals(Skips.Reason.UNKNOWN_VERSION, minor.reason());
        assertTrue(minor.detail().contains("1.3"), minor.detail());
        Images.le(bytes).putInt(V1.minorVersion, 2).putInt(V1.majorVersion, 2);
        assertEquals(Skips.Reason.UNKNOWN_VERSION, Images.read(bytes).reason());
        Images.le(bytes).putInt(V1.majorVersion, 0);
        assertEquals(Skips.Reason.UNKNOWN_VERSION, Images.read(bytes).reason());
    }

    @Test
    void rejectsOldMinorVersionsWithDataInTheSeqlockWords() {
        byte[] bytes = Images.twoDevices(CacheFileImage.v1(1)).build().toBytes();
        Images.le(bytes).putLong(V1.slotOffset(1) + V1.slotSeqlock + 8, 2);
        ReadResult result = Images.read(bytes);
        assertEquals(Skips.Reason.UNKNOWN_LAYOUT, result.reason());
        assertTrue(result.detail().contains("slot 1"), result.detail());
    }

    @Test
    void clampsDeviceAndProcessCounts() {
        byte[] bytes = Images.v12();
        ByteBuffer b = Images.le(bytes);
        b.putLong(V1.deviceNum, -1L);
        b.putInt(V1.procNum, 1_000_000);
        ReadResult result = Images.read(bytes);
        assertTrue(result.ok());
        assertEquals(16, result.content().devices().size());
        assertEquals(1024, result.content().slots().size());
        List<Skips.Reason> reasons = result.content().problems().stream().map(CacheFileContent.Problem::reason).toList();
        assertTrue(reasons.contains(Skips.Reason.DEVICE_NUM_CLAMPED), reasons.toString());
        assertTrue(reasons.contains(Skips.Reason.PROC_NUM_CLAMPED), reasons.toString());
        // Positions 2..15 have empty UUIDs: skipped, the two real devices still read.
        assertEquals(2, ContainerAccounting.of(result.content()).size());

        b.putInt(V1.procNum, -5);
        ReadResult negative = Images.read(bytes);
        assertEquals(0, negative.content().slots().size());
        assertEquals(0L, ContainerAccounting.of(negative.content()).get(0).usedBytes());
    }

    @Test
    void skipsDevicesWhoseUuidIsNotUsableText() {
        byte[] bytes = Images.v12();
        ByteBuffer b = Images.le(bytes);
        for (int i = 0; i < CacheLayout.UUID_BYTES; i++) {
            b.put(V1.uuidOffset(0) + i, (byte) 'A');
        }
        b.put(V1.uuidOffset(1) + 4, (byte) 0x07);
        ReadResult result = Images.read(bytes);
        assertTrue(result.ok());
        assertEquals(List.of(Skips.Reason.BAD_UUID, Skips.Reason.BAD_UUID),
                result.content().problems().stream().map(CacheFileContent.Problem::reason).toList());
        assertEquals(List.of(), ContainerAccounting.of(result.content()));

        b.put(V1.uuidOffset(1), (byte) 0);
        ReadResult empty = Images.read(bytes);
        assertEquals(Skips.Reason.EMPTY_UUID, empty.content().problems().get(1).reason());
    }

    @Test
    void skipsSlotsWithAnUnknownStatusAndCountsOnlyLiveOnes() {
        byte[] bytes = Images.v12();
        Images.le(bytes).putInt(V1.slotOffset(1) + V1.slotStatus, 7);
        ReadResult result = Images.read(bytes);
        assertEquals(List.of(Skips.Reason.BAD_STATUS),
                result.content().problems().stream().map(CacheFileContent.Problem::reason).toList());
        DeviceUsage first = ContainerAccounting.of(result.content()).get(0);
        assertEquals(1320 * MIB, first.usedBytes());
        assertEquals(1, first.liveProcesses());
        assertEquals(25, first.smUtilPercent());
    }

    @Test
    void figuresBeyondAnyCardSkipTheirSlotOrDeviceWithNumberOverflow() {
        byte[] bytes = Images.v12();
        ByteBuffer b = Images.le(bytes);
        // A uint64 of 2^64 - 2 (a "negative" long) in process 101, 2^50 + 1 bytes in process 102's context.
        b.putLong(V1.slotOffset(0) + V1.usedOffset(0, CacheLayout.USED_TOTAL), -2L);
        b.putLong(V1.slotOffset(1) + V1.usedOffset(0, CacheLayout.USED_CONTEXT), Quantities.MAX_MEMORY_BYTES + 1);
        // Device 1's limit beyond any card; the exited slot's garbage does not count and is not reported.
        b.putLong(V1.limit + 8, -1L);
        b.putLong(V1.slotOffset(2) + V1.usedOffset(0, CacheLayout.USED_TOTAL), -1L);
        b.putLong(V1.lastKernelTime, -7L);
        CacheFileContent content = Images.read(bytes).content();

        assertEquals(List.of("slot/number_overflow", "slot/number_overflow", "device/number_overflow"),
                content.problems().stream().map(p -> p.kind().label() + "/" + p.reason().label()).sorted(
                        java.util.Comparator.reverseOrder()).toList());
        List<DeviceUsage> devices = ContainerAccounting.of(content);
        assertEquals(1, devices.size(), devices::toString);
        assertEquals(Images.GPU_A, devices.getFirst().uuid());
        assertEquals(0, devices.getFirst().usedBytes());
        assertEquals(0, devices.getFirst().liveProcesses());
        assertEquals(0, devices.getFirst().lastKernelEpochSeconds());
    }

    @Test
    void theLargestFiguresAFileMayHoldSumWithoutWrapping() {
        CacheFileImage.Builder builder = CacheFileImage.v1(2).device(Images.GPU_A, Quantities.MAX_MEMORY_BYTES, 100);
        // Context, module and data of 2^48 each: a total of 3 * 2^48 bytes per process, within the bound.
        long quarter = Quantities.MAX_MEMORY_BYTES / 4;
        CacheFileImage.DeviceUse largest = CacheFileImage.DeviceUse.of(quarter, quarter, quarter, Quantities.MAX_PERCENT);
        for (int p = 0; p < CacheLayout.MAX_PROCS; p++) {
            builder.process(p + 1, p + 1, largest);
        }
        CacheFileContent content = Images.read(builder.build().toBytes()).content();
        assertEquals(List.of(), content.problems());
        ContainerAccounting accounting = new ContainerAccounting();
        // 16 files of 1,024 processes: 2^14 * 3 * 2^48 bytes is past a long; the sum saturates, the parts do not.
        for (int file = 0; file < CacheFileSource.MAX_CACHE_FILES; file++) {
            accounting.add(content, problem -> { });
        }
        DeviceUsage device = accounting.devices().getFirst();
        assertEquals(Long.MAX_VALUE, device.usedBytes());
        assertEquals(quarter << 14, device.contextBytes());
        assertEquals((long) CacheLayout.MAX_PROCS * CacheFileSource.MAX_CACHE_FILES * Quantities.MAX_PERCENT,
                device.smUtilPercent());
        assertEquals(CacheLayout.MAX_PROCS * CacheFileSource.MAX_CACHE_FILES, device.liveProcesses());
    }

    @Test
    void readsOnlyTheHeaderAndTheSlotsInUse() {
        CacheFileReader reader = new CacheFileReader();
        Images.InMemoryFile file = new Images.InMemoryFile(Images.v12());
        ReadResult result;
        try {
            result = reader.read(file);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        assertTrue(result.ok());
        // The header with its version prefix in one read; seqlocked: the slot range is read three times.
        long expected = V1.procs + V1.tailLength() + 3L * 3 * V1.slotSize;
        assertEquals(expected, file.bytesRead);
        assertFalse(expected > 20_000);
    }
}
