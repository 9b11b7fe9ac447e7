package io.hamiobserve.console;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RightsizeReportTest {
    private static String report(RightsizeReport.Format format) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RightsizeReport.write(new FixedHistory(), Instant.parse("2026-11-30T12:00:00Z"), Duration.ofDays(14), format,
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theTableSaysWhatEachWorkloadShouldAskAndWhatItAllFrees() throws Exception {
        String table = report(RightsizeReport.Format.TABLE);
        assertTrue(table.startsWith("Right-sizing over 14d from a fixed test fleet <i> per workload (3 rows):"), table);
        // No owner series in this history: each pod is its own workload.
        assertTrue(table.contains(" Pod "), table);
        assertTrue(table.contains("critical"), table);
        assertTrue(table.contains("2.50 GiB (2,560 MiB)"), table);
        assertTrue(table.contains("Applying every recommendation frees 5.5 GiB of GPU memory"), table);
    }

    @Test
    void jsonAndCsvAreForScripts() throws Exception {
        String json = report(RightsizeReport.Format.JSON);
        assertTrue(json.contains("\"memory_recommended\" : 2560"), json);
        assertTrue(json.contains("\"severity\" : \"critical\""), json);
        String csv = report(RightsizeReport.Format.CSV);
        assertTrue(csv.lines().findFirst().orElseThrow().startsWith("severity,cluster,namespace,owner_kind,owner_name,"
                + "container,pods,pods_now,cards,memory_now,memory_lower,memory_recommended"), csv);
        assertTrue(csv.contains("critical,,ml-team,Pod,llm-inference,server,1,1,1,8192,"), csv);
        String yaml = report(RightsizeReport.Format.YAML);
        assertTrue(yaml.contains("memory_recommended: 2560"), yaml);
        assertTrue(yaml.contains("owner_kind: Pod"), yaml);
    }

    @Test
    void patchesSayWhyABarePodGetsNone() throws Exception {
        String patches = report(RightsizeReport.Format.PATCH);
        assertTrue(patches.contains("# Pod ml-team/llm-inference\n# no patch: a bare pod: a pod's resources cannot be "
                + "changed in place"), patches);
        assertTrue(!patches.contains("kubectl patch"), patches);
    }

    @Test
    void htmlIsThePagesTableWithEveryValueEscaped() throws Exception {
        String html = report(RightsizeReport.Format.HTML);
        assertTrue(html.startsWith("<!DOCTYPE html>"), html);
        assertTrue(html.contains("<h1>Right-sizing over 14d from a fixed test fleet &lt;i&gt; per workload</h1>"), html);
        assertTrue(html.contains("llm-inference"), html);
        assertTrue(!html.contains("<script"), html);
    }

    @Test
    void thePodViewAndTheFiltersStayAvailable() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RightsizeReport.write(new FixedHistory(), Instant.parse("2026-11-30T12:00:00Z"), Duration.ofDays(14),
                new RightsizeReport.Options(RightsizeReport.Format.CSV, java.util.Optional.of("ml-team"),
                        java.util.Optional.of("pod"), true), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String csv = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(csv.lines().findFirst().orElseThrow().startsWith("severity,namespace,pod,container,node,cards,"
                + "memory_now,memory_recommended"), csv);
        assertTrue(csv.contains("critical,ml-team,llm-inference,server,node-a,1,8192,2560,-5632"), csv);
        assertTrue(csv.lines().skip(1).allMatch(line -> line.contains(",ml-team,")), csv);
        bytes.reset();
        RightsizeReport.write(new FixedHistory(), Instant.parse("2026-11-30T12:00:00Z"), Duration.ofDays(14),
                new RightsizeReport.Options(RightsizeReport.Format.CSV, java.util.Optional.empty(),
                        java.util.Optional.of("Deployment"), false), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertEquals(1, bytes.toString(StandardCharsets.UTF_8).lines().count(), "no Deployment: the header alone");
    }

    @Test
    void labelValuesCannotDriveTheTerminalNorASpreadsheet() throws Exception {
        FixedHistory history = new FixedHistory();
        history.alter = r -> new io.hamiobserve.domain.fleet.FleetReadings(r.at(), r.registered(), r.hosts(),
                r.allocations().stream().map(a -> new io.hamiobserve.domain.fleet.FleetReadings.Allocation(
                        "=cmd\u001b]0;owned\u0007", a.pod(), a.containerIndex(), a.node(), a.uuid(), a.memory(),
                        a.cores())).toList(), r.names().stream().map(n -> new io.hamiobserve.domain.fleet.FleetReadings
                        .ContainerName("=cmd\u001b]0;owned\u0007", n.pod(), n.containerIndex(), n.container(), n.init()))
                        .toList(), r.uses(), r.unmanaged(), r.quotas(), r.sources(), r.ledgerAges(), r.skips(),
                r.targetsDown(), r.containersByNode(), r.provenance());
        for (RightsizeReport.Format format : RightsizeReport.Format.values()) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            RightsizeReport.write(history, Instant.parse("2026-11-30T12:00:00Z"), Duration.ofDays(14), format,
                    new PrintStream(bytes, true, StandardCharsets.UTF_8));
            String out = bytes.toString(StandardCharsets.UTF_8);
            assertTrue(out.chars().noneMatch(c -> c == 0x1b || c == 0x07), format + ": " + out);
            if (format == RightsizeReport.Format.CSV) {
                assertTrue(out.contains(",'=cmd?]0;owned?,"), out);
            }
        }
    }

    @Test
    void aSourceWithoutTheExportersSeriesIsAnErrorNotZeroWorkloads() {
        FixedHistory history = new FixedHistory();
        history.noSourcesReported = true;
        history.alter = r -> new io.hamiobserve.domain.fleet.FleetReadings(r.at(), java.util.List.of(),
                java.util.List.of(), java.util.List.of(), java.util.List.of(), java.util.List.of(), java.util.List.of(),
                java.util.List.of(), java.util.List.of(), java.util.List.of(), java.util.List.of(), java.util.List.of(),
                r.containersByNode(), r.provenance());
        io.hamiobserve.ports.SourceUnavailableException failure = org.junit.jupiter.api.Assertions.assertThrows(
                io.hamiobserve.ports.SourceUnavailableException.class, () -> RightsizeReport.write(history,
                        Instant.now(), Duration.ofDays(14), RightsizeReport.Format.TABLE, new PrintStream(
                                new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
        assertTrue(failure.getMessage().contains("holds none of the exporters' series"), failure.getMessage());
    }
}
