package io.hamiobserve.console;

import io.hamiobserve.domain.fleet.Absence;
import io.hamiobserve.domain.fleet.CardResources;
import io.hamiobserve.domain.fleet.Figure;
import io.hamiobserve.domain.fleet.WorkloadGroup;
import io.hamiobserve.domain.fleet.WorkloadRecommendation;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every patch {@code rightsize --format patch} prints, applied by kubectl itself
 * ({@code kubectl patch --local --dry-run=client}) to a manifest of its controller's kind: the
 * container's limits become the recommendation, its other resources and the other containers stay.
 */
class WorkloadPatchTest {
    private static final List<String> KINDS = List.of("Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob");

    static WorkloadRecommendation recommendation(WorkloadGroup group, double memoryMib, double cores) {
        return recommendation(group, memoryMib, cores, CardResources.HAMI_DEFAULT);
    }

    static WorkloadRecommendation recommendation(WorkloadGroup group, double memoryMib, double cores,
                                                 CardResources resources) {
        Figure none = Figure.missing(Absence.NOT_ENOUGH_HISTORY);
        Figure memory = memoryMib > 0 ? Figure.of(memoryMib) : none;
        Figure compute = cores > 0 ? Figure.of(cores) : none;
        return new WorkloadRecommendation(group, List.of("p-0"), List.of("p-0"), 1, Figure.of(8192), Figure.of(50),
                Figure.of(2000.0 * 1024 * 1024), none, Figure.of(27), none, Figure.of(14), 2000, memory, none, none,
                compute, none, none, memoryMib > 0 ? Optional.empty() : Optional.of("less than 3 h of history"),
                Optional.empty(), Optional.empty(), List.of(), resources);
    }

    /**
     * A vendor's workload is patched in its vendor's names and memory unit (Cambricon's vmemory
     * counts 256 MiB), and gets no compute where the vendor's is not a percent of the card.
     */
    @Test
    void aVendorsPatchIsInItsResourceNamesAndUnits() {
        CardResources mlu = new CardResources("cambricon.com/vmlu", "cambricon.com/mlu.smlu.vmemory", 256, "");
        WorkloadGroup group = new WorkloadGroup("", "ml", "Deployment", "mlu-serve", "server");
        String yaml = WorkloadPatch.of(group, List.of(recommendation(group, 2600, 30, mlu))).yaml().orElseThrow();

        assertTrue(yaml.contains("cambricon.com/mlu.smlu.vmemory: '11'") || yaml.contains("cambricon.com/mlu.smlu.vmemory: \"11\""),
                yaml);
        assertTrue(!yaml.contains("nvidia.com") && !yaml.contains("30"), yaml);
    }

