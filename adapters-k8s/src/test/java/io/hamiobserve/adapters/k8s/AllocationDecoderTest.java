package io.hamiobserve.adapters.k8s;

import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.ports.spi.DeviceVendor.Problem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class AllocationDecoderTest {
    @Test
    void keepsContainerPositionsIncludingEmptyEntries() {
        var decoded = AllocationDecoder.decode("GPU-1,NVIDIA,500,5:GPU-2,NVIDIA,600,6:;;GPU-1,NVIDIA,100,10:;");
        assertEquals(List.of(), decoded.problems());
        assertEquals(List.of(
                List.of(new DeviceShare("GPU-1", "NVIDIA", 500, 5), new DeviceShare("GPU-2", "NVIDIA", 600, 6)),
                List.of(),
                List.of(new DeviceShare("GPU-1", "NVIDIA", 100, 10))), decoded.containers());
    }

    @Test
    void aValueWithoutTheFinalSemicolonStillCountsItsLastContainer() {
        assertEquals(2, AllocationDecoder.decode(";GPU-1,NVIDIA,1,1:").containers().size());
        assertEquals(0, AllocationDecoder.decode("").containers().size());
        assertEquals(1, AllocationDecoder.decode(";").containers().size());
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "GPU-1,NVIDIA,500:GPU-2,NVIDIA,1,1:;              | wrong_field_count",
            "GPU-1,NVIDIA,abc,5:GPU-2,NVIDIA,1,1:;            | not_a_number",
            "GPU-1,NVIDIA,-500,5:GPU-2,NVIDIA,1,1:;           | negative_number",
            "GPU-1,NVIDIA,500,99999999999999999999:GPU-2,NVIDIA,1,1:; | number_overflow",
            "',NVIDIA,500,5:GPU-2,NVIDIA,1,1:;'               | missing_uuid",
            // The pod: any MiB of 2^43 or more used to overflow bytes at render time.
            "GPU-a,NVIDIA,9000000000000,10:GPU-2,NVIDIA,1,1:;  | number_overflow",
            "GPU-a,NVIDIA,1073741825,10:GPU-2,NVIDIA,1,1:;     | number_overflow",
            "GPU-a,NVIDIA,1,4611686018427387904:GPU-2,NVIDIA,1,1:; | number_overflow",
            "GPU-a,NVIDIA,1e3,10:GPU-2,NVIDIA,1,1:;            | not_a_number",
            "GPU-a,NVIDIA,NaN,10:GPU-2,NVIDIA,1,1:;            | not_a_number",
            "GPU-a,NVIDIA,１２,10:GPU-2,NVIDIA,1,1:;            | not_a_number",
            "GPU-a,NVIDIA,0x10,10:GPU-2,NVIDIA,1,1:;           | not_a_number",
            "GPU\u0000a,NVIDIA,1,1:GPU-2,NVIDIA,1,1:;         | bad_uuid",
            "GPU-ä,NVIDIA,1,1:GPU-2,NVIDIA,1,1:;               | bad_uuid",
    })
    void aMalformedDeviceIsDroppedAndTheRestKept(String value, String reason) {
        var decoded = AllocationDecoder.decode(value.replace("\\u0000", "\u0000"));
        assertEquals(List.of(reason), decoded.problems().stream().map(Problem::reason).toList());
        assertEquals(List.of(List.of(new DeviceShare("GPU-2", "NVIDIA", 1, 1))), decoded.containers());
    }

    @Test
    void theLargestSharesTheDomainAllowsAreDecoded() {
        var decoded = AllocationDecoder.decode("GPU-a,NVIDIA,1073741824,1073741824:;");
        assertEquals(List.of(), decoded.problems());
        assertEquals(List.of(List.of(new DeviceShare("GPU-a", "NVIDIA", Quantities.MAX_MEMORY_MIB,
                Quantities.MAX_PERCENT))), decoded.containers());
    }

    @Test
    void hugeCountsOfEntriesAreCutAtTheirBounds() {
        var devices = AllocationDecoder.decode("GPU-a,N,1,1:".repeat(10_000) + ";");
        assertEquals(List.of("too_many_devices"), devices.problems().stream().map(Problem::reason).toList());
        assertEquals(InputLimits.MAX_DEVICES_PER_CONTAINER, devices.containers().getFirst().size());

        var containers = AllocationDecoder.decode("GPU-a,N,1,1:;".repeat(5_000));
        assertEquals(List.of("too_many_containers"), containers.problems().stream().map(Problem::reason).toList());
        assertEquals(InputLimits.MAX_CONTAINERS, containers.containers().size());
    }

    @Test
    void aValueLongerThanAnApiServerStoresIsRefusedWhole() {
        var decoded = AllocationDecoder.decode("GPU-a,N,1,1:".repeat(30_000) + ";");
        assertEquals(List.of("too_long"), decoded.problems().stream().map(Problem::reason).toList());
        assertEquals(List.of(), decoded.containers());
    }
}
