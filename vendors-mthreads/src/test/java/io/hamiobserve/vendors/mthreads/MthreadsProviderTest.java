package io.hamiobserve.vendors.mthreads;

import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.PodAllocation;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;

import static io.hamiobserve.vendors.protocol.testing.Decodings.allocation;
import static io.hamiobserve.vendors.protocol.testing.Decodings.cards;
import static io.hamiobserve.vendors.protocol.testing.Decodings.shares;
import static io.hamiobserve.vendors.protocol.testing.Decodings.withCapacity;
import static org.junit.jupiter.api.Assertions.assertEquals;

class MthreadsProviderTest {
    private final MthreadsProvider provider = new MthreadsProvider();

    @Test
    void hamisCapacityLiteralMakesACardOfSixteenSlices() {
        NodeDevices devices = withCapacity(provider, "test", Map.of(MthreadsProvider.CORES, "1",
                MthreadsProvider.MEMORY, "1"));
        assertEquals(List.of(), devices.problems());
        assertEquals(List.of(new VendorCard(new RegisteredCard("test-mthreads-0", 0, 100, 8192, 16, "Mthreads", 0,
                CardMode.HAMI_CORE, true), "Mthreads", new DeviceUnits(MemoryUnit.MIB, CoreUnit.CORE_SLICES))),
                devices.cards());
    }

    @Test
    void eightGpusOfSixteenSlicesEach() {
        // 128 slices and 256 memory units of 512 MiB: 8 cards of 16 GiB.
        NodeDevices devices = withCapacity(provider, "mt", Map.of(MthreadsProvider.CORES, "128",
                MthreadsProvider.MEMORY, "256"));
        assertEquals(8, devices.cards().size());
        assertEquals(List.of(16384L), cards(devices).stream().map(RegisteredCard::memoryMib).distinct().toList());
        assertEquals("mt-mthreads-7", cards(devices).getLast().uuid());
    }

    @Test
    void hamisAllocationLiteralKeepsItsRawSlice() {
        PodAllocation pod = allocation(provider, "hami.io/mthreads-vgpu-devices-allocated", "test1,Mthreads,1000,1:;");
        assertEquals(List.of(shares(new DeviceShare("test1", "Mthreads", 1000, 1))), pod.containers());
        // One slice of sixteen, which HAMi's series report as 1.
        assertEquals(OptionalDouble.of(6.25), CoreUnit.CORE_SLICES.percentOfCard(1, 16));
        // Only the allocated key is written; the to-allocate key is registered but empty.
        assertEquals(Set.of("hami.io/mthreads-vgpu-devices-allocated"), provider.keys().podAnnotations());
    }
}