    @Test
    void everyPrintedPatchAppliedByKubectlSetsTheRecommendation(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(onPath("kubectl"), "kubectl is not installed (bin/test installs it)");
        List<WorkloadRecommendation> all = new ArrayList<>();
        for (String kind : KINDS) {
            // A hostile but valid-for-YAML container name travels quoted.
            all.add(recommendation(new WorkloadGroup("", "ml", kind, "serve-" + kind.toLowerCase(), "server"), 2560, 30));
        }
        all.add(recommendation(new WorkloadGroup("", "ml", "Pod", "debug", "shell"), 512, 5));
        all.add(recommendation(new WorkloadGroup("", "ml", "RayCluster", "ray", "head"), 4096, 50));
        List<WorkloadPatch> patches = WorkloadPatch.of(all);
        assertEquals(7, patches.size());
        for (WorkloadPatch patch : patches) {
            String kind = patch.controller().ownerKind();
            if (!KINDS.contains(kind)) {
                assertTrue(patch.yaml().isEmpty(), kind + " gets no patch");
                assertTrue(patch.script().contains("# no patch: "), patch.script());
                continue;
            }
            assertTrue(patch.command().startsWith("kubectl patch " + kind.toLowerCase() + " 'serve-"
                    + kind.toLowerCase() + "' -n 'ml' --type strategic --patch-file "), patch.command());
            Path manifest = dir.resolve(kind + ".yaml");
            Files.writeString(manifest, manifest(kind, "serve-" + kind.toLowerCase()));
            Path file = dir.resolve(patch.fileName());
            Files.writeString(file, patch.yaml().orElseThrow());
            Process kubectl = new ProcessBuilder("kubectl", "patch", "--local", "--dry-run=client", "-o", "yaml",
                    "-f", manifest.toString(), "--type", "strategic", "--patch-file", file.toString())
                    .redirectErrorStream(true).start();
            String out = new String(kubectl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(kubectl.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, kubectl.exitValue(), kind + ": " + out + "\npatch:\n" + patch.yaml().get());
            Map<String, Object> spec = podSpec(kind, (Map<String, Object>) new Load(LoadSettings.builder().build())
                    .loadFromString(out));
            List<Map<String, Object>> containers = (List<Map<String, Object>>) spec.get("containers");
            Map<String, Object> server = containers.stream().filter(c -> c.get("name").equals("server")).findFirst()
                    .orElseThrow();
            Map<String, Object> limits = (Map<String, Object>) ((Map<String, Object>) server.get("resources"))
                    .get("limits");
            assertEquals(Map.of("nvidia.com/gpu", "1", "nvidia.com/gpumem", "2560", "nvidia.com/gpucores", "30"),
                    Map.copyOf(limits.entrySet().stream().collect(java.util.stream.Collectors.toMap(Map.Entry::getKey,
                            e -> String.valueOf(e.getValue())))), kind);
            Map<String, Object> sidecar = containers.stream().filter(c -> c.get("name").equals("proxy")).findFirst()
                    .orElseThrow();
            assertEquals(Map.of("limits", Map.of("cpu", "100m")), sidecar.get("resources"), kind + ": sidecar unchanged");
        }
    }

    @Test
    void aWorkloadWithoutAnyTargetGetsNoPatchAndTheScriptSaysWhy() {
        WorkloadPatch patch = WorkloadPatch.of(List.of(recommendation(
                new WorkloadGroup("", "ml", "Deployment", "fresh", "server"), 0, 0))).getFirst();
        assertTrue(patch.yaml().isEmpty());
        assertEquals("# Deployment ml/fresh\n# no patch: no recommendation yet for any of its containers\n\n",
                patch.script());
    }

    @Test
    void namesAreQuotedForTheShellAndTheFileNameHoldsNothingAShellReads() {
        WorkloadPatch patch = WorkloadPatch.of(List.of(recommendation(
                new WorkloadGroup("", "ml'; rm -rf /", "Deployment", "a$(b)", "server"), 2560, 30))).getFirst();
        assertEquals("kubectl patch deployment 'a$(b)' -n 'ml'\\''; rm -rf /' --type strategic --patch-file "
                + "'ml___rm_-rf__-deployment-a__b_.patch.yaml'", patch.command());
    }

    @Test
    void aClusterIsNamedAboveItsPatchAndInItsFile() {
        List<WorkloadPatch> patches = WorkloadPatch.of(List.of(
                recommendation(new WorkloadGroup("east", "ml", "Deployment", "serve", "server"), 2560, 30),
                recommendation(new WorkloadGroup("west", "ml", "Deployment", "serve", "server"), 6400, 30)));
        assertEquals(2, patches.size());
        assertTrue(patches.get(0).script().startsWith("# Deployment ml/serve\n# cluster east: apply with that "
                + "cluster's kube context (kubectl config use-context)\ncat > 'east-ml-deployment-serve.patch.yaml'"),
                patches.get(0).script());
        assertEquals("kubectl patch deployment 'serve' -n 'ml' --type strategic --patch-file "
                + "'west-ml-deployment-serve.patch.yaml'", patches.get(1).command());
        assertTrue(patches.get(1).yaml().orElseThrow().contains("6400"), patches.get(1).yaml().orElseThrow());
        // Without a cluster label the script is as it was: no cluster line, no prefix.
        WorkloadPatch one = WorkloadPatch.of(List.of(recommendation(
                new WorkloadGroup("", "ml", "Deployment", "serve", "server"), 2560, 30))).getFirst();
        assertTrue(one.script().startsWith("# Deployment ml/serve\ncat > 'ml-deployment-serve.patch.yaml'"),
                one.script());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> podSpec(String kind, Map<String, Object> object) {
        Map<String, Object> spec = (Map<String, Object>) object.get("spec");
        if (kind.equals("CronJob")) {
            spec = (Map<String, Object>) ((Map<String, Object>) spec.get("jobTemplate")).get("spec");
        }
        return (Map<String, Object>) ((Map<String, Object>) spec.get("template")).get("spec");
    }

    private static String manifest(String kind, String name) {
        String template = """
                template:
                  metadata:
                    labels: {app: NAME}
                  spec:
                    restartPolicy: RESTART
                    containers:
                    - name: server
                      image: serve:1
                      resources:
                        limits: {nvidia.com/gpu: "1", nvidia.com/gpumem: "8192", nvidia.com/gpucores: "50"}
                    - name: proxy
                      image: proxy:1
                      resources:
                        limits: {cpu: 100m}
                """.replace("NAME", name).replace("RESTART", kind.endsWith("Job") ? "Never" : "Always");
        String apiVersion = kind.endsWith("Job") ? "batch/v1" : "apps/v1";
        String selector = kind.endsWith("Job") ? "" : "  selector: {matchLabels: {app: " + name + "}}\n";
        String body = kind.equals("CronJob")
                ? "  schedule: \"0 * * * *\"\n  jobTemplate:\n    spec:\n" + template.indent(6)
                : selector + template.indent(2);
        return "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata:\n  name: " + name
                + "\n  namespace: ml\nspec:\n" + body;
    }

    private static boolean onPath(String command) {
        String path = System.getenv("PATH");
        return path != null && Stream.of(path.split(File.pathSeparator))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, command)));
    }
}
