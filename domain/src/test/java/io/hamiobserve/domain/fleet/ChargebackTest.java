package io.hamiobserve.domain.fleet;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.hamiobserve.domain.fleet.Readings.GIB;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ChargebackTest {
    @Test
    void byteSecondsBecomeGibHoursAndPercentSecondsCardHours() {
        Duration day = Duration.ofDays(1);
        // ml: 8 GiB held all day, 2 GiB used; 30 % of a card held, 20 % used.
        NamespaceAccrual ml = new NamespaceAccrual("ml", Figure.of(8 * GIB * 86400), Figure.of(2 * GIB * 86400),
                Figure.of(30.0 * 86400), Figure.of(20.0 * 86400));
        NamespaceAccrual vision = new NamespaceAccrual("vision", Figure.of(24 * GIB * 86400),
                Figure.missing(Absence.NO_USAGE_YET), Figure.of(100.0 * 86400), Figure.of(0));
        List<Chargeback> bills = Chargeback.of(List.of(vision, ml), day, Map.of("ml", Figure.of(16 * GIB)));
        Chargeback bill = bills.getFirst();
        assertEquals("ml", bill.namespace());
        assertEquals(8 * 24, bill.memoryAllocatedGibHours().orElseThrow(), 1e-9);
        assertEquals(2 * 24, bill.memoryUsedGibHours().orElseThrow(), 1e-9);
        assertEquals(0.3 * 24, bill.coresAllocatedCardHours().orElseThrow(), 1e-9);
        assertEquals(0.25, bill.memoryEfficiency().orElseThrow(), 1e-9);
        assertEquals(20.0 / 30, bill.coresEfficiency().orElseThrow(), 1e-9);
        assertEquals(0.25, bill.memoryShareOfCluster().orElseThrow(), 1e-9);
        assertEquals(0.5, bill.memoryQuotaHeld().orElseThrow(), 1e-9);
        Chargeback noUsage = bills.get(1);
        assertEquals(Figure.missing(Absence.NO_USAGE_YET), noUsage.memoryEfficiency());
        assertEquals(Figure.missing(Absence.NOT_REPORTED), noUsage.memoryQuotaHeld());
        assertEquals(0, noUsage.coresEfficiency().orElseThrow());
    }
}
