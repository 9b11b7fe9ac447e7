package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.CardResources;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.FleetReadings;
import io.hamiobserve.domain.fleet.UsageOrigin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Use that does not come from HAMi-Core on the console's pages, over the fixed fleet with a
 * vendor's card whose exporter's container figure is the whole card's, and a whole card without
 * HAMi-Core measured per process by the driver: the source and the meaning beside the figures,
 * escaped, no gap from a figure of another meaning, and no "outside HAMi-Core" wording for the
 * whole card.
 */
class ConsoleExporterUsageTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final double GIB = FixedHistory.GIB;
    private static final String NPU = "npu-vdie-0001";
    /** Card ids an exporter carried: quotes, a backslash, markup; then a newline and 100 KB more. */
    private static final String HOSTILE = "npu-\"q\"\\b<script>alert(1)</script>";
    private static final String LONG = HOSTILE + "\n" + "x".repeat(100 * 1024);
    /** An exporter's name and meaning as a vendor module declares them: text, escaped like any other. */
    private static final UsageOrigin WHOLE_CARD = new UsageOrigin("npu<exporter>", "the whole card's figure & not the container's",
            "the whole card's figure & not the container's");

    @RegisterExtension
    final ServedConsole served = new ServedConsole();

    private static FixedHistory fleet() {
        FixedHistory fixed = new FixedHistory();
        fixed.alter = readings -> {
            List<FleetReadings.Registered> registered = new ArrayList<>(readings.registered());
            registered.add(new FleetReadings.Registered("npu-a", NPU, 0, "Ascend910B3", "", Figure.of(1),
                    Figure.of(64 * GIB), Figure.of(16 * GIB), Figure.of(20), Figure.of(10), Figure.of(1),
                    Figure.of(4)));
            List<FleetReadings.Host> hosts = new ArrayList<>(readings.hosts());
            Figure none = Figure.missing(io.hamiobserve.domain.fleet.Absence.NOT_REPORTED);
            hosts.add(new FleetReadings.Host("", NPU, Figure.of(20 * GIB), Figure.of(55), none, none, none));
            registered.add(new FleetReadings.Registered("npu-a", HOSTILE, 1, "Ascend910B3", "", Figure.of(1),
                    Figure.of(64 * GIB), Figure.of(0), Figure.of(20), Figure.of(0), Figure.of(0), Figure.of(4)));
            hosts.add(new FleetReadings.Host("", HOSTILE, Figure.of(1 * GIB), Figure.of(33), none, none, none));
            registered.add(new FleetReadings.Registered("npu-a", LONG, 2, "Ascend910B3", "", Figure.of(1),
                    Figure.of(64 * GIB), Figure.of(0), Figure.of(20), Figure.of(0), Figure.of(0), Figure.of(4)));
            List<FleetReadings.Allocation> allocations = new ArrayList<>(readings.allocations());
            allocations.add(new FleetReadings.Allocation("ai", "train", 0, "npu-a", NPU, Figure.of(16 * GIB),
                    Figure.of(50)));
            allocations.add(new FleetReadings.Allocation("gpu", "whole", 0, "node-a", "GPU-A1", Figure.of(0),
                    Figure.of(0)));
            List<FleetReadings.ContainerName> names = new ArrayList<>(readings.names());
            names.add(new FleetReadings.ContainerName("ai", "train", 0, "c", false));
            names.add(new FleetReadings.ContainerName("gpu", "whole", 0, "w", false));
            List<FleetReadings.Use> uses = new ArrayList<>(readings.uses());
            uses.add(new FleetReadings.Use("ai", "train", "c", "", NPU, Figure.of(20 * GIB), Figure.of(55),
                    Figure.missing(io.hamiobserve.domain.fleet.Absence.NOT_SUPPORTED)));
            uses.add(new FleetReadings.Use("gpu", "whole", "w", "node-a", "GPU-A1", Figure.of(0.75 * GIB),
                    Figure.of(12), Figure.of(1)));
            List<FleetReadings.Unmanaged> unmanaged = List.of(new FleetReadings.Unmanaged("node-a", "GPU-A1", "gpu",
                    "whole", "w", 0.75 * GIB));
            List<FleetReadings.Origin> origins = List.of(
                    new FleetReadings.Origin(NPU, "", "", "", new UsageOrigin("npu<exporter>", "", "")),
                    new FleetReadings.Origin(HOSTILE, "", "", "", new UsageOrigin("npu<exporter>", "", "")),
                    new FleetReadings.Origin(NPU, "ai", "train", "c", WHOLE_CARD),
                    new FleetReadings.Origin("GPU-A1", "gpu", "whole", "w", UsageOrigin.DRIVER_PROCESSES));
            return new FleetReadings(readings.at(), registered, hosts, allocations, names, uses, unmanaged,
                    readings.quotas(), readings.sources(), readings.ledgerAges(), readings.skips(),
                    readings.targetsDown(), readings.containersByNode(), readings.provenance(), readings.physical(),
                    origins, Map.of("Ascend910B3", new CardResources("huawei.com/Ascend910B3",
                    "huawei.com/Ascend910B3-memory", 1, "")));
        };
        return fixed;
    }

    private String start() {
        return served.start(fleet(), ConsoleSettings.defaults(), NOW);
    }

    private String get(String url) throws Exception {
        return served.get(url);
    }

    @Test
    void aVendorCardsPageNamesTheExporterAndSaysTheContainerFigureIsTheWholeCards() throws Exception {
        String card = get(start() + "/card?uuid=" + NPU);
        assertTrue(card.contains("Used (npu&lt;exporter&gt;)"), card);
        assertTrue(card.contains("55 % (npu&lt;exporter&gt;)"), card);
        assertTrue(card.contains("npu&lt;exporter&gt; — the whole card&#39;s figure &amp; not the container&#39;s")
                || card.contains("npu&lt;exporter&gt; — the whole card's figure &amp; not the container's"), card);
        assertFalse(card.contains("npu<exporter>"), "escaped");
        // No gap from the whole card's figure: the idle cell says why, never a number.
        assertTrue(card.contains("not the container's own use") || card.contains("not the container&#39;s own use"),
                card);
    }

    @Test
    void aWholeCardWithoutHamiCoreIsSaidToBeOneMeasuredPerProcess() throws Exception {
        String base = start();
        String card = get(base + "/card?uuid=GPU-A1");
        assertTrue(card.contains("a whole card without HAMi-Core: use measured per process by the driver"), card);
    }

    @Test
    void aVendorWorkloadsRecommendationIsInItsResourceNames() throws Exception {
        String workload = get(start() + "/workload?namespace=ai&pod=train&container=c");
        assertTrue(workload.contains("huawei.com/Ascend910B3-memory"), workload);
        assertFalse(workload.contains("nvidia.com/gpumem"), workload);
    }

    @Test
    void aHostileCardIdFromAnExporterIsEscapedTextOnItsPageAndTheNodes() throws Exception {
        String base = start();
        String card = get(base + "/card?uuid=" + java.net.URLEncoder.encode(HOSTILE, java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(card.contains("33 % (npu&lt;exporter&gt;)"), "the card's own page, its exporter's figure");
        assertTrue(card.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "the id as text");
        assertFalse(card.contains("<script>alert(1)"), "never markup");
        String node = get(base + "/node?name=npu-a");
        assertTrue(node.contains("&lt;script&gt;alert(1)&lt;/script&gt;\n" + "x".repeat(100 * 1024)),
                "both ids as text on the node's page, the 100 KB one whole");
        assertFalse(node.contains("<script>alert(1)"), "never markup");
        // The 100 KB id's own page is past any URL's length: a clear 414, not a failure of the
        // console; a control character in a card id asked for is refused with its reason.
        assertEquals(414, served.send(base + "/card?uuid=" + java.net.URLEncoder.encode(LONG,
                java.nio.charset.StandardCharsets.UTF_8)).statusCode());
        var newline = served.send(base + "/card?uuid=" + java.net.URLEncoder.encode(HOSTILE + "\n",
                java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(400, newline.statusCode());
        assertTrue(newline.body().contains("control characters"), newline.body());
        assertEquals(200, served.send(base + "/nodes").statusCode());
    }
}
