package io.hamiobserve.role.console;

import io.hamiobserve.adapters.prometheus.LocalPrometheus;
import io.hamiobserve.app.testing.CommandLines;
import io.hamiobserve.domain.fleet.Showback;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.hamiobserve.app.testing.CommandLines.assertRefused;
import static io.hamiobserve.app.testing.CommandLines.parsed;
import static io.hamiobserve.app.testing.CommandLines.run;
import static io.hamiobserve.app.testing.CommandLines.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code hami-observe showback} against a real Prometheus holding ten hours of two cards and two
 * shares, in each format; its flags, and hostile prices refused with the line that is wrong.
 */
class ShowbackCommandTest {
    private static final double GIB = 1024.0 * 1024 * 1024;
    private static LocalPrometheus prometheus;
    private static Instant to;

    @BeforeAll
    static void startPrometheus(@TempDir Path directory) throws Exception {
        Assumptions.assumeTrue(LocalPrometheus.binary().isPresent(), "prometheus is not installed");
        long end = (Instant.now().getEpochSecond() / 3600) * 3600 - 3600 + 1800;
        to = Instant.ofEpochSecond(end);
        Path file = directory.resolve("history.om");
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (long t = end - 11 * 3600; t <= end; t += 60) {
                for (String uuid : List.of("GPU-1", "GPU-2")) {
                    out.write("hami_gpu_memory_limit_bytes{node=\"+n1\",device_uuid=\"" + uuid
                            + "\",device_type=\"A100-SXM4-80GB\"} " + 80 * GIB + " " + t + "\n");
                }
                share(out, t, "ml", "=HYPERLINK(\"x\")", "GPU-1", 20, 50, 25);
                share(out, t, "web", "api-1", "GPU-2", 40, 10, 0);
            }
            out.write("# EOF\n");
        }
        prometheus = LocalPrometheus.start(List.of(), Duration.ofSeconds(60), List.of(file), Duration.ofSeconds(60));
    }

    private static void share(Writer out, long t, String namespace, String pod, String uuid, double gib, double cores,
                              double utilisation) throws Exception {
        String labels = "{namespace=\"" + namespace + "\",pod=\"" + pod.replace("\"", "\\\"") + "\",container_index=\"0\","
                + "container=\"main\",node=\"+n1\",device_uuid=\"" + uuid + "\"}";
        out.write("hami_observe_vgpu_container_memory_allocated_bytes" + labels + " " + gib * GIB + " " + t + "\n");
        out.write("hami_observe_vgpu_container_core_allocated_ratio" + labels + " " + cores + " " + t + "\n");
        out.write("hami_container_device_utilization_ratio" + labels.replace("container_index=\"0\",", "") + " "
                + utilisation + " " + t + "\n");
    }

    @AfterAll
    static void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
    }

    private static CommandLines.Outcome showback(String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("showback", "--prometheus", prometheus.url().toString(),
                "--from", to.minus(Duration.ofHours(10)).toString(), "--to", to.toString()));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    @Test
    void jsonRowsSumToTheFleetAndCarryCostWithPrices() throws Exception {
        CommandLines.Outcome outcome = showback("--format", "json", "--price", "A100-SXM4-80GB=2");
        assertEquals(0, outcome.exit(), outcome.err());
        JsonNode rows = JsonMapper.builder().build().readTree(outcome.out());
        // ml: 0.5 of a card (50 % cores over 25 % memory), used 0.25; web: 0.5 (memory), unused. 20 card-hours seen.
        assertEquals("ml", rows.get(0).get("row").asString());
        assertEquals(5.0, rows.get(0).get("allocated_card_hours").asDouble(), 1e-6);
        assertEquals(2.5, rows.get(0).get("used_card_hours").asDouble(), 1e-6);
        assertEquals(10.0, rows.get(0).get("cost").asDouble(), 1e-6);
        assertEquals(5.0, rows.get(1).get("allocated_card_hours").asDouble(), 1e-6);
        double sum = 0;
        for (int i = 0; i < rows.size() - 1; i++) {
            sum += rows.get(i).get("fleet_card_hours").asDouble();
        }
        JsonNode total = rows.get(rows.size() - 1);
        assertEquals("total: every card seen", total.get("row").asString());
        assertEquals(20.0, total.get("fleet_card_hours").asDouble(), 1e-6);
        assertEquals(20.0, sum, 1e-6);
        assertEquals(40.0, total.get("cost").asDouble(), 1e-6);
        assertEquals("allocated but idle", rows.get(2).get("row").asString());
        assertEquals(7.5, rows.get(2).get("fleet_card_hours").asDouble(), 1e-6);
        assertEquals(10.0, rows.get(3).get("fleet_card_hours").asDouble(), 1e-6);
    }

    @Test
    void csvNeutralisesFormulasAndATableSaysItHasNoPrices() {
        CommandLines.Outcome csv = showback("--format", "csv", "--by", "pod");
        assertEquals(0, csv.exit(), csv.err());
        List<String> lines = csv.out().lines().toList();
        assertEquals("row,fleet_card_hours,allocated_card_hours,used_card_hours,idle_card_hours,efficiency,"
                + "memory_gib_hours,core_hours", lines.getFirst());
        assertTrue(lines.contains("\"ml/=HYPERLINK(\"\"x\"\")\",2.5,5,2.5,2.5,0.5,200,5"), csv.out());
        assertEquals(1 + 2 + 4, lines.size(), csv.out());
        // A node named like a formula is text to a spreadsheet.
        CommandLines.Outcome byNode = showback("--format", "csv", "--by", "node");
        assertTrue(byNode.out().lines().toList().contains("'+n1,2.5,10,2.5,7.5,0.25,600,6"), byNode.out());
        CommandLines.Outcome table = showback("--by", "model");
        assertEquals(0, table.exit(), table.err());
        assertTrue(table.out().startsWith("Showback by model from "), table.out());
        assertTrue(table.out().contains("A100-SXM4-80GB"), table.out());
        assertTrue(table.out().contains("No prices: hours only"), table.out());
    }

    @Test
    void itsFlags(@TempDir Path directory) throws Exception {
        var defaults = parsed("showback");
        assertEquals(Showback.Grouping.NAMESPACE, value(defaults, "--by"));
        assertEquals(Instant.parse("2026-11-01T00:00:00Z"), value(parsed("showback", "--from", "2026-11-01"), "--from"));
        assertEquals(Showback.Grouping.WORKLOAD, value(parsed("showback", "--by", "workload"), "--by"));
        assertRefused(run("showback", "--by", "team"), "--by");
        assertRefused(run("showback", "--from", "yesterday"), "not a time like 2026-11-01");
        assertRefused(run("showback", "--prometheus", "http://p:9090", "--from", "2026-11-02", "--to", "2026-11-01"),
                "is not before --to");
        assertRefused(run("showback", "--prometheus", "http://p:9090", "--from", "2026-01-01", "--to", "2026-11-01"),
                "1 minute to 93 days");
        assertRefused(run("showback", "--price", "A100"), "expected MODEL=PRICE");
        assertRefused(run("showback"), "showback needs --prometheus URL");
    }

    @Test
    void aHostilePricesFileIsRefusedNamingTheLine(@TempDir Path directory) throws Exception {
        Path prices = Files.writeString(directory.resolve("prices.txt"), "# per card-hour\nA100-80GB=2.10\nL4=\u001b[31mfree\n");
        assertRefused(run("showback", "--prices", prices.toString()), "prices.txt:3: the price of 'L4' is not a number: '?[31mfree'");
        Path binary = Files.write(directory.resolve("binary"), new byte[] {(byte) 0xff, (byte) 0xfe, 0});
        assertRefused(run("showback", "--prices", binary.toString()), "not UTF-8 text");
        Path huge = Files.write(directory.resolve("huge"), new byte[PriceFlags.PriceFile.MOST_BYTES + 1]);
        assertRefused(run("showback", "--prices", huge.toString()), "is larger than " + PriceFlags.PriceFile.MOST_BYTES
                + " bytes");
        assertRefused(run("showback", "--prices", directory.resolve("absent").toString()), "does not exist");
        assertRefused(run("showback", "--prices", directory.toString()), "is not a regular file");
        assertRefused(run("showback", "--prices", "/dev/zero"), "prices file /dev/zero is not a regular file");
        Path good = Files.writeString(directory.resolve("good.txt"), "A100-SXM4-80GB=3\n");
        CommandLines.Outcome priced = showback("--format", "csv", "--prices", good.toString(), "--price", "A100-SXM4-80GB=1");
        assertEquals(0, priced.exit(), priced.err());
        // The flag is over the file: 20 card-hours at 1.
        assertTrue(priced.out().lines().toList().getLast().endsWith(",20,,,,,,,20,"), priced.out());
    }
}
