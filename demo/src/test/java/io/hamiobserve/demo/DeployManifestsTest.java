package io.hamiobserve.demo;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.hamiobserve.app.cli.Launch;
import io.hamiobserve.app.cli.Launcher;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.role.scheduler.ShardFlags;
import picocli.CommandLine;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Checks the Kubernetes manifests exactly as {@code kubectl apply -k} sends them: the rendered
 * output committed under {@code deploy/rendered} (written by {@code deploy/render}), parsed with
 * fabric8's model. Ports and NodePorts are HAMi's (allocation 9395/31993, usage 9394/31992),
 * every Service selects its own Pod template, RBAC is read-only and per role, the pods run
 * non-root on a read-only root file system, and host access is what the node role needs and no
 * more. When kubectl is installed the rendered files are also checked to be current.
 */
class DeployManifestsTest {
    static final Path ROOT = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
    private static final Path DEPLOY = ROOT.resolve("deploy");
    private static final KubernetesSerialization YAML = new KubernetesSerialization();

    /** The objects of one rendered install, in file order. */
    static List<HasMetadata> load(Path file) throws IOException {
        List<HasMetadata> objects = new ArrayList<>();
        for (String document : Files.readString(file).split("(?m)^---\\s*$")) {
            boolean empty = document.lines().allMatch(line -> line.isBlank() || line.startsWith("#"));
            if (!empty) {
                objects.add(YAML.unmarshal(document, HasMetadata.class));
            }
        }
        return objects;
    }

    private static <T extends HasMetadata> List<T> all(List<HasMetadata> objects, Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    private static <T extends HasMetadata> T named(List<HasMetadata> objects, Class<T> type, String name) {
        return all(objects, type).stream().filter(o -> o.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name));
    }

