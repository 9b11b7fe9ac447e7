package io.hamiobserve.exposition.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

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

    /** Fails unless promtool finds nothing but the contract names above. */
    public static void assertClean(String exposition) throws IOException, InterruptedException {
        Process promtool;
        try {
            promtool = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
        } catch (IOException notInstalled) {
            throw new AssertionError("promtool is not installed: install Debian's prometheus package "
                    + "(apt-get install prometheus; bin/test does it)", notInstalled);
        }
        try (OutputStream in = promtool.getOutputStream()) {
            in.write(exposition.getBytes(StandardCharsets.UTF_8));
        }
        assertTrue(promtool.waitFor(30, TimeUnit.SECONDS), "promtool did not finish");
        String report = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        List<String> findings = report.lines()
                .filter(line -> !line.isBlank())
                .filter(line -> !CONTRACT_NAMES_PROMTOOL_DISLIKES.contains(line.split(" ", 2)[0]))
                .toList();
        assertEquals(List.of(), findings, "promtool check metrics reported problems:\n" + report);
    }
}
