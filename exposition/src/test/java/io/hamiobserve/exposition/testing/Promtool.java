package io.hamiobserve.exposition.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs Prometheus's own linter, {@code promtool check metrics}, on an exposition.
 *
 * <p>promtool's naming lint flags a few of HAMi's own metric names, which are a contract with
 * existing dashboards and cannot change: {@code hami_gpu_shared_count} (a gauge ending in
 * {@code _count}) and the camelCase pre-2.9 names emitted with {@code --legacy-metrics}. Findings
 * for exactly those names are accepted; any other finding, and any parse error, fails.
 */
public final class Promtool {
    public static final Set<String> CONTRACT_NAMES_PROMTOOL_DISLIKES = Set.of(
            "hami_gpu_shared_count",
            "GPUDeviceMemoryLimit", "GPUDeviceCoreLimit", "GPUDeviceMemoryAllocated", "GPUDeviceSharedNum",
            "GPUDeviceCoreAllocated", "nodeGPUOverview", "nodeGPUMemoryPercentage", "nodeGPUMigInstance",
            "QuotaUsed", "vGPUMemoryAllocated", "vGPUCoreAllocated", "HostGPUMemoryUsage", "HostCoreUtilization",
            "Device_utilization_desc_of_container", "Device_last_kernel_of_container",
            "Device_memory_desc_of_container", "MigInfo", "vGPU_device_memory_usage_in_bytes",
            "vGPU_device_memory_limit_in_bytes");

    private Promtool() {
    }

    /**
     * Fails unless promtool finds nothing but the contract names above, and no series is written
     * twice.
     *
     * <p>promtool from 2.53 on (client_golang's linter compares every series of a family with every
     * other, looking for duplicates) takes time quadratic in a family's series: 9.5 s for one
     * family of 4,000, more than five minutes for a 9,000-pod hostile ledger that 2.42 checks in
     * 1.4 s. So a family of more than {@link #SERIES_PER_CHECK} series is checked in pieces, each
     * piece under the family's own HELP and TYPE in its own run of promtool, and duplicates are
     * looked for here, across the whole exposition. Histograms and summaries (a series over several
     * lines) stay whole.
     */
    public static void assertClean(String exposition) throws IOException, InterruptedException {
        assertEquals(List.of(), duplicateSeries(exposition), "series written twice");
        assertEquals(List.of(), findings(exposition), "promtool check metrics reported problems");
    }

    /**
     * What promtool reports of the exposition, checked in pieces as {@link #assertClean} says, less
     * its findings for the contract names above: for a caller with contract names of its own (a
     * vendor exporter's label names).
     */
    public static List<String> findings(String exposition) throws IOException, InterruptedException {
        List<String> findings = new java.util.ArrayList<>();
        for (String piece : pieces(exposition)) {
            findings.addAll(findingsOfOne(piece));
        }
        return findings;
    }

    /** At most this many series of one family go to one run of promtool. */
    static final int SERIES_PER_CHECK = 250;

    /** The series (name and labels) that more than one line writes. */
    static List<String> duplicateSeries(String exposition) {
        Set<String> seen = new java.util.HashSet<>();
        List<String> twice = new java.util.ArrayList<>();
        lines(exposition).filter(line -> !line.isEmpty() && !line.startsWith("#")).forEach(line -> {
            String series = line.substring(0, Math.max(line.lastIndexOf('}') + 1, firstSpace(line)));
            if (!seen.add(series)) {
                twice.add(series);
            }
        });
        return twice;
    }

    /** The exposition's lines: ended by {@code \\n} only, as a label value may hold a raw carriage return. */
    private static java.util.stream.Stream<String> lines(String exposition) {
        return java.util.regex.Pattern.compile("\n").splitAsStream(exposition);
    }

    private static int firstSpace(String line) {
        int space = line.indexOf(' ');
        return space < 0 ? line.length() : space;
    }

    /**
     * The exposition as expositions of which each holds at most {@link #SERIES_PER_CHECK} series
     * of a counter, gauge or untyped family: piece {@code k} holds the {@code k}-th slice of every
     * family with that many, the first piece every other family whole. Every line is in one piece.
     */
    static List<String> pieces(String exposition) {
        List<StringBuilder> pieces = new java.util.ArrayList<>();
        pieces.add(new StringBuilder());
        StringBuilder header = new StringBuilder();
        boolean sliced = false;
        int series = 0;
        for (String line : (Iterable<String>) lines(exposition)::iterator) {
            if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
                if (series > 0) {
                    header.setLength(0);
                    series = 0;
                }
                header.append(line).append('\n');
                if (line.startsWith("# TYPE ")) {
                    String type = line.substring(line.lastIndexOf(' ') + 1);
                    sliced = type.equals("counter") || type.equals("gauge") || type.equals("untyped");
                }
                continue;
            }
            if (line.isEmpty() || line.startsWith("#")) {
                header.append(line.isEmpty() ? "" : line + "\n");
                continue;
            }
            int piece = sliced ? series / SERIES_PER_CHECK : 0;
            while (pieces.size() <= piece) {
                pieces.add(new StringBuilder());
            }
            if (series == 0 || sliced && series % SERIES_PER_CHECK == 0) {
                pieces.get(piece).append(header);
            }
            pieces.get(piece).append(line).append('\n');
            series++;
        }
        if (series == 0 && !header.isEmpty()) {
            pieces.getFirst().append(header);
        }
        return pieces.stream().map(StringBuilder::toString).filter(piece -> !piece.isEmpty()).toList();
    }

    private static List<String> findingsOfOne(String exposition) throws IOException, InterruptedException {
        Process promtool;
        try {
            promtool = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
        } catch (IOException notInstalled) {
            throw new AssertionError("promtool is not installed: install Debian's prometheus package "
                    + "(apt-get install prometheus; bin/test does it)", notInstalled);
        }
        // Its report is read while it runs: one that fills the pipe would otherwise stall it for good.
        CompletableFuture<String> read = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException unreadable) {
                throw new UncheckedIOException(unreadable);
            }
        });
        try (OutputStream in = promtool.getOutputStream()) {
            in.write(exposition.getBytes(StandardCharsets.UTF_8));
        }
        boolean finished = promtool.waitFor(60, TimeUnit.SECONDS);
        if (!finished) {
            promtool.destroyForcibly();
        }
        assertTrue(finished, "promtool did not finish");
        String report;
        try {
            report = read.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException unread) {
            throw new AssertionError("promtool's report could not be read", unread);
        }
        return report.lines()
                .filter(line -> !line.isBlank())
                .filter(line -> !CONTRACT_NAMES_PROMTOOL_DISLIKES.contains(line.split(" ", 2)[0]))
                .toList();
    }
}
