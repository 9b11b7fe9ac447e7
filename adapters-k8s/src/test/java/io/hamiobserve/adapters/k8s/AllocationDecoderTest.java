package io.hamiobserve.adapters.k8s;

import io.hamiobserve.domain.DeviceShare;
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
    })
    void aMalformedDeviceIsDroppedAndTheRestKept(String value, String reason) {
        var decoded = AllocationDecoder.decode(value);
        assertEquals(List.of(reason), decoded.problems().stream().map(Problem::reason).toList());
        assertEquals(List.of(List.of(new DeviceShare("GPU-2", "NVIDIA", 1, 1))), decoded.containers());
    }
}
