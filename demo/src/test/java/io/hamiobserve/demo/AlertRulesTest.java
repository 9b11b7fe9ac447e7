package io.hamiobserve.demo;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The alerting rules: valid for Prometheus ({@code promtool check rules}), naming only exported
 * series, and covering what operators asked for: a card used beyond its allocation, large idle
 * allocations, a failing source, a stale ledger.
 */
class AlertRulesTest {
    private static final Path RULES = DeployManifestsTest.ROOT.resolve("alerts/hami-observe.rules.yml");

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> rules() throws IOException {
        Map<String, Object> file = new KubernetesSerialization().unmarshal(Files.readString(RULES), Map.class);
        List<Map<String, Object>> all = new ArrayList<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
            all.addAll((List<Map<String, Object>>) group.get("rules"));
        }
        return all;
    }

    @Test
    void promtoolAcceptsTheRules() throws Exception {
        Process promtool;
        try {
            promtool = new ProcessBuilder("promtool", "check", "rules", RULES.toString()).redirectErrorStream(true).start();
        } catch (IOException notInstalled) {
            throw new AssertionError("promtool is not installed: install Debian's prometheus package "
                    + "(apt-get install prometheus; bin/test does it)", notInstalled);
        }
        String report = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(promtool.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, promtool.exitValue(), report);
        assertTrue(report.contains("SUCCESS: " + rules().size() + " rules found"), report);
    }

    @Test
    void rulesNameOnlyExportedSeriesAndSaySeverityAndSummary() throws IOException {
        Set<String> exported = DashboardTest.exportedSeriesNames();
        for (Map<String, Object> rule : rules()) {
            String expr = (String) rule.get("expr");
            for (String name : DashboardTest.metricNames(expr)) {
                assertTrue(exported.contains(name), rule.get("alert") + " names " + name + ", which no endpoint exports");
            }
            @SuppressWarnings("unchecked")
            Map<String, String> labels = (Map<String, String>) rule.get("labels");
            assertTrue(Set.of("info", "warning", "critical").contains(labels.get("severity")), rule.get("alert") + " severity");
            @SuppressWarnings("unchecked")
            Map<String, String> annotations = (Map<String, String>) rule.get("annotations");
            assertTrue(annotations.containsKey("summary") && annotations.containsKey("description"), rule.get("alert") + " annotations");
            assertTrue(rule.containsKey("for"), rule.get("alert") + " waits before firing");
        }
    }

    @Test
    void operatorsConcernsEachHaveARule() throws IOException {
        Map<String, String> byAlert = new java.util.TreeMap<>();
        rules().forEach(rule -> byAlert.put((String) rule.get("alert"), (String) rule.get("expr")));
        assertTrue(byAlert.get("HamiGpuMemoryBeyondAllocation").contains("hami_observe_gpu_memory_beyond_allocation_bytes >"));
        assertTrue(byAlert.get("HamiLargeIdleGpuAllocation").contains("hami_observe_container_memory_idle_bytes >"));
        assertTrue(byAlert.get("HamiObserveSourceFailing").contains("hami_observe_scrape_source_success == 0"));
        assertTrue(byAlert.get("HamiObserveLedgerStale").contains("time() - hami_observe_ledger_last_sync_timestamp_seconds >"));
    }

    /**
     * The physical rules (DCGM) are each covered by promtool's unit tests: firing where they should
     * and staying quiet where they should not, in both of dcgm-exporter's label forms.
     */
    @Test
    void thePhysicalRulesPassTheirPromtoolUnitTestsAndEachHasOne() throws Exception {
        Path tests = DeployManifestsTest.ROOT.resolve("alerts/hami-observe-physical.test.yml");
        Process promtool = new ProcessBuilder("promtool", "test", "rules", tests.toString()).redirectErrorStream(true)
                .start();
        String report = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(promtool.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, promtool.exitValue(), report);
        assertTrue(report.contains("SUCCESS"), report);
        String unitTests = Files.readString(tests);
        List<String> physical = new ArrayList<>();
        rules().stream().map(rule -> (String) rule.get("expr")).filter(expr -> expr.contains("DCGM_FI_"))
                .forEach(physical::add);
        assertEquals(4, physical.size(), "Xid, throttling, heat, and the two memory sources");
        for (Map<String, Object> rule : rules()) {
            if (((String) rule.get("expr")).contains("DCGM_FI_")) {
                assertTrue(unitTests.contains("alertname: " + rule.get("alert") + "\n"), rule.get("alert")
                        + " has a promtool unit test");
            }
            // The older DCGM's field name is only ever a fallback for the newer one.
            String expr = (String) rule.get("expr");
            assertEquals(count(expr, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"),
                    count(expr, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS or DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"), expr);
        }
        // The tolerance and window the console shows the disagreement with are the rule's.
        Map<String, Object> disagree = rules().stream().filter(rule -> rule.get("alert")
                .equals("HamiGpuUsageSourcesDisagree")).findFirst().orElseThrow();
        assertTrue(((String) disagree.get("expr")).contains(") > " + (long) io.hamiobserve.domain.fleet.Physical
                .DISAGREEMENT_TOLERANCE_BYTES));
        assertEquals(io.hamiobserve.domain.fleet.Physical.DISAGREEMENT_WINDOW.toMinutes() + "m", disagree.get("for"));
        Map<String, Object> hot = rules().stream().filter(rule -> rule.get("alert").equals("HamiGpuHot")).findFirst()
                .orElseThrow();
        assertTrue(((String) hot.get("expr")).contains(">= " + (long) io.hamiobserve.domain.fleet.Physical.HOT_CELSIUS));
    }

    private static int count(String text, String part) {
        return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

    /**
     * {@code promtool test rules}: pods of one namespace and reason waiting past 30 minutes (and
     * for 5 more) fire once per namespace and reason, whatever the instance; a shorter wait, or a
     * wait that ends, does not.
     */
    @Test
    void gpuPodsPendingLongFiresOnlyPastHalfAnHour(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path test = Files.writeString(dir.resolve("pending.test.yml"), """
                rule_files: ["%s"]
                evaluation_interval: 1m
                tests:
                  - interval: 1m
                    input_series:
                      # Waiting since 20 minutes before the test: past 30 at 10m, firing from 15m.
                      - series: 'hami_observe_pending_gpu_pod_oldest_wait_seconds{instance="s0",namespace="ml",reason="insufficient_memory"}'
                        values: '1200+60x40'
                      # Ten minutes of waiting, then placed (the series ends).
                      - series: 'hami_observe_pending_gpu_pod_oldest_wait_seconds{instance="s0",namespace="cv",reason="quota"}'
                        values: '0+60x10'
                    alert_rule_test:
                      - eval_time: 12m
                        alertname: HamiGpuPodsPendingLong
                        exp_alerts: []
                      - eval_time: 20m
                        alertname: HamiGpuPodsPendingLong
                        exp_alerts:
                          - exp_labels: {severity: warning, namespace: ml, reason: insufficient_memory}
                            exp_annotations:
                              summary: "GPU pods in ml have waited 40m 0s for a GPU (insufficient_memory)"
                              description: "A pod that requests a HAMi resource has not been placed for more than 30 minutes; reason insufficient_memory (insufficient_memory, insufficient_cores: no card has the free share, right-size or add cards; quota: the namespace's GPU quota is used up; no_card_of_type, node_affinity: no card the pod may use)."
                """.formatted(RULES.toAbsolutePath()));
        Process promtool = new ProcessBuilder("promtool", "test", "rules", test.toString()).redirectErrorStream(true)
                .start();
        String report = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(promtool.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, promtool.exitValue(), report);
    }

    /**
     * {@code promtool test rules}: memory outside HAMi-Core fires for a container no accounting
     * covers and for one past its allocation, not for a whole card's pod whose use the driver's
     * processes account for within its allocation.
     */
    @Test
    void unmanagedMemoryFiresUnlessTheDriverAccountsForItWithinTheAllocation(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path test = Files.writeString(dir.resolve("unmanaged.test.yml"), """
                rule_files: ["%s"]
                evaluation_interval: 1m
                tests:
                  - interval: 1m
                    input_series:
                      - series: 'hami_observe_unmanaged_memory_bytes{node="n",device_uuid="GPU-1",namespace="ml",pod="whole",container="c"}'
                        values: '8589934592x20'
                      - series: 'hami_observe_container_usage_source{device_uuid="GPU-1",namespace="ml",pod="whole",container="c",vdevice_index="0",source="nvml_process"}'
                        values: '1x20'
                      - series: 'hami_observe_container_memory_idle_bytes{device_uuid="GPU-1",namespace="ml",pod="whole",container="c",vdevice_index="0"}'
                        values: '1073741824x20'
                      - series: 'hami_observe_unmanaged_memory_bytes{node="n",device_uuid="GPU-2",namespace="ml",pod="sim",container="c"}'
                        values: '2147483648x20'
                      - series: 'hami_observe_container_usage_source{device_uuid="GPU-2",namespace="ml",pod="sim",container="c",vdevice_index="0",source="nvml_process"}'
                        values: '1x20'
                      - series: 'hami_observe_container_memory_idle_bytes{device_uuid="GPU-2",namespace="ml",pod="sim",container="c",vdevice_index="0"}'
                        values: '0x20'
                      - series: 'hami_observe_unmanaged_memory_bytes{node="n",device_uuid="GPU-3",namespace="ml",pod="raw",container="c"}'
                        values: '1073741824x20'
                    alert_rule_test:
                      - eval_time: 15m
                        alertname: HamiUnmanagedGpuMemory
                        exp_alerts:
                          - exp_labels: {severity: warning, node: n, device_uuid: GPU-2, namespace: ml, pod: sim, container: c}
                            exp_annotations:
                              summary: "ml/sim (c) holds 2GiB on GPU-2 outside HAMi-Core"
                              description: "The container is not held to its share (CUDA_DISABLE_CONTROL=true or no HAMi-Core). An empty pod label means a process of no known pod."
                          - exp_labels: {severity: warning, node: n, device_uuid: GPU-3, namespace: ml, pod: raw, container: c}
                            exp_annotations:
                              summary: "ml/raw (c) holds 1GiB on GPU-3 outside HAMi-Core"
                              description: "The container is not held to its share (CUDA_DISABLE_CONTROL=true or no HAMi-Core). An empty pod label means a process of no known pod."
                """.formatted(RULES.toAbsolutePath()));
        Process promtool = new ProcessBuilder("promtool", "test", "rules", test.toString()).redirectErrorStream(true)
                .start();
        String report = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(promtool.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, promtool.exitValue(), report);
    }

    /** Runs {@code promtool test rules} on a unit test of the rules, written to {@code dir}. */
    private static void promtoolTest(Path dir, String name, String test) throws Exception {
        Path file = Files.writeString(dir.resolve(name), test.formatted(RULES.toAbsolutePath()));
        Process promtool = new ProcessBuilder("promtool", "test", "rules", file.toString()).redirectErrorStream(true)
                .start();
        String report = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(promtool.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, promtool.exitValue(), report);
    }

    /**
     * {@code promtool test rules}: a share held 5 minutes past its pod's deletion, or 15 minutes
     * from placement with no container run, fires (after 5 more); a deletion within its grace and
     * a pod that starts within 15 minutes do not. The moment is the series' value, so the test's
     * clock (0 at its start) is what the ages are told against.
     */
    @Test
    void ghostAllocationFiresPastItsThresholdPerReason(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        promtoolTest(dir, "ghost.test.yml", """
                rule_files: ["%s"]
                evaluation_interval: 1m
                tests:
                  - interval: 1m
                    input_series:
                      # Its deletionTimestamp at 0: past 5 minutes at 5m, firing from 10m.
                      - series: 'hami_observe_ghost_allocation_since_timestamp_seconds{instance="s0",namespace="ml",node="n1",pod="held",device_uuid="GPU-1",reason="deleting"}'
                        values: '0x40'
                      # Placed at 10m, no container ever ran: past 15 minutes at 25m, firing from 30m.
                      - series: 'hami_observe_ghost_allocation_since_timestamp_seconds{instance="s0",namespace="cv",node="n1",pod="pull",device_uuid="GPU-2",reason="never_started"}'
                        values: '600x40'
                      # A grace that ends at 50m: within it for the whole test.
                      - series: 'hami_observe_ghost_allocation_since_timestamp_seconds{instance="s0",namespace="ml",node="n1",pod="grace",device_uuid="GPU-1",reason="deleting"}'
                        values: '3000x40'
                      # Placed at 0, its container started at 14m (the series ends).
                      - series: 'hami_observe_ghost_allocation_since_timestamp_seconds{instance="s0",namespace="cv",node="n1",pod="slow",device_uuid="GPU-3",reason="never_started"}'
                        values: '0x14'
                    alert_rule_test:
                      - eval_time: 8m
                        alertname: HamiGhostGpuAllocation
                        exp_alerts: []
                      - eval_time: 35m
                        alertname: HamiGhostGpuAllocation
                        exp_alerts:
                          - exp_labels: {severity: warning, instance: s0, namespace: ml, node: n1, pod: held, device_uuid: GPU-1, reason: deleting}
                            exp_annotations:
                              summary: "ml/held holds a share of GPU-1 on n1 with no live owner (deleting, 35m 0s)"
                              description: "HAMi still counts the share, so no other pod can have it. deleting: the pod is past its deletion's grace (look for a finalizer or an unreachable node); never_started: no container of the pod has run since it was placed (an image that never pulls, a volume that never mounts)."
                          - exp_labels: {severity: warning, instance: s0, namespace: cv, node: n1, pod: pull, device_uuid: GPU-2, reason: never_started}
                            exp_annotations:
                              summary: "cv/pull holds a share of GPU-2 on n1 with no live owner (never_started, 25m 0s)"
                              description: "HAMi still counts the share, so no other pod can have it. deleting: the pod is past its deletion's grace (look for a finalizer or an unreachable node); never_started: no container of the pod has run since it was placed (an image that never pulls, a volume that never mounts)."
                """);
    }

    /**
     * {@code promtool test rules}: memory outside HAMi-Core that no share of the card covers fires
     * (a process of no known pod, a pod whose share is on another card); memory of a pod that holds
     * a share of the card does not (HamiUnmanagedGpuMemory's case).
     */
    @Test
    void zombieProcessFiresOnlyWhereNoShareOfTheCardCoversIt(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        promtoolTest(dir, "zombie.test.yml", """
                rule_files: ["%s"]
                evaluation_interval: 1m
                tests:
                  - interval: 1m
                    input_series:
                      - series: 'hami_observe_unmanaged_memory_bytes{node="n",device_uuid="GPU-1",namespace="",pod="",container=""}'
                        values: '1073741824x20'
                      - series: 'hami_observe_unmanaged_memory_bytes{node="n",device_uuid="GPU-1",namespace="ml",pod="sim",container="c"}'
                        values: '2147483648x20'
                      - series: 'hami_vgpu_memory_allocated_bytes{node="n",device_uuid="GPU-1",namespace="ml",pod="sim",container_index="0"}'
                        values: '2147483648x20'
                      - series: 'hami_observe_unmanaged_memory_bytes{node="n",device_uuid="GPU-1",namespace="ml",pod="stray",container="c"}'
                        values: '4294967296x20'
                      - series: 'hami_vgpu_memory_allocated_bytes{node="n",device_uuid="GPU-2",namespace="ml",pod="stray",container_index="0"}'
                        values: '4294967296x20'
                    alert_rule_test:
                      - eval_time: 5m
                        alertname: HamiZombieGpuProcess
                        exp_alerts: []
                      - eval_time: 15m
                        alertname: HamiZombieGpuProcess
                        exp_alerts:
                          # Empty labels are no labels: the series of no known pod has node and card only.
                          - exp_labels: {severity: warning, node: n, device_uuid: GPU-1}
                            exp_annotations:
                              summary: "A process of no known pod holds 1GiB on GPU-1 (n) with no HAMi share of it"
                              description: "No HAMi allocation covers this use of the card: the scheduler counts the memory as free and may place pods that will not get it. hami_observe_unmanaged_first_seen_timestamp_seconds says since when."
                          - exp_labels: {severity: warning, node: n, device_uuid: GPU-1, namespace: ml, pod: stray, container: c}
                            exp_annotations:
                              summary: "ml/stray (c) holds 4GiB on GPU-1 (n) with no HAMi share of it"
                              description: "No HAMi allocation covers this use of the card: the scheduler counts the memory as free and may place pods that will not get it. hami_observe_unmanaged_first_seen_timestamp_seconds says since when."
                """);
    }

    /** {@code promtool test rules}: no kernel for over 24 hours, for 30 minutes more, fires; 23 hours does not. */
    @Test
    void idleAllocationFiresPastADayWithoutAKernel(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        promtoolTest(dir, "idle.test.yml", """
                rule_files: ["%s"]
                evaluation_interval: 1m
                tests:
                  - interval: 1m
                    input_series:
                      # A day less ten minutes at 0: past the day at 10m, firing from 40m.
                      - series: 'hami_container_last_kernel_elapsed_seconds{namespace="ml",pod="nb",container="lab",vdevice_index="0",device_uuid="GPU-1"}'
                        values: '85800+60x60'
                      - series: 'hami_container_last_kernel_elapsed_seconds{namespace="ml",pod="busy",container="c",vdevice_index="0",device_uuid="GPU-1"}'
                        values: '82800+60x60'
                    alert_rule_test:
                      - eval_time: 30m
                        alertname: HamiIdleGpuAllocation
                        exp_alerts: []
                      - eval_time: 45m
                        alertname: HamiIdleGpuAllocation
                        exp_alerts:
                          - exp_labels: {severity: info, namespace: ml, pod: nb, container: lab, vdevice_index: "0", device_uuid: GPU-1}
                            exp_annotations:
                              summary: "ml/nb (lab) has launched no kernel on GPU-1 for 1d 0h 35m 0s"
                              description: "The container holds its share and has not used the card for more than 24 hours: release it (scale the workload down) or right-size it."
                """);
    }
}