    private static List<String> kinds(List<HasMetadata> objects) {
        return objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).sorted().toList();
    }

    private static final List<String> DEFAULT_KINDS = List.of(
            "ClusterRole/hami-observe-node", "ClusterRole/hami-observe-scheduler",
            "ClusterRoleBinding/hami-observe-node", "ClusterRoleBinding/hami-observe-scheduler",
            "DaemonSet/hami-observe-node",
            "Service/hami-observe-node", "Service/hami-observe-scheduler",
            "ServiceAccount/hami-observe-node", "ServiceAccount/hami-observe-scheduler",
            "StatefulSet/hami-observe-scheduler");

    @Test
    void theDefaultInstallHoldsBothRolesAndTheirRbacOnly() throws IOException {
        assertEquals(DEFAULT_KINDS, kinds(load(DEPLOY.resolve("rendered/default.yaml"))));
    }

    @Test
    void theFullInstallAddsTheOperatorObjects() throws IOException {
        List<String> expected = new ArrayList<>(DEFAULT_KINDS);
        expected.addAll(List.of("PrometheusRule/hami-observe", "ServiceMonitor/hami-observe-node",
                "ServiceMonitor/hami-observe-scheduler", "PrometheusRule/hami-observe-console",
                "Deployment/hami-observe-console", "Service/hami-observe-console"));
        assertEquals(expected.stream().sorted().toList(), kinds(load(DEPLOY.resolve("rendered/full.yaml"))));
    }

    @ParameterizedTest
    @ValueSource(strings = {"default.yaml", "full.yaml"})
    void eachServiceSelectsItsOwnPodTemplateOnHamisPorts(String rendered) throws IOException {
        List<HasMetadata> objects = load(DEPLOY.resolve("rendered").resolve(rendered));
        StatefulSet scheduler = named(objects, StatefulSet.class, "hami-observe-scheduler");
        DaemonSet node = named(objects, DaemonSet.class, "hami-observe-node");
        assertEquals(scheduler.getSpec().getSelector().getMatchLabels(), scheduler.getSpec().getTemplate().getMetadata().getLabels());
        assertEquals(node.getSpec().getSelector().getMatchLabels(), node.getSpec().getTemplate().getMetadata().getLabels());

        Map<String, PodTemplateSpec> templates = Map.of("scheduler", scheduler.getSpec().getTemplate(),
                "node", node.getSpec().getTemplate());
        checkService(named(objects, Service.class, "hami-observe-scheduler"), templates, "scheduler", 9395, 31993);
        checkService(named(objects, Service.class, "hami-observe-node"), templates, "node", 9394, 31992);
        // A node's NodePort answers with that node's usage view, as HAMi's monitor port does.
        assertEquals("Local", named(objects, Service.class, "hami-observe-node").getSpec().getExternalTrafficPolicy());
        assertEquals(1, scheduler.getSpec().getReplicas());
        // A StatefulSet's rolling update stops the old pod before it starts the new one: never two
        // schedulers exporting the same cards.
        assertTrue(scheduler.getSpec().getUpdateStrategy() == null
                || !"OnDelete".equals(scheduler.getSpec().getUpdateStrategy().getType()));
        assertEquals("Parallel", scheduler.getSpec().getPodManagementPolicy(),
                "fixed at creation, so the default install is ready to be sharded");
        assertEquals("hami-observe-scheduler", scheduler.getSpec().getServiceName());
        assertFalse(scheduler.getSpec().getTemplate().getSpec().getContainers().getFirst().getArgs()
                .contains("--total-shards"), "unsharded by default");
    }

    private static void checkService(Service service, Map<String, PodTemplateSpec> templates, String role,
                                     int port, int nodePort) {
        Map<String, String> selector = service.getSpec().getSelector();
        assertNotNull(selector, service.getMetadata().getName() + " has a selector");
        List<String> selected = templates.entrySet().stream()
                .filter(t -> t.getValue().getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
                .map(Map.Entry::getKey).toList();
        assertEquals(List.of(role), selected, service.getMetadata().getName() + " selects exactly its own pods");
        assertEquals("NodePort", service.getSpec().getType());
        assertEquals(Boolean.TRUE, service.getSpec().getPublishNotReadyAddresses(),
                "a not-ready exporter is still scraped: its health series say why");
        assertEquals(1, service.getSpec().getPorts().size());
        ServicePort servicePort = service.getSpec().getPorts().getFirst();
        assertEquals(port, servicePort.getPort());
        assertEquals(nodePort, servicePort.getNodePort());
        Container container = templates.get(role).getSpec().getContainers().getFirst();
        ContainerPort target = container.getPorts().stream()
                .filter(p -> p.getName().equals(servicePort.getTargetPort().getStrVal())).findFirst()
                .orElseThrow(() -> new AssertionError("targetPort " + servicePort.getTargetPort() + " names no container port"));
        assertEquals(port, target.getContainerPort());
        assertTrue(container.getArgs().containsAll(List.of(role, "--metrics-bind-address", ":" + port)),
                "the process listens where the Service sends: " + container.getArgs());
        checkProbe(container.getReadinessProbe(), "/readyz", target);
        checkProbe(container.getLivenessProbe(), "/healthz", target);
    }

    private static void checkProbe(Probe probe, String path, ContainerPort port) {
        assertNotNull(probe, path + " probe");
        assertEquals(path, probe.getHttpGet().getPath());
        String probed = probe.getHttpGet().getPort().getStrVal();
        assertTrue(port.getName().equals(probed) || Integer.valueOf(port.getContainerPort()).equals(probe.getHttpGet().getPort().getIntVal()),
                path + " probes the metrics port");
    }

    @ParameterizedTest
    @ValueSource(strings = {"default.yaml", "full.yaml", "sharded.yaml"})
    void podsRunNonRootOnAReadOnlyRootWithoutPrivileges(String rendered) throws IOException {
        List<HasMetadata> objects = load(DEPLOY.resolve("rendered").resolve(rendered));
        for (PodSpec pod : List.of(named(objects, StatefulSet.class, "hami-observe-scheduler").getSpec().getTemplate().getSpec(),
                named(objects, DaemonSet.class, "hami-observe-node").getSpec().getTemplate().getSpec())) {
            assertEquals(Boolean.TRUE, pod.getSecurityContext().getRunAsNonRoot());
            assertTrue(pod.getSecurityContext().getRunAsUser() > 0);
            assertFalse(Boolean.TRUE.equals(pod.getHostNetwork()));
            assertFalse(Boolean.TRUE.equals(pod.getHostIPC()));
            assertEquals(1, pod.getContainers().size());
            Container container = pod.getContainers().getFirst();
            var security = container.getSecurityContext();
            assertEquals(Boolean.TRUE, security.getReadOnlyRootFilesystem());
            assertEquals(Boolean.FALSE, security.getAllowPrivilegeEscalation());
            assertFalse(Boolean.TRUE.equals(security.getPrivileged()));
            assertEquals(List.of("ALL"), security.getCapabilities().getDrop());
            assertTrue(security.getCapabilities().getAdd() == null || security.getCapabilities().getAdd().isEmpty());
            // The JVM (and JNA) need one writable place; it is memory, not the node's disk.
            Volume tmp = volumeAt(pod, container, "/tmp");
            assertNotNull(tmp.getEmptyDir(), "/tmp is an emptyDir");
            for (VolumeMount mount : container.getVolumeMounts()) {
                Volume volume = volumeAt(pod, container, mount.getMountPath());
                if (volume.getHostPath() != null) {
                    assertEquals(Boolean.TRUE, mount.getReadOnly(), "host paths are mounted read-only: " + mount.getMountPath());
                }
            }
        }
    }

    private static Volume volumeAt(PodSpec pod, Container container, String mountPath) {
        VolumeMount mount = container.getVolumeMounts().stream().filter(m -> m.getMountPath().equals(mountPath))
                .findFirst().orElseThrow(() -> new AssertionError("nothing mounted at " + mountPath));
        return pod.getVolumes().stream().filter(v -> v.getName().equals(mount.getName())).findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + mount.getName()));
    }

    @Test
    void theNodePodGetsItsNodeNameTheCacheFilesAndTheDriverAndNothingMore() throws IOException {
        List<HasMetadata> objects = load(DEPLOY.resolve("rendered/default.yaml"));
        PodSpec pod = named(objects, DaemonSet.class, "hami-observe-node").getSpec().getTemplate().getSpec();
        Container container = pod.getContainers().getFirst();
        Map<String, EnvVar> env = container.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, e -> e));
        assertEquals("spec.nodeName", env.get("NODE_NAME").getValueFrom().getFieldRef().getFieldPath());
        assertEquals("/usr/local/vgpu", env.get("HOOK_PATH").getValue());
        assertEquals("all", env.get("NVIDIA_VISIBLE_DEVICES").getValue());
        assertEquals("utility", env.get("NVIDIA_DRIVER_CAPABILITIES").getValue());

        Volume containers = volumeAt(pod, container, "/usr/local/vgpu/containers");
        assertEquals("/usr/local/vgpu/containers", containers.getHostPath().getPath());
        List<String> hostPaths = pod.getVolumes().stream().filter(v -> v.getHostPath() != null)
                .map(v -> v.getHostPath().getPath()).toList();
        assertEquals(List.of("/usr/local/vgpu/containers"), hostPaths, "the only host path");
        assertFalse(Boolean.TRUE.equals(pod.getHostPID()), "hostPID only with the process-attribution component");
        assertFalse(container.getArgs().contains("--process-attribution"));
        assertTrue(container.getResources().getLimits() == null
                || container.getResources().getLimits().keySet().stream().noneMatch(k -> k.startsWith("nvidia.com/")),
                "the exporter observes cards, it takes no share of one");
    }

    @Test
    void theComponentsAddProcessAttributionAndTheRuntimeClass() throws IOException {
        PodSpec pod = named(load(DEPLOY.resolve("rendered/full.yaml")), DaemonSet.class, "hami-observe-node")
                .getSpec().getTemplate().getSpec();
        assertEquals(Boolean.TRUE, pod.getHostPID());
        assertTrue(pod.getContainers().getFirst().getArgs().contains("--process-attribution"));
        assertEquals("nvidia", pod.getRuntimeClassName());
        // hostPID lets the exporter read the host's /proc; it still gets no capability to act on it.
        assertEquals(List.of("ALL"), pod.getContainers().getFirst().getSecurityContext().getCapabilities().getDrop());
    }

    @Test
    void rbacIsReadOnlyAndPerRole() throws IOException {
        List<HasMetadata> objects = load(DEPLOY.resolve("rendered/default.yaml"));
        // group/resource: the scheduler lists and watches ReplicaSets and Jobs (its pods' owners), nothing more.
        Map<String, Set<String>> expected = Map.of(
                "hami-observe-scheduler", Set.of("/nodes", "/pods", "/resourcequotas", "apps/replicasets", "batch/jobs"),
                "hami-observe-node", Set.of("/pods"));
        for (var role : expected.entrySet()) {
            ClusterRole clusterRole = named(objects, ClusterRole.class, role.getKey());
            Set<String> resources = new TreeSet<>();
            for (PolicyRule rule : clusterRole.getRules()) {
                assertEquals(1, rule.getApiGroups().size(), "one API group per rule");
                String group = rule.getApiGroups().getFirst();
                Set<String> allowed = group.isEmpty() ? Set.of("get", "list", "watch") : Set.of("list", "watch");
                assertTrue(allowed.containsAll(rule.getVerbs()), "read-only: " + rule.getVerbs());
                rule.getResources().forEach(resource -> resources.add(group + "/" + resource));
            }
            assertEquals(role.getValue(), resources, role.getKey());

            ClusterRoleBinding binding = named(objects, ClusterRoleBinding.class, role.getKey());
            assertEquals(role.getKey(), binding.getRoleRef().getName());
            assertEquals(1, binding.getSubjects().size());
            var subject = binding.getSubjects().getFirst();
            ServiceAccount account = named(objects, ServiceAccount.class, subject.getName());
            assertEquals(account.getMetadata().getNamespace(), subject.getNamespace());
        }
        assertEquals("hami-observe-scheduler", named(objects, StatefulSet.class, "hami-observe-scheduler")
                .getSpec().getTemplate().getSpec().getServiceAccountName());
        assertEquals("hami-observe-node", named(objects, DaemonSet.class, "hami-observe-node")
                .getSpec().getTemplate().getSpec().getServiceAccountName());
    }

    @Test
    void serviceMonitorsSelectTheServicesAndKeepTheSeriesOwnLabels() throws IOException {
        List<HasMetadata> objects = load(DEPLOY.resolve("rendered/full.yaml"));
        List<GenericKubernetesResource> monitors = all(objects, GenericKubernetesResource.class).stream()
                .filter(o -> o.getKind().equals("ServiceMonitor")).toList();
        assertEquals(2, monitors.size());
        for (GenericKubernetesResource monitor : monitors) {
            @SuppressWarnings("unchecked")
            Map<String, Object> spec = (Map<String, Object>) monitor.getAdditionalProperties().get("spec");
            @SuppressWarnings("unchecked")
            Map<String, String> matchLabels = (Map<String, String>) ((Map<String, Object>) spec.get("selector")).get("matchLabels");
            List<Service> selected = all(objects, Service.class).stream()
                    .filter(s -> s.getMetadata().getLabels().entrySet().containsAll(matchLabels.entrySet())).toList();
            assertEquals(1, selected.size(), monitor.getMetadata().getName() + " selects one Service");
            Service service = selected.getFirst();
            assertEquals(monitor.getMetadata().getName(), service.getMetadata().getName());
            @SuppressWarnings("unchecked")
            List<String> namespaces = (List<String>) ((Map<String, Object>) spec.get("namespaceSelector")).get("matchNames");
            assertEquals(List.of(service.getMetadata().getNamespace()), namespaces);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> endpoints = (List<Map<String, Object>>) spec.get("endpoints");
            assertEquals(1, endpoints.size());
            assertEquals(service.getSpec().getPorts().getFirst().getName(), endpoints.getFirst().get("port"));
            assertEquals("/metrics", endpoints.getFirst().get("path"));
            // Without it Prometheus renames the tenants' namespace/pod/container labels to exported_*.
            assertEquals(Boolean.TRUE, endpoints.getFirst().get("honorLabels"));
        }
    }

    @Test
    void theShardedInstallRunsOneShardPerPodAndOneServiceMonitorOverAll() throws IOException {
        List<HasMetadata> objects = load(DEPLOY.resolve("rendered/sharded.yaml"));
        List<String> expected = new ArrayList<>(kinds(load(DEPLOY.resolve("rendered/full.yaml"))));
        assertEquals(expected, kinds(objects), "the full install's objects, the scheduler sharded");
        StatefulSet scheduler = named(objects, StatefulSet.class, "hami-observe-scheduler");
        int replicas = scheduler.getSpec().getReplicas();
        assertTrue(replicas > 1, "sharded: " + replicas);
        Container container = scheduler.getSpec().getTemplate().getSpec().getContainers().getFirst();
        EnvVar podName = container.getEnv().stream().filter(e -> e.getName().equals("POD_NAME")).findFirst()
                .orElseThrow(() -> new AssertionError("no POD_NAME"));
        assertEquals("metadata.name", podName.getValueFrom().getFieldRef().getFieldPath());

        // The pod's own arguments, as the real command line reads them: pod <name>-<i> serves shard
        // i of as many shards as there are replicas.
        List<String> args = container.getArgs();
        for (int ordinal = 0; ordinal < replicas; ordinal++) {
            CommandLine.ParseResult parsed = Launcher.commandLine(Launch.ofProcess())
                    .parseArgs(args.toArray(String[]::new));
            ShardFlags flags = (ShardFlags) parsed.subcommand().commandSpec().mixins().get("sharding").userObject();
            String pod = scheduler.getMetadata().getName() + "-" + ordinal;
            assertEquals(new Shard(ordinal, replicas), flags.shard(Map.of("POD_NAME", pod)), pod);
        }

        // One ServiceMonitor selects the one Service, whose endpoints are every shard's pod.
        List<GenericKubernetesResource> monitors = all(objects, GenericKubernetesResource.class).stream()
                .filter(o -> o.getKind().equals("ServiceMonitor")).toList();
        Map<String, String> podLabels = scheduler.getSpec().getTemplate().getMetadata().getLabels();
        List<Service> services = all(objects, Service.class).stream()
                .filter(s -> podLabels.entrySet().containsAll(s.getSpec().getSelector().entrySet())).toList();
        assertEquals(List.of("hami-observe-scheduler"), services.stream().map(s -> s.getMetadata().getName()).toList());
        List<String> watching = monitors.stream().filter(monitor -> {
            @SuppressWarnings("unchecked")
            Map<String, Object> spec = (Map<String, Object>) monitor.getAdditionalProperties().get("spec");
            @SuppressWarnings("unchecked")
            Map<String, String> matchLabels = (Map<String, String>) ((Map<String, Object>) spec.get("selector"))
                    .get("matchLabels");
            return services.getFirst().getMetadata().getLabels().entrySet().containsAll(matchLabels.entrySet());
        }).map(monitor -> monitor.getMetadata().getName()).toList();
        assertEquals(List.of("hami-observe-scheduler"), watching);
        // Not-ready shards are scraped too: their hami_observe_ledger_synced 0 is what should be seen.
        assertEquals(Boolean.TRUE, services.getFirst().getSpec().getPublishNotReadyAddresses());
    }

    @Test
    void thePrometheusRuleCarriesExactlyThePlainRulesFile() throws IOException {
        GenericKubernetesResource rule = all(load(DEPLOY.resolve("rendered/full.yaml")), GenericKubernetesResource.class)
                .stream().filter(o -> o.getKind().equals("PrometheusRule")).findFirst().orElseThrow();
        Object plain = YAML.unmarshal(Files.readString(ROOT.resolve("alerts/hami-observe.rules.yml")), Map.class);
        assertEquals(plain, rule.getAdditionalProperties().get("spec"),
                "deploy/render regenerates the PrometheusRule from alerts/hami-observe.rules.yml");
    }

    @ParameterizedTest
    @ValueSource(strings = {"base:default.yaml", "overlays/full:full.yaml", "overlays/sharded:sharded.yaml"})
    void theRenderedFilesAreWhatKustomizeRendersNow(String pair) throws Exception {
        Assumptions.assumeTrue(onPath("kubectl"), "kubectl is not installed: the committed rendering is checked as is");
        String[] parts = pair.split(":");
        Process kubectl = new ProcessBuilder("kubectl", "kustomize", DEPLOY.resolve(parts[0]).toString())
                .redirectErrorStream(true).start();
        String rendered = new String(kubectl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(kubectl.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, kubectl.exitValue(), rendered);
        String committed = Files.readString(DEPLOY.resolve("rendered").resolve(parts[1]));
        String withoutHeader = committed.substring(committed.indexOf('\n') + 1);
        if (!withoutHeader.equals(rendered)) {
            fail("deploy/rendered/" + parts[1] + " is stale: run deploy/render and commit the result");
        }
    }

    static boolean onPath(String command) {
        String path = System.getenv("PATH");
        return path != null && Stream.of(path.split(":")).anyMatch(dir -> Files.isExecutable(Path.of(dir, command)));
    }
}
