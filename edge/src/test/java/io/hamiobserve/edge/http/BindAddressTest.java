package io.hamiobserve.edge.http;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BindAddressTest {
    @Test
    void bindAddressesAsTheFlagsSpellThem() {
        assertEquals(new BindAddress("0.0.0.0", 9395), BindAddress.parse(":9395"));
        assertEquals(new BindAddress("::1", 9394), BindAddress.parse("[::1]:9394"));
        assertEquals(new BindAddress("127.0.0.1", 0), BindAddress.parse("127.0.0.1:0"));
        assertThrows(IllegalArgumentException.class, () -> BindAddress.parse("9395"));
        assertThrows(IllegalArgumentException.class, () -> BindAddress.parse(":http"));
        assertThrows(IllegalArgumentException.class, () -> BindAddress.parse(":70000"));
    }
}
