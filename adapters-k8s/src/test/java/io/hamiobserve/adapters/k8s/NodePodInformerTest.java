package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hamiobserve.domain.NodePod;
import io.hamiobserve.ports.NodePodDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.hamiobserve.adapters.k8s.Fixtures.await;
import static io.hamiobserve.adapters.k8s.Fixtures.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodePodInformerTest {
    private final MockCluster cluster = new MockCluster();
    private final KubernetesClient client = cluster.client;
    private final KubernetesClient ledgerClient = cluster.ledgerClient;
    private NodePodDirectory directory;
    private final Fixtures.RecordingSkips skips = new Fixtures.RecordingSkips();

    @AfterEach
    void stop() {
        if (directory != null) {
            directory.close();
        }
        cluster.close();
    }

    private static Pod running(String name, String node, String allocated) {
        return pod("ml", name, node, allocated, "main")
                .editSpec().withNodeName(node)
                .addToInitContainers(new ContainerBuilder().withName("setup").build()).endSpec()
                .editStatus()
                .addToInitContainerStatuses(Fixtures.terminated("setup"))
                .editFirstInitContainerStatus().withContainerID("cri-o://aaa111").endInitContainerStatus()
                .addToContainerStatuses(new ContainerStatusBuilder().withName("main")
                        .withContainerID("containerd://bbb222").build())
                .endStatus().build();
    }

    @Test
    void listsTheHamiPodsOfThisNodeOnly() {
        client.pods().inNamespace("ml").resource(running("here", "node-a", ";GPU-1,NVIDIA,100,10:;")).create();
        client.pods().inNamespace("ml").resource(running("elsewhere", "node-b", ";GPU-9,NVIDIA,100,10:;")).create();
        directory = KubernetesSources.nodePods(ledgerClient, "node-a");
        directory.start(skips);
        await("synced", directory::isSynced);
        await("pod listed", () -> directory.pods().size() == 1);

        NodePod pod = directory.pods().get(0);
        assertEquals("here", pod.pod().name());
        assertEquals(List.of("setup", "main"), pod.containerNames());
        assertEquals(Map.of("aaa111", "setup", "bbb222", "main"), pod.containerIdToName());
        assertEquals("GPU-1", pod.placement().orElseThrow().containers().get(1).devices().get(0).uuid());
        assertTrue(pod.placement().orElseThrow().initContainersFinished());

        client.pods().inNamespace("ml").resource(running("second", "node-a", "garbage;")).create();
        await("second pod", () -> directory.pods().size() == 2);
        assertEquals(List.of("here", "second"), directory.pods().stream().map(p -> p.pod().name()).toList());
        assertTrue(skips.reasons().contains("nvidia_pod/wrong_field_count"), skips.reasons()::toString);

        client.pods().inNamespace("ml").withName("here").delete();
        await("deleted pod gone", () -> directory.pods().stream().map(p -> p.pod().name()).toList()
                .equals(List.of("second")));
    }
}
