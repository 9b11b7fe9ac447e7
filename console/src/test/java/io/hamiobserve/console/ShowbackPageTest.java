package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.CardAccrual;
import io.hamiobserve.domain.fleet.CardHours;
import io.hamiobserve.domain.fleet.Prices;
import io.hamiobserve.domain.fleet.ShareAccrual;
import io.hamiobserve.ports.FleetHistory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Showback page over fixed card-hours: its lines, choices, prices, escaping and CSV export. */
class ShowbackPageTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final double HOUR = 3600;
    private static final String HOSTILE = "<script>alert(1)</script>";

    @RegisterExtension
    final ServedConsole served = new ServedConsole();
    private Duration asked;

    private FleetHistory fleet() {
        FixedHistory fixed = new FixedHistory();
        return new ForwardingHistory(fixed) {
            @Override
            public CardHours cardHours(Instant from, Instant to) {
                asked = Duration.between(from, to);
                return new CardHours(from, to, List.of(
                        new CardAccrual("", "node-a", "GPU-1", "A100-SXM4-80GB", 168 * HOUR, 0),
                        new CardAccrual("", "node-b", "GPU-2", "L4", 168 * HOUR, 24 * HOUR)),
                        List.of(new ShareAccrual("", "ml", "Deployment", "trainer", "trainer-1", "main", "node-a",
                                        "GPU-1", 84 * HOUR, 42 * HOUR, 0, 0),
                                new ShareAccrual("", HOSTILE, "Pod", "=cmd", "=cmd", "main", "node-b", "GPU-2",
                                        12 * HOUR, 0, 0, 0)), Map.of());
            }
        };
    }

    private String start(ConsoleSettings settings) {
        return served.start(fleet(), settings, NOW);
    }

    private String get(String url) throws Exception {
        return served.get(url);
    }

    @Test
    void thePageShowsTheLinesThatSumToTheFleetWithTheRuleAndNoCostWithoutPrices() throws Exception {
        String base = start(ConsoleSettings.defaults());
        String page = get(base + "/showback");
        assertEquals(Duration.ofDays(7), asked);
        assertTrue(page.contains("Card-hours seen"), page);
        assertTrue(page.contains("336"), "two cards for a week");
        assertTrue(page.contains("allocated but idle"), page);
        assertTrue(page.contains("unhealthy / unregistered"), page);
        assertTrue(page.contains(ShowbackReport.TOTAL), page);
        assertTrue(page.contains("HAMi places a share only where both"), page);
        assertFalse(page.contains(HOSTILE), "a namespace is escaped");
        assertTrue(page.contains("&lt;script&gt;"), page);
        assertFalse(page.contains(">Cost<"), "no prices, no cost column");
        assertTrue(page.contains("href=\"/showback\""), "the navigation links the page");
        // The funnel, and where it loses the most: no share was active, so all of it at the first stage.
        assertTrue(page.contains("Funnel by namespace, cards&#39; worth") || page.contains("Funnel by namespace, cards' worth"), page);
        assertTrue(page.contains("workloads.q=trainer"), "a loss links to its workload");
        String losses = get(base + "/showback?export=losses.csv");
        assertEquals(List.of("stage,namespace,workload,cards", "allocated → active,ml,Deployment/trainer,0.5",
                "allocated → active,<script>alert(1)</script>,Pod/=cmd,0.07142857142857142"), losses.lines().toList());
        String funnel = get(base + "/showback?funnel=model&export=funnel.csv");
        assertTrue(funnel.lines().toList().contains("fleet,1.8571428571428572,0.5714285714285714,0,0"), funnel);
        assertTrue(funnel.lines().toList().contains("L4,0.8571428571428571,0.07142857142857142,0,0"), funnel);
        get(base + "/showback?window=30d&by=model");
        assertEquals(Duration.ofDays(30), asked);
    }

    @Test
    void theCsvExportNeutralisesFormulasAndCarriesCostWithPrices() throws Exception {
        String base = start(ConsoleSettings.defaults().withPrices(new Prices(Map.of("A100-SXM4-80GB", 2.0, "L4", 1.0))));
        String csv = get(base + "/showback?by=workload&export=showback.csv");
        List<String> lines = csv.lines().toList();
        assertEquals("row,fleet_card_hours,allocated_card_hours,used_card_hours,idle_card_hours,efficiency,"
                + "memory_gib_hours,core_hours,cost,idle_cost", lines.getFirst());
        assertTrue(lines.contains("ml/Deployment/trainer,42,84,42,42,0.5,0,0,168,84"), csv);
        assertTrue(lines.contains("<script>alert(1)</script>/Pod/=cmd,0,12,0,12,0,0,0,12,12"), csv);
        assertTrue(lines.contains("total: every card seen,336,,,,,,,504,"), csv);
        // 42 used + 54 idle + (84 + 132) unallocated + 24 unhealthy = 336.
        assertTrue(lines.contains("allocated but idle,54,,,,,,,96,"), csv);
        assertTrue(lines.contains("unallocated,216,,,,,,,300,"), csv);
        assertTrue(lines.contains("unhealthy / unregistered,24,,,,,,,24,"), csv);
        String page = get(base + "/showback");
        assertTrue(page.contains(">Cost<") || page.contains("Cost</"), page);
    }

    /** The overview draws the Showback page's funnel component over the same week's card-hours. */
    @Test
    void theOverviewShowsTheSameFunnelAndLossesAsTheShowbackPage() throws Exception {
        String base = start(ConsoleSettings.defaults());
        String page = get(base + "/");
        assertEquals(Duration.ofDays(7), asked);
        assertTrue(page.contains("Funnel by namespace, cards&#39; worth") || page.contains("Funnel by namespace, cards' worth"), page);
        assertTrue(page.contains("Where the funnel loses the most"), page);
        assertTrue(page.contains("workloads.q=trainer"), "a loss links to its workload");
        assertFalse(page.contains(HOSTILE), "a namespace is escaped");
        for (String funnel : List.of("namespace", "model", "cluster")) {
            assertEquals(get(base + "/showback?funnel=" + funnel + "&export=funnel.csv"),
                    get(base + "/?funnel=" + funnel + "&export=funnel.csv"), funnel);
        }
        assertEquals(get(base + "/showback?export=losses.json"), get(base + "/?export=losses.json"));
        assertTrue(get(base + "/?funnel=model").contains("Funnel by model"));
    }

    /** The namespaces page bills from the same card-hours: its lines are the showback's rows by namespace. */
    @Test
    void theNamespacesPageBillsEachNamespaceFromShowbackWithCostAndEscapesItsName() throws Exception {
        String base = start(ConsoleSettings.defaults().withPrices(new Prices(Map.of("A100-SXM4-80GB", 2.0, "L4", 1.0))));
        List<String> lines = get(base + "/namespaces?export=namespaces.csv").lines().toList();
        List<String> header = List.of(lines.getFirst().split(","));
        assertTrue(header.containsAll(List.of("namespace", "card_hours_allocated", "card_hours_used", "efficiency",
                "memory_gib_hours_allocated", "core_hours_allocated", "share", "quota_held", "cost", "idle_cost")),
                header.toString());
        Map<String, String> ml = row(header, lines, "ml");
        assertEquals("84", ml.get("card_hours_allocated"));
        assertEquals("42", ml.get("card_hours_used"));
        assertEquals("0.5", ml.get("efficiency"));
        assertEquals("168", ml.get("cost"), "84 card-hours of an A100 at 2");
        assertEquals("84", ml.get("idle_cost"));
        assertEquals("0.875", ml.get("share"), "84 of the 96 card-hours allocated");
        Map<String, String> hostile = row(header, lines, HOSTILE);
        assertEquals("12", hostile.get("card_hours_allocated"));
        assertEquals("0", hostile.get("card_hours_used"));
        assertEquals("12", hostile.get("cost"));
        assertEquals(Duration.ofDays(7), asked, "the Showback page's default window");
        String page = get(base + "/namespaces");
        assertFalse(page.contains(HOSTILE), "a namespace is escaped");
        assertTrue(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), page);
        assertTrue(page.contains("Card-hours allocated"), page);
        get(base + "/namespaces?window=30d");
        assertEquals(Duration.ofDays(30), asked);
    }

    private static Map<String, String> row(List<String> header, List<String> lines, String namespace) {
        String line = lines.stream().filter(each -> each.startsWith(namespace + ",")).findFirst().orElseThrow(
                () -> new AssertionError("no row for " + namespace + " in " + lines));
        String[] cells = line.split(",", -1);
        Map<String, String> row = new java.util.HashMap<>();
        for (int i = 0; i < header.size(); i++) {
            row.put(header.get(i), cells[i]);
        }
        return row;
    }
}
