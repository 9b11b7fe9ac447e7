package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.FleetScope;
import io.hamiobserve.domain.fleet.Physical;
import io.hamiobserve.ports.FleetHistory;
import io.hamiobserve.ports.SourceUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cards' physical side on the console's pages, over the fixed fleet with and without DCGM's
 * counters: one figure per quantity with its source named, the counters and the two-sources check
 * on the card page, and, without any DCGM series, one note per page and the node role's figures.
 */
class ConsolePhysicalTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final double GIB = FixedHistory.GIB;

    @RegisterExtension
    final ServedConsole served = new ServedConsole();

    /** The fixed fleet, and DCGM's counters for its first card when {@code physical} is set. */
    private static FleetHistory fleet(List<Physical> physical) {
        FixedHistory fixed = new FixedHistory();
        return new ForwardingHistory(fixed) {
            @Override
            public FleetReadings readings(Instant at, FleetScope scope) throws SourceUnavailableException {
                FleetReadings r = fixed.readings(at, scope);
                return new FleetReadings(r.at(), r.registered(), r.hosts(), r.allocations(), r.names(), r.uses(),
                        r.unmanaged(), r.quotas(), r.sources(), r.ledgerAges(), r.skips(), r.targetsDown(),
                        r.containersByNode(), r.provenance(), physical);
            }
        };
    }

    /** GPU-A0 hot, throttled by heat, Xid 79, and 3 GiB apart from HAMi's 5.5 GiB for the whole window. */
    private static Physical hotCard() {
        Figure none = Figure.missing(Absence.NOT_SUPPORTED);
        return new Physical("GPU-A0", "node-a", Figure.of(88), Figure.of(95), Figure.of(390), Figure.of(390 * 3600),
                Figure.of(1050), Figure.of(97), "DCGM_FI_DEV_GPU_UTIL", Figure.of(2.5 * GIB), Figure.of(79),
                Figure.of(0x20 | 0x40), none, Figure.of(3 * GIB));
    }

    private String start(FleetHistory history) {
        return served.start(history, ConsoleSettings.defaults(), NOW);
    }

    private String get(String url) throws Exception {
        return served.get(url);
    }

    private static int count(String text, String part) {
        Matcher matcher = Pattern.compile(Pattern.quote(part)).matcher(text);
        int count = 0;
        while (matcher.find()) {
            count++;
        }
        return count;
    }

    @Test
    void withDcgmTheCardPageShowsItsCountersAndNamesTheSourceOfEachFigure() throws Exception {
        String base = start(fleet(List.of(hotCard())));
        String card = get(base + "/card?uuid=GPU-A0");
        // One temperature and one power, DCGM's (not the node role's 48 °C and 150 W), its source named.
        assertTrue(card.contains("88 °C (DCGM exporter)"), card);
        assertTrue(card.contains("390 W (DCGM exporter)"), card);
        assertFalse(card.contains("48 °C"), "the node role's figure is not shown beside DCGM's");
        assertTrue(card.contains("Physical counters (DCGM exporter on node-a)"), card);
        assertTrue(card.contains("1,050 MHz"), card);
        assertTrue(card.contains("390.0 Wh"), card);
        assertTrue(card.contains("97 % (DCGM_FI_DEV_GPU_UTIL)"), card);
        assertTrue(card.contains("software thermal slowdown, hardware thermal slowdown"), card);
        assertTrue(card.contains("Xid 79"), card);
        // ECC not reported for this card: its reason, never 0.
        assertTrue(Pattern.compile("ECC uncorrectable</dt>\\s*<dd[^>]*>no data — the driver does not report")
                .matcher(card).find(), card);
        // The two memory sources, and the warning that they disagree.
        assertTrue(card.contains("5.5 GiB (hami-observe node) vs 2.5 GiB (DCGM)"), card);
        assertTrue(card.contains("have differed by more than 1.0 GiB for 15m"), card);
        assertFalse(card.contains(PhysicalView.NO_DCGM));
        // The other card has no DCGM series: the node role's figure, or its reason; no page note either.
        String other = get(base + "/card?uuid=GPU-A1");
        assertFalse(other.contains("Physical counters"), other);
        assertFalse(other.contains(PhysicalView.NO_DCGM), "DCGM is scraped, it just does not report this card");
    }

    @Test
    void withDcgmTheOverviewAndNodePagesShowTheHottestCardTheDrawAndWhatNeedsAttention() throws Exception {
        String base = start(fleet(List.of(hotCard())));
        String overview = get(base + "/");
        assertTrue(overview.contains("Hottest card"), overview);
        assertTrue(overview.contains("card 0 of node-a (DCGM exporter)"), overview);
        // 390 W from DCGM; the other card reports no power: counted apart, not as 0.
        assertTrue(overview.contains("390 W"), overview);
        assertTrue(overview.contains("1 card, 1 without a reading"), overview);
        assertTrue(overview.contains("Cards needing attention"), overview);
        String node = get(base + "/node?name=node-a");
        assertTrue(node.contains("software thermal slowdown, hardware thermal slowdown"), node);
        assertTrue(node.contains(">79<"), node);
        String csv = get(base + "/?export=hardware.csv");
        assertTrue(csv.contains("GPU-A0") && csv.contains("79") && csv.contains("disagree"), csv);
    }

    @Test
    void withoutDcgmEachPageSaysSoOnceAndShowsTheNodeRolesFigures() throws Exception {
        String base = start(fleet(List.of()));
        for (String page : List.of("/", "/node?name=node-a", "/card?uuid=GPU-A0")) {
            String body = get(base + page);
            assertEquals(1, count(body, "No DCGM exporter scraped"), page + " says it once");
            assertFalse(body.contains("Cards needing attention"), page);
            assertFalse(body.contains("Physical counters"), page);
        }
        String card = get(base + "/card?uuid=GPU-A0");
        assertTrue(card.contains("48 °C (hami-observe node (NVML))"), card);
        assertTrue(card.contains("150 W (hami-observe node (NVML))"), card);
        // A card whose driver reports no temperature: its reason, never 0.
        String other = get(base + "/card?uuid=GPU-A1");
        assertTrue(other.contains("no data — the driver does not report this for the card"), other);
        assertFalse(other.contains("0 °C"), other);
    }
}
