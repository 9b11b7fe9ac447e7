package io.hamiobserve.console;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console's Kubernetes manifest as {@code kubectl apply -k deploy/overlays/full} sends it
 * (the rendering committed under {@code deploy/rendered}, which the deploy tests hold to what
 * kustomize renders now): the scheduler image's second command, listening where its Service and
 * probes point, with nothing of the cluster's API, non-root on a read-only root; and, with kubectl
 * at hand, the web-config component mounting the file the flag names.
 */
class ConsoleDeploymentTest {
    private static final Path ROOT = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> objects(String yaml) {
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object document : new Load(LoadSettings.builder().build()).loadAllFromString(yaml)) {
            if (document != null) {
                objects.add((Map<String, Object>) document);
            }
        }
        return objects;
    }

    private static Map<String, Object> named(List<Map<String, Object>> objects, String kind, String name) {
        return objects.stream().filter(o -> kind.equals(o.get("kind")) && name.equals(at(o, "metadata", "name")))
                .findFirst().orElseThrow(() -> new AssertionError("no " + kind + " " + name));
    }

    @SuppressWarnings("unchecked")
    private static <T> T at(Object node, Object... path) {
        Object current = node;
        for (Object step : path) {
            current = step instanceof Integer index ? ((List<Object>) current).get(index)
                    : current == null ? null : ((Map<String, Object>) current).get(step);
        }
        return (T) current;
    }

    @Test
    void theFullInstallRunsTheConsoleFromTheSchedulerImageBehindItsService() throws Exception {
        List<Map<String, Object>> objects = objects(Files.readString(ROOT.resolve("deploy/rendered/full.yaml")));
        Map<String, Object> console = named(objects, "Deployment", "hami-observe-console");
        Map<String, Object> scheduler = named(objects, "StatefulSet", "hami-observe-scheduler");
        Map<String, Object> pod = at(console, "spec", "template", "spec");
        Map<String, Object> container = at(pod, "containers", 0);
        assertEquals(at(scheduler, "spec", "template", "spec", "containers", 0, "image"), container.get("image"),
                "a second command of the scheduler image");

        List<String> args = at(container, "args");
        assertEquals("console", args.getFirst());
        String prometheus = args.get(args.indexOf("--prometheus") + 1);
        assertTrue(prometheus.startsWith("http://") || prometheus.startsWith("https://"), prometheus);
        String bind = args.get(args.indexOf("--console-bind-address") + 1);
        Map<String, Object> port = at(container, "ports", 0);
        assertEquals(":" + port.get("containerPort"), bind, "the process listens on the container's port");
        assertEquals(9397, port.get("containerPort"));

        for (String[] probe : new String[][]{{"readinessProbe", "/readyz"}, {"livenessProbe", "/healthz"}}) {
            assertEquals(probe[1], at(container, probe[0], "httpGet", "path"));
            assertEquals(port.get("name"), at(container, probe[0], "httpGet", "port"), probe[0] + " probes the port");
        }

        Map<String, Object> service = named(objects, "Service", "hami-observe-console");
        Map<String, String> selector = at(service, "spec", "selector");
        Map<String, String> labels = at(console, "spec", "template", "metadata", "labels");
        assertTrue(labels.entrySet().containsAll(selector.entrySet()), "the Service selects the console");
        for (Map<String, Object> other : objects) {
            Map<String, String> otherLabels = at(other, "spec", "template", "metadata", "labels");
            if (other != console && otherLabels != null) {
                assertFalse(otherLabels.entrySet().containsAll(selector.entrySet()),
                        "the console's Service selects only the console: " + at(other, "metadata", "name"));
            }
        }
        assertEquals(9397, (Integer) at(service, "spec", "ports", 0, "port"));
        assertEquals(port.get("name"), at(service, "spec", "ports", 0, "targetPort"));

        // It reads Prometheus only: no Kubernetes token, no service account of its own, no host access.
        assertEquals(Boolean.FALSE, pod.get("automountServiceAccountToken"));
        assertEquals(null, pod.get("serviceAccountName"));
        assertFalse(Boolean.TRUE.equals(pod.get("hostNetwork")) || Boolean.TRUE.equals(pod.get("hostPID")));
        assertEquals(Boolean.TRUE, at(pod, "securityContext", "runAsNonRoot"));
        assertEquals(Boolean.TRUE, at(container, "securityContext", "readOnlyRootFilesystem"));
        assertEquals(Boolean.FALSE, at(container, "securityContext", "allowPrivilegeEscalation"));
        assertEquals(List.of("ALL"), at(container, "securityContext", "capabilities", "drop"));
        assertEquals("/tmp", at(container, "volumeMounts", 0, "mountPath"));
        assertNotNull(at(pod, "volumes", 0, "emptyDir"), "/tmp is memory, not the node's disk");
    }

    @Test
    void theWebConfigComponentMountsTheFileItsFlagNames() throws Exception {
        Assumptions.assumeTrue(onPath("kubectl"), "kubectl is not installed: the component is not rendered here");
        // kustomize takes only relative paths, so the overlay sits inside the repository (under target/).
        Path target = Files.createDirectories(ROOT.resolve("console/target"));
        Path overlay = Files.createTempDirectory(target, "console-overlay");
        try {
            Files.writeString(overlay.resolve("kustomization.yaml"), """
                    apiVersion: kustomize.config.k8s.io/v1beta1
                    kind: Kustomization
                    resources:
                      - %s
                    components:
                      - %s
                      - %s
                    """.formatted(overlay.relativize(ROOT.resolve("deploy/base")),
                    overlay.relativize(ROOT.resolve("deploy/components/console")),
                    overlay.relativize(ROOT.resolve("deploy/components/console-web-config"))));
            Process kubectl = new ProcessBuilder("kubectl", "kustomize", overlay.toString()).redirectErrorStream(true)
                    .start();
            String rendered = new String(kubectl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(kubectl.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, kubectl.exitValue(), rendered);
            Map<String, Object> console = named(objects(rendered), "Deployment", "hami-observe-console");
            Map<String, Object> container = at(console, "spec", "template", "spec", "containers", 0);
            List<String> args = at(container, "args");
            Path file = Path.of(args.get(args.indexOf("--web.config.file") + 1));
            List<Map<String, Object>> mounts = at(container, "volumeMounts");
            Map<String, Object> mount = mounts.stream()
                    .filter(m -> file.startsWith(Path.of((String) m.get("mountPath")))).findFirst().orElseThrow();
            assertEquals(Boolean.TRUE, mount.get("readOnly"));
            List<Map<String, Object>> volumes = at(console, "spec", "template", "spec", "volumes");
            Map<String, Object> volume = volumes.stream().filter(v -> v.get("name").equals(mount.get("name")))
                    .findFirst().orElseThrow();
            assertEquals("hami-observe-console-web-config", at(volume, "secret", "secretName"));
        } finally {
            try (Stream<Path> files = Files.walk(overlay)) {
                for (Path path : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    private static boolean onPath(String command) {
        String path = System.getenv("PATH");
        return path != null && Stream.of(path.split(File.pathSeparator)).anyMatch(dir -> Files.isExecutable(Path.of(dir, command)));
    }
}
