package io.hamiobserve.vendors.protocol;

import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.Quantities;
import io.hamiobserve.ports.spi.Problem;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ArithmeticTest {
    @Test
    void scaledFiguresRoundDownAndStopAtTheirBound() {
        Problems problems = new Problems("r");
        assertEquals(OptionalLong.of(8192), Numbers.scaled(1, 512 * 16, 1, "m", Quantities.MAX_MEMORY_MIB, problems));
        assertEquals(OptionalLong.of(10922), Numbers.scaled(4, 512 * 16, 3, "m", Quantities.MAX_MEMORY_MIB, problems));
        assertEquals(OptionalLong.empty(), Numbers.scaled(Long.MAX_VALUE, 25_600, 1, "m", Quantities.MAX_MEMORY_MIB,
                problems));
        assertEquals(List.of("number_overflow"), problems.list().stream().map(Problem::reason).toList());
    }

    @Test
    void identitiesHamiBuildsFromANodeNameMayBeLongerThanAPluginsUuid() {
        String id = "n".repeat(InputLimits.MAX_NAME_CHARS) + "-cambricon-mlu-1023";
        Problems plugin = new Problems("k");
        assertEquals(List.of(List.of()), AllocationFormat.decode(id + ",MLU,1,1:;", InputLimits.MAX_UUID_CHARS, plugin));
        assertEquals(List.of("bad_uuid"), plugin.list().stream().map(Problem::reason).toList());
        Problems synthesised = new Problems("k");
        assertEquals(List.of(List.of(new DeviceShare(id, "MLU", 1, 1))),
                AllocationFormat.decode(id + ",MLU,1,1:;", InputLimits.MAX_SYNTHESISED_ID_CHARS, synthesised));
        assertEquals(List.of(), synthesised.list());
    }
}
