package io.hamiobserve.demo;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.hamiobserve.adapters.k8s.KubernetesSources;
import io.hamiobserve.app.metrics.BuildInfo;
import io.hamiobserve.app.testing.Expositions;
import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.OwnerObject;
import io.hamiobserve.domain.OwnerRef;
import io.hamiobserve.domain.PodOwner;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.Shard;
import io.hamiobserve.exposition.ExpositionFormat;
import io.hamiobserve.role.scheduler.AllocationRole;
import io.hamiobserve.role.scheduler.ContainerSeries;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The demo's pods run under controllers as real clusters run them, and the scheduler role names
 * each pod's top controller: the demo cluster served by fabric8's mock API server (Nodes, Pods with
 * HAMi's annotations and their owner references, the ReplicaSets and Jobs), read by the scheduler
 * role's own informers ({@link KubernetesSources#cluster()}), and every owner named on
 * {@code hami_observe_container_info} compared with the controller the demo declares. And the history holds a rollout.
 */
class DemoControllersTest {
    private static final Pattern INFO = Pattern.compile("(?m)^hami_observe_container_info\\{(.*)} ");

    @Test
    void everyDemoPodReadFromTheApiServerResolvesToItsIntendedController() throws Exception {
        DemoCluster cluster = DemoCluster.standard();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        Map<String, String> saved = new HashMap<>();
        try (KubernetesClient client = server.createClient()) {
            serve(cluster, client);
            // The scheduler role's live source, configured as fabric8 finds a cluster (here: system properties).
            for (Map.Entry<String, String> property : Map.of("kubernetes.master", client.getMasterUrl().toString(),
                    "kubernetes.auth.tryKubeConfig", "false", "kubernetes.auth.tryServiceAccount", "false",
                    "kubernetes.namespace", "default").entrySet()) {
                saved.put(property.getKey(), System.getProperty(property.getKey()));
                System.setProperty(property.getKey(), property.getValue());
            }
            try (AllocationRole role = new AllocationRole(KubernetesSources.cluster(), false,
                    ContainerSeries.POD_EFFECTIVE, BuildInfo.current(), Shard.ALL, Clock.systemUTC())) {
                role.start();
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (!role.ready()) {
                    if (System.nanoTime() > deadline) {
                        fail("the scheduler role did not sync with the mock API server: " + role.notReadyReason());
                    }
                    Thread.sleep(50);
                }
                Map<String, String> expected = new TreeMap<>();
                for (DemoCluster.Pod pod : cluster.pods()) {
                    if (pod.phase().holdsAllocation()) {
                        PodOwner owner = pod.controller().workload();
                        expected.put(pod.ref().namespace() + "/" + pod.ref().name(), owner.kind() + "/" + owner.name());
                    }
                }
                Map<String, String> named = owners(Expositions.render(role, ExpositionFormat.PROMETHEUS_TEXT));
                assertEquals(expected, named);
                // Every kind the demo promises is there, and exactly one bare pod.
                assertEquals(List.of("CronJob", "DaemonSet", "Deployment", "Job", "Pod", "PyTorchJob", "StatefulSet"),
                        new TreeSet<>(cluster.everyPod().stream().map(pod -> pod.controller().workload().kind())
                                .toList()).stream().toList());
                assertEquals(1, cluster.pods().stream()
                        .filter(pod -> pod.controller().workload().kind().equals(PodOwner.POD)).count());
            }
        } finally {
            saved.forEach((key, value) -> {
                if (value == null) {
                    System.clearProperty(key);
                } else {
                    System.setProperty(key, value);
                }
            });
            try {
                server.destroy();
            } catch (IllegalStateException slow) {
                // A slow shutdown of the mock server on a busy machine is not this test's failure.
                System.err.println("mock server shutdown: " + slow.getMessage());
            }
        }
    }

    /**
     * Creates the demo cluster's objects: each ReplicaSet and Job first (the API server gives it its
     * UID, which its pods' references then carry), then the nodes and pods.
     */
    private static void serve(DemoCluster cluster, KubernetesClient client) {
        Map<String, String> uids = new HashMap<>();
        for (OwnerObject owner : cluster.owners()) {
            var meta = new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withNamespace(owner.namespace())
                    .withName(owner.name()).withOwnerReferences(owner.controller().map(DemoControllersTest::reference)
                            .map(List::of).orElse(List.of())).build();
            String uid = owner.kind().equals("ReplicaSet")
                    ? client.apps().replicaSets().inNamespace(owner.namespace()).resource(new ReplicaSetBuilder()
                    .withMetadata(meta).withNewSpec().withReplicas(1).endSpec().build()).create().getMetadata().getUid()
                    : client.batch().v1().jobs().inNamespace(owner.namespace()).resource(new JobBuilder()
                    .withMetadata(meta).withNewSpec().withNewTemplate().withNewSpec().addNewContainer().withName("c")
                    .withImage("busybox").endContainer().endSpec().endTemplate().endSpec().build())
                    .create().getMetadata().getUid();
            uids.put(owner.uid(), uid);
        }
        for (String node : cluster.registeringNodes()) {
            List<DemoCluster.Card> cards = cluster.cards(node);
            String annotation = cards.getFirst().nvidia() ? "hami.io/node-nvidia-register"
                    : "hami.io/node-register-" + cards.getFirst().registration().type();
            String register = cards.stream().map(card -> String.format(
                    "{\"id\":\"%s\",\"index\":%d,\"count\":%d,\"devmem\":%d,\"devcore\":%d,\"type\":\"%s\",\"health\":true}",
                    card.registration().uuid(), card.registration().index(), card.registration().maxShares(),
                    card.registration().memoryMib(), card.registration().cores(), card.registration().type()))
                    .collect(Collectors.joining(",", "[", "]"));
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName(node)
                    .addToAnnotations(annotation, register).endMetadata().build()).create();
        }
        for (DemoCluster.Pod pod : cluster.pods()) {
            PodBuilder builder = new PodBuilder().withNewMetadata().withNamespace(pod.ref().namespace())
                    .withName(pod.ref().name()).withUid(pod.ref().uid())
                    .addToAnnotations("hami.io/vgpu-node", pod.node()).addToLabels("hami.io/vgpu-node", pod.node())
                    .endMetadata().withNewSpec().withNodeName(pod.node()).endSpec()
                    .withNewStatus().withPhase(phase(pod.phase())).endStatus();
            pod.controller().ref().ifPresent(ref -> builder.editMetadata().withOwnerReferences(reference(
                    new OwnerRef(ref.kind(), ref.name(), uids.getOrDefault(ref.uid(), ref.uid())))).endMetadata());
            if (!pod.controller().templateHash().isEmpty()) {
                builder.editMetadata().addToLabels("pod-template-hash", pod.controller().templateHash()).endMetadata();
            }
            Map<String, StringBuilder> allocated = new TreeMap<>();
            for (DemoCluster.Container container : pod.containers()) {
                var spec = new ContainerBuilder().withName(container.name()).withImage("cuda").build();
                if (container.init()) {
                    builder.editSpec().addToInitContainers(spec).endSpec();
                } else {
                    builder.editSpec().addToContainers(spec).endSpec();
                }
            }
            String key = pod.containers().stream().flatMap(container -> container.shares().stream())
                    .map(DeviceShare::vendor).findFirst()
                    .map(type -> type.equals("NVIDIA") ? "hami.io/vgpu-devices-allocated"
                            : "hami.io/" + type + "-devices-allocated").orElseThrow();
            StringBuilder annotation = allocated.computeIfAbsent(key, k -> new StringBuilder());
            for (DemoCluster.Container container : pod.containers()) {
                for (DeviceShare share : container.shares()) {
                    annotation.append(share.uuid()).append(',').append(share.vendor()).append(',')
                            .append(share.memoryMib()).append(',').append(share.cores()).append(':');
                }
                annotation.append(';');
            }
            allocated.forEach((name, value) -> builder.editMetadata().addToAnnotations(name, value.toString())
                    .endMetadata());
            client.pods().inNamespace(pod.ref().namespace()).resource(builder.build()).create();
        }
    }

    private static OwnerReference reference(OwnerRef ref) {
        return new OwnerReferenceBuilder().withApiVersion("v1").withKind(ref.kind()).withName(ref.name())
                .withUid(ref.uid()).withController(true).build();
    }

    private static String phase(PodPhase phase) {
        String name = phase.name().toLowerCase(java.util.Locale.ROOT);
        return Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }

    /** {@code namespace/pod} → {@code kind/name} named by each {@code hami_observe_container_info} series. */
    private static Map<String, String> owners(String exposition) {
        Map<String, String> owners = new TreeMap<>();
        Matcher matcher = INFO.matcher(exposition);
        while (matcher.find()) {
            Map<String, String> labels = labels(matcher.group(1));
            String owner = labels.get("owner_kind") + "/" + labels.get("owner_name");
            String before = owners.put(labels.get("namespace") + "/" + labels.get("pod"), owner);
            assertTrue(before == null || before.equals(owner), "one owner for every container of " + labels);
        }
        return owners;
    }

    @Test
    void theHistoryHoldsARolloutAndTheCronJobsJobsWithTheirOwners() throws Exception {
        Instant now = Instant.ofEpochSecond(1_800_000_000L);
        DemoHistory history = new DemoHistory(DemoCluster.standard(), now);
        Path file = Files.createTempFile("demo-history", ".om");
        try {
            history.writeOpenMetrics(List.of(file), now.minusSeconds(1), "127.0.0.1:1",
                    Map.of(DemoCluster.NODE_A, "127.0.0.1:2", DemoCluster.NODE_B, "127.0.0.1:3"));
            // Each pod's owner and the instants it was there, from the series a Prometheus is filled with.
            Map<String, String> ownerOf = new TreeMap<>();
            Map<String, long[]> seen = new TreeMap<>();
            Pattern sample = Pattern.compile("^hami_observe_container_info\\{(.*)} 1(?:\\.0)? (\\d+)(?:\\.\\d+)?$");
            try (var lines = Files.lines(file)) {
                lines.forEach(line -> {
                    Matcher matcher = sample.matcher(line);
                    if (matcher.matches()) {
                        Map<String, String> labels = labels(matcher.group(1));
                        String pod = labels.get("namespace") + "/" + labels.get("pod");
                        ownerOf.put(pod, labels.get("owner_kind") + "/" + labels.get("owner_name"));
                        long t = Long.parseLong(matcher.group(2));
                        seen.merge(pod, new long[] {t, t}, (a, b) -> new long[] {Math.min(a[0], b[0]),
                                Math.max(a[1], b[1])});
                    }
                });
            }
            List<String> deployment = ownerOf.entrySet().stream()
                    .filter(entry -> entry.getValue().equals("Deployment/llm-inference")).map(Map.Entry::getKey).toList();
            assertEquals(List.of("ml-team/llm-inference-5c4b7f9d8-h4p9d", "ml-team/llm-inference-5c4b7f9d8-q7t2z",
                    "ml-team/llm-inference-7d9f8c6b5-m8w2n", "ml-team/llm-inference-7d9f8c6b5-x2k4q"), deployment);
            long rollout = now.minus(DemoCluster.ROLLOUT_AGO).toEpochMilli() / 1000;
            long step = DemoHistory.STEP.toSeconds();
            long start = history.start().getEpochSecond();
            for (String pod : deployment) {
                long[] span = seen.get(pod);
                if (pod.contains("5c4b7f9d8")) {
                    // The old ReplicaSet's pods: from the history's start until the rollout.
                    assertTrue(span[0] - start < step && rollout - span[1] <= step && span[1] < rollout, pod);
                } else {
                    // The new ones: from the rollout to the present.
                    assertTrue(span[0] >= rollout && span[0] - rollout <= step && now.getEpochSecond() - span[1] <= 1,
                            pod);
                }
            }
            assertTrue(rollout - start > Duration.ofDays(2).toSeconds() && now.getEpochSecond() - rollout
                    > Duration.ofDays(2).toSeconds(), "the rollout is mid-window");
            // The CronJob's Jobs: a pod of each day's Job while it ran, every one named the CronJob's.
            List<String> reports = ownerOf.entrySet().stream().filter(entry -> entry.getValue().equals(
                    "CronJob/nightly-report")).map(Map.Entry::getKey).toList();
            assertTrue(reports.size() >= DemoCluster.REPORT_JOBS - 1, "the CronJob's pods: " + reports);
            assertTrue(reports.stream().allMatch(pod -> pod.matches("default/nightly-report-\\d+-[a-z0-9]{5}")),
                    reports.toString());
        } finally {
            Files.deleteIfExists(file);
        }
        // The simulation's own state agrees: before the rollout the old pods hold the shares.
        AllocationView before = history.allocation(now.minus(DemoCluster.ROLLOUT_AGO).minusSeconds(600));
        AllocationView after = history.allocation(now.minus(DemoCluster.ROLLOUT_AGO).plusSeconds(600));
        assertTrue(before.pods().stream().anyMatch(pod -> pod.pod().name().startsWith("llm-inference-5c4b7f9d8-")));
        assertFalse(after.pods().stream().anyMatch(pod -> pod.pod().name().startsWith("llm-inference-5c4b7f9d8-")));
        assertTrue(after.pods().stream().anyMatch(pod -> pod.pod().name().startsWith("llm-inference-7d9f8c6b5-")));
    }

    private static Map<String, String> labels(String text) {
        Map<String, String> labels = new HashMap<>();
        Matcher matcher = Pattern.compile("([a-z_]+)=\"([^\"]*)\"").matcher(text);
        while (matcher.find()) {
            labels.put(matcher.group(1), matcher.group(2));
        }
        return labels;
    }
}
